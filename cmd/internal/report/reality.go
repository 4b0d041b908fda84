package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/compare"
	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	page "github.com/redlocksim/redlocksim/plots/report"
	"github.com/redlocksim/redlocksim/scenarios"
)

// ReadReality reads the reality check for the report: either what
// `redlocksim compare --json` printed (one array of rows, simulated and
// real side by side), or the objects `redlocksim real NAME --json`
// printed (any number, one after another, as `>>` collects them), beside
// which it runs each scenario once in the simulator at its own seed.
// inPage names the scenarios the page has sections for.
func ReadReality(path string, inPage map[string]bool) ([]page.Reality, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
		return readCompare(path, data, inPage)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	byName := map[string]*page.Reality{}
	clients := map[string][]string{}
	var order []string
	for n := 1; ; n++ {
		var r runjson.Real // what real --json printed
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: object %d: %w (want what 'redlocksim real NAME --json' or 'redlocksim compare --json' prints)", path, n, err)
		}
		if r.Mode != "real" {
			return nil, fmt.Errorf("%s: object %d (%s) has mode %q: want the output of 'redlocksim real NAME --json'", path, n, r.Scenario, r.Mode)
		}
		for _, v := range []string{r.Mutex, r.Resource} {
			if v != "safe" && v != "violation" {
				return nil, fmt.Errorf("%s: object %d (%s): verdict %q is neither safe nor violation", path, n, r.Scenario, v)
			}
		}
		x, ok := byName[r.Scenario]
		if !ok {
			sc, err := scenarios.LoadLibrary(r.Scenario)
			if err != nil {
				return nil, fmt.Errorf("%s: object %d: %w", path, n, err)
			}
			res, err := sc.Plan.RunWithin(sc.Seed, 0)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.Scenario, err)
			}
			x = &page.Reality{Scenario: r.Scenario, InPage: inPage[r.Scenario], SimRuns: 1}
			if !res.MutexSafe() {
				x.SimMutexViolated = 1
			}
			if !res.ResourceSafe() {
				x.SimResViolated = 1
			}
			byName[r.Scenario] = x
			order = append(order, r.Scenario)
		}
		x.Runs++
		if r.Mutex == "violation" {
			x.MutexViolated++
		}
		if r.Resource == "violation" {
			x.ResViolated++
		}
		if r.LockClient != "" && !slices.Contains(clients[r.Scenario], r.LockClient) {
			clients[r.Scenario] = append(clients[r.Scenario], r.LockClient)
		}
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%s has no real runs", path)
	}
	var out []page.Reality
	for _, n := range order {
		x := byName[n]
		x.LockClients = strings.Join(clients[n], "; ")
		out = append(out, *x)
	}
	return out, nil
}

// readCompare reads `redlocksim compare --json`'s rows (compare.Row).
func readCompare(path string, data []byte, inPage map[string]bool) ([]page.Reality, error) {
	var rows []compare.Row
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rows); err != nil {
		return nil, fmt.Errorf("%s: %w (want what 'redlocksim compare --json' prints)", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s has no compared scenarios", path)
	}
	var out []page.Reality
	for i, r := range rows {
		if _, ok := scenarios.LibraryFile(r.Scenario); !ok {
			return nil, fmt.Errorf("%s: row %d: no built-in scenario is called %q", path, i+1, r.Scenario)
		}
		if r.Sim.Mutex.N != r.Sim.Resource.N || r.Real.Mutex.N != r.Real.Resource.N || r.Sim.Mutex.N == 0 || r.Real.Mutex.N == 0 {
			return nil, fmt.Errorf("%s: row %d (%s): run counts do not match (sim %d/%d, real %d/%d)", path, i+1, r.Scenario,
				r.Sim.Mutex.N, r.Sim.Resource.N, r.Real.Mutex.N, r.Real.Resource.N)
		}
		agreement := "agree"
		if !r.Agree {
			agreement = "DISAGREE: " + r.Why
		}
		out = append(out, page.Reality{
			Scenario: r.Scenario, InPage: inPage[r.Scenario],
			SimRuns: r.Sim.Mutex.N, SimMutexViolated: r.Sim.Mutex.K, SimResViolated: r.Sim.Resource.K,
			Runs: r.Real.Mutex.N, MutexViolated: r.Real.Mutex.K, ResViolated: r.Real.Resource.K,
			LockClients: r.LockClient, Agreement: agreement,
		})
	}
	return out, nil
}
