package differ

import (
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	"github.com/redlocksim/redlocksim/scenarios"
)

// Machine states what the real side ran on: it is not deterministic.
func Machine() string {
	parts := []string{fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())}
	for _, b := range []string{"redis-server", "etcd"} {
		if v := serverVersion(b); v != "" {
			parts = append(parts, b+" "+v)
		}
	}
	return strings.Join(parts, ", ")
}

// serverVersion is the version a server binary prints, or "" when it is
// not installed.
func serverVersion(bin string) string {
	path, err := exec.LookPath(bin)
	if err != nil {
		return ""
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return ""
	}
	for _, f := range strings.Fields(string(out)) {
		if v, ok := strings.CutPrefix(f, "v="); ok {
			return v // redis-server: "Redis server v=7.0.15 sha=..."
		}
		if strings.Count(f, ".") == 2 && f[0] >= '0' && f[0] <= '9' {
			return f // etcd: "etcd Version: 3.4.23"
		}
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

// WriteText prints a search's summary and findings as compare explore
// does; machine is Machine's line.
func WriteText(w io.Writer, ex *explore.Explorer, opt Options, s Summary, scale float64, machine string) {
	fmt.Fprintf(w, "compare --explore %s: faults %s, at most %d faults, explore seed %d, run seed %d\n",
		ex.Scenario().Name, ex.Space().KindsText(), ex.Space().MaxFaults, opt.Seed, ex.Scenario().Seed)
	fmt.Fprintf(w, "real: %d runs per schedule at scale %.3g, at most %d per disagreement; %s\n", opt.Repeat, scale, opt.Budget, machine)
	if s.Interrupted {
		fmt.Fprintf(w, "interrupted: what follows is what %d schedules found\n", s.Schedules)
	}
	fmt.Fprintf(w, "%d schedules: %d agree, %d disagree, %d flaky, %d refused (%d real runs)\n", s.Schedules, s.Agree, s.Disagree, s.Flaky, s.Refused, s.RealRuns)
	if s.Refused > 0 {
		fmt.Fprintf(w, "first refused: %s\n", s.FirstRefusal)
	}
	if s.Disagree == 0 {
		fmt.Fprintf(w, "no disagreement in %d schedules run both ways; disagreement rate < %.3g at 95%%\n", s.Agree+s.Flaky, s.RateBound())
	}
	n := 0
	for _, f := range s.Findings {
		if f.Flaky {
			fmt.Fprintf(w, "\nflaky: %s (run %d)\n   %s; first batch %s; re-run %s\n", f.Drawn, f.Run, strings.Join(f.Parts, "; "), f.First, f.Second)
			continue
		}
		n++
		fmt.Fprintf(w, "\n%d. %s\n", n, f.Minimal)
		fmt.Fprintf(w, "   shape   %s (%d fault%s; drawn with %d at run %d, shrunk with %d real runs%s)\n",
			f.Shape, len(f.Minimal), plural(len(f.Minimal)), len(f.Drawn), f.Run, f.RealRuns, map[bool]string{true: ", budget spent"}[f.Exhausted])
		fmt.Fprintf(w, "   parts   %s\n", strings.Join(f.Parts, "; "))
		fmt.Fprintf(w, "   minimal sim mutex %s, resource %s; real %s\n", scenarios.Verdict(!f.MinSim.Mutex), scenarios.Verdict(!f.MinSim.Resource), f.Final)
		if f.File != "" {
			fmt.Fprintf(w, "   replay  redlocksim run %s   (for real: redlocksim real %s --runs %d)\n", f.File, f.File, opt.Repeat)
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

type differJSON struct {
	Faults   []string  `json:"faults"`
	Drawn    []string  `json:"drawn"`
	Shape    string    `json:"shape"`
	Parts    []string  `json:"parts"`
	Run      int       `json:"run"`
	Flaky    bool      `json:"flaky"`
	First    batchJSON `json:"first"`
	Second   batchJSON `json:"second"`
	Final    batchJSON `json:"final"`
	SimMutex string    `json:"sim_mutex"`
	SimRes   string    `json:"sim_resource"`
	RealRuns int       `json:"real_runs"`
	Budget   bool      `json:"budget_spent"`
	Path     []string  `json:"shrink_path,omitempty"`
	File     string    `json:"file,omitempty"`
}

type batchJSON struct {
	Runs     int `json:"runs"`
	Mutex    int `json:"mutex_violated"`
	Resource int `json:"resource_violated"`
}

// WriteJSON prints them as one JSON object (compare explore --json).
func WriteJSON(w io.Writer, ex *explore.Explorer, opt Options, s Summary, scale float64, machine string) error {
	type summary struct {
		Schedules int     `json:"schedules"`
		Agree     int     `json:"agree"`
		Disagree  int     `json:"disagree"`
		Flaky     int     `json:"flaky"`
		Refused   int     `json:"refused"`
		RealRuns  int     `json:"real_runs"`
		RateHi    float64 `json:"disagree_rate_hi95"`
	}
	out := struct {
		Mode          string       `json:"mode"`
		Base          string       `json:"base"`
		Faults        string       `json:"faults"`
		MaxFaults     int          `json:"max_faults"`
		Seed          uint64       `json:"seed"`
		RunSeed       uint64       `json:"run_seed"`
		Repeat        int          `json:"repeat"`
		Budget        int          `json:"budget"`
		Scale         float64      `json:"scale"`
		Machine       string       `json:"machine"`
		Interrupted   bool         `json:"interrupted"`
		FirstRefusal  string       `json:"first_refusal,omitempty"`
		Summary       summary      `json:"summary"`
		Disagreements []differJSON `json:"disagreements"`
	}{"compare-explore", ex.Scenario().Name, ex.Space().KindsText(), ex.Space().MaxFaults, opt.Seed, ex.Scenario().Seed,
		opt.Repeat, opt.Budget, scale, machine, s.Interrupted, s.FirstRefusal,
		summary{s.Schedules, s.Agree, s.Disagree, s.Flaky, s.Refused, s.RealRuns, s.RateBound()}, []differJSON{}}
	b := func(x Batch) batchJSON { return batchJSON{x.N, x.Mutex, x.Resource} }
	for _, f := range s.Findings {
		j := differJSON{Shape: f.Shape, Parts: f.Parts, Run: f.Run, Flaky: f.Flaky, First: b(f.First), Second: b(f.Second), Final: b(f.Final),
			SimMutex: scenarios.Verdict(!f.MinSim.Mutex), SimRes: scenarios.Verdict(!f.MinSim.Resource), RealRuns: f.RealRuns, Budget: f.Exhausted, File: f.File}
		for _, st := range f.Minimal {
			j.Faults = append(j.Faults, st.String())
		}
		for _, st := range f.Drawn {
			j.Drawn = append(j.Drawn, st.String())
		}
		if !f.Flaky {
			j.Path = f.Path
		}
		out.Disagreements = append(out.Disagreements, j)
	}
	return runjson.Print(w, out)
}
