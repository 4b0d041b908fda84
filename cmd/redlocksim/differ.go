package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
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
	machine := differ.Machine()
	if x.json {
		if jerr := differ.WriteJSON(stdout, ex, dopt, sum, scale, machine); jerr != nil {
			return fmt.Errorf("redlocksim compare: %v", jerr)
		}
	} else {
		differ.WriteText(stdout, ex, dopt, sum, scale, machine)
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
