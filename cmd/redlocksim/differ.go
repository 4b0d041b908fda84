package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/differ"
	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/scenarios"
)

// differFlags are compare explore's own flags.
type differFlags struct {
	base      string
	repeat    int
	budget    int
	faults    string
	maxFaults int
	seed      seedFlag
	out       outFlag
	scale     float64
}

// declare registers them on fs (the base is an argument, or the older
// spelling's --explore).
func (d *differFlags) declare(fs *flag.FlagSet) {
	fs.IntVar(&d.repeat, "repeat", 3, "real runs per schedule")
	fs.IntVar(&d.budget, "budget", 40, "real runs per disagreement, to confirm and shrink it")
	fs.StringVar(&d.faults, "faults", "", "comma-separated fault `kinds` to draw (default: all that the base's algorithm can meet)")
	fs.IntVar(&d.maxFaults, "max-faults", 3, "most faults in one schedule")
	d.seed.register(fs, "the explore seed (default 1)")
	d.out.register(fs, "disagreements", "the `directory` minimal disagreements are written to")
	fs.Float64Var(&d.scale, "scale", 0, "the real runs' scale (default: the base's, see 'redlocksim help real')")
}

// compareExploreFlags are what one compare explore is given.
type compareExploreFlags struct {
	differFlags
	runs int // fault schedules drawn
	json jsonFlag
	sets setFlags
}

func cmdCompareExplore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare explore", `usage: redlocksim compare explore BASE [--runs R] [--repeat K] [--faults KINDS] [--seed S] [--budget N] [--out DIR] [--json] [--set KEY=VALUE]...

Searches for where the simulator and real runs part: it draws --runs
fault schedules from explore's space over BASE, runs each in the
simulator and --repeat times for real, and shrinks each disagreement
that survives a second batch to a minimal scenario file in --out,
confirming every shrinking step with --repeat real runs and at most
--budget real runs per disagreement. A disagreement that does not survive
re-running is reported as flaky, and a schedule a real run cannot take as
refused. --set key=value (repeatable) changes BASE, as 'redlocksim run
--set' does.

flags:
`, stderr)
	x := &compareExploreFlags{}
	fs.IntVar(&x.runs, "runs", 30, "fault schedules to draw")
	x.json.register(fs, "print the summary as one JSON object")
	x.sets.register(fs)
	x.declare(fs)
	rest, err := parseArgs(fs, args)
	switch {
	case err != nil:
		return err
	case len(rest) != 1:
		return badInputf("redlocksim compare explore: name one base scenario, got %d arguments", len(rest))
	}
	x.base = rest[0]
	return compareExplore(ctx, x, recordedCommand("compare explore", args), stdout, stderr)
}

// resolution is the shortest fault time or magnitude, in wall time, that
// a real run on this machine tells apart from none: a few timer slacks.
const resolution = 10 * time.Millisecond

// compareExplore is one compare explore, recorded in the files it writes
// as the command recorded.
func compareExplore(ctx context.Context, x *compareExploreFlags, recorded string, stdout, stderr io.Writer) error {
	bad := func(format string, a ...any) error {
		return badInputf("redlocksim compare --explore: "+format, a...)
	}
	d, runs := x.differFlags, x.runs
	if d.repeat < 1 || d.budget < d.repeat {
		return bad("--repeat must be at least 1 and --budget at least --repeat (got %d and %d)", d.repeat, d.budget)
	}
	base, err := scenarios.LoadBase(d.base)
	if err != nil {
		return bad("%v", err)
	}
	overrides, err := x.sets.overrides()
	if err != nil {
		return bad("%v", err)
	}
	opt := explore.Options{Base: base, Sets: overrides, MaxFaults: d.maxFaults, Differential: true}
	if d.faults != "" {
		opt.Kinds = strings.Split(d.faults, ",")
	}
	ex, err := explore.New(opt)
	if err != nil {
		return bad("%v", err)
	}
	cfg := ex.Scenario().Config
	if refused, _ := harness.Refusals(&cfg); len(refused) > 0 {
		return bad("%s: %v", ex.Scenario().Name, refused[0])
	}
	scale := d.scale
	if scale == 0 {
		scale = harness.DefaultScale(&cfg)
	}
	if err := harness.CheckScale(&cfg, scale); err != nil {
		return bad("--scale: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("redlocksim compare: %v", err)
	}
	runner := differ.HarnessRunner{Client: []string{exe, "real-client"}, Scale: scale}
	res := time.Duration(float64(resolution) * scale)
	if d.faults == "" {
		// Draw only what a real run can take: a kind it always refuses
		// would only add to the refused count.
		kept, dropped, err := differ.RealKinds(opt, runner, res, 50, d.seed.or(1))
		if err != nil {
			return bad("%v", err)
		}
		for _, k := range dropped {
			fmt.Fprintf(stderr, "not drawn: %s (%s)\n", k.Kind, k.Why)
		}
		if len(kept) == 0 {
			return bad("a real run can take none of the fault kinds explore draws on %s", ex.Scenario().Name)
		}
		opt.Kinds = kept
		if ex, err = explore.New(opt); err != nil {
			return bad("%v", err)
		}
	}
	dopt := differ.Options{
		Explorer: ex, Runner: runner,
		Runs: runs, Repeat: d.repeat, Budget: d.budget, Seed: d.seed.or(1),
		Resolution: res, Out: string(d.out), Command: recorded,
	}
	if isTerminal(stderr) {
		bar := newBar(stderr, runs, "compare --explore "+ex.Scenario().Name)
		dopt.Progress = func(done, _ int) { _ = bar.Set(done) }
		defer fmt.Fprintln(stderr)
	}
	start := time.Now()
	sum, err := differ.Search(ctx, dopt)
	machine := machineLine()
	if x.json {
		if jerr := writeDifferJSON(stdout, ex, dopt, sum, scale, machine); jerr != nil {
			return fmt.Errorf("redlocksim compare: %v", jerr)
		}
	} else {
		writeDifferText(stdout, ex, dopt, sum, scale, machine)
	}
	fmt.Fprintf(stderr, "compare --explore: %d schedules, %d real runs in %s\n", sum.Schedules, sum.RealRuns, time.Since(start).Round(time.Second))
	if err != nil {
		return finding(fmt.Errorf("redlocksim compare --explore: %v", err))
	}
	if sum.Interrupted {
		return interrupted(ctx)
	}
	return nil
}

// machineLine states what the real side ran on: it is not deterministic.
func machineLine() string {
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

func writeDifferText(w io.Writer, ex *explore.Explorer, opt differ.Options, s differ.Summary, scale float64, machine string) {
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
		fmt.Fprintf(w, "   minimal sim mutex %s, resource %s; real %s\n", verdictWord(!f.MinSim.Mutex), verdictWord(!f.MinSim.Resource), f.Final)
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

func writeDifferJSON(w io.Writer, ex *explore.Explorer, opt differ.Options, s differ.Summary, scale float64, machine string) error {
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
	b := func(x differ.Batch) batchJSON { return batchJSON{x.N, x.Mutex, x.Resource} }
	for _, f := range s.Findings {
		j := differJSON{Shape: f.Shape, Parts: f.Parts, Run: f.Run, Flaky: f.Flaky, First: b(f.First), Second: b(f.Second), Final: b(f.Final),
			SimMutex: verdictWord(!f.MinSim.Mutex), SimRes: verdictWord(!f.MinSim.Resource), RealRuns: f.RealRuns, Budget: f.Exhausted, File: f.File}
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
	return printJSON(w, out)
}
