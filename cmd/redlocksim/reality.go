package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/report"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// realRecord is what the report reads of one `redlocksim real --json`
// object.
type realRecord struct {
	Mode       string `json:"mode"`
	Scenario   string `json:"scenario"`
	Mutex      string `json:"mutex"`
	Resource   string `json:"resource"`
	LockClient string `json:"lock_client"`
}

// readReality reads the objects `redlocksim real NAME --json` printed
// (any number, one after another, as `>>` collects them) and sets each
// scenario's real runs beside its simulated verdict. inPage names the
// scenarios the page has sections for.
func readReality(path string, inPage map[string]bool) ([]report.Reality, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	byName := map[string]*report.Reality{}
	clients := map[string][]string{}
	var order []string
	for n := 1; ; n++ {
		var r realRecord
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: object %d: %w (want what 'redlocksim real NAME --json' prints)", path, n, err)
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
			res, err := model.Run(sc.Config, sc.Seed)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.Scenario, err)
			}
			x = &report.Reality{Scenario: r.Scenario, InPage: inPage[r.Scenario], SimMutexSafe: res.MutexSafe(), SimResSafe: res.ResourceSafe()}
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
	var out []report.Reality
	for _, n := range order {
		x := byName[n]
		x.LockClients = strings.Join(clients[n], "; ")
		out = append(out, *x)
	}
	return out, nil
}
