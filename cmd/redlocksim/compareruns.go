package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/redlocksim/redlocksim/cmd/internal/compare"
	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/scenarios"
)

// compareRunsFlags are compare runs's options.
type compareRunsFlags struct {
	runs     int
	json     jsonFlag
	csv, all bool
	sets     setFlags
}

func (f *compareRunsFlags) declare(fs *flag.FlagSet) {
	fs.IntVar(&f.runs, "runs", 5, "runs per scenario in each mode")
	f.json.register(fs, "print a JSON array of rows")
	fs.BoolVar(&f.csv, "csv", false, "print CSV")
	fs.BoolVar(&f.all, "all", false, "every library scenario that can run for real")
	f.sets.register(fs)
}

func (c *comparer) runs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare runs", `usage: redlocksim compare runs NAME|FILE|DIR... [--set KEY=VALUE]... [flags]
       redlocksim compare runs --all [--set KEY=VALUE]... [flags]

Runs each scenario --runs times in the simulator (seeds 1..N) and --runs
times for real (see 'redlocksim help real'), and prints one row per
scenario: how many runs violated mutual exclusion and the resource, with
95% Wilson intervals, the mean unavailability (real runs' times multiplied
back by their scale) and a verdict: agree when both modes give the same
majority verdict for both properties and their intervals overlap,
DISAGREE otherwise. --all takes every library scenario a real run can take
(the others are listed on stderr with the reason). A DIR stands for the
scenario files (*.toml) in it, in name order, such as explore's --out
directory; those a real run cannot take are skipped the same way, while a
scenario named on its own that cannot run for real is an error.
--json (per_acquisition, per_hour) and --csv (the last columns,
sim_mutex_per_acquisition and its _ci_low, _ci_high, ...) also give each
mode's violations per acquisition and per hour of scenario time (runs ×
duration), with exact 95% Poisson (Garwood) intervals.
--set key=value (repeatable) overrides a key of every scenario compared,
as 'redlocksim run --set' does, before either mode runs it: both the
simulator and the real runs see the changed scenario, so a variant needs
no file of its own (compare runs gc-pause --set lock.ttl=20s). A key a
scenario does not take is an error (exit 2).

flags:
`, stderr)
	f := &compareRunsFlags{}
	f.declare(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	return f.run(ctx, rest, c.realRun, stdout, stderr)
}

// run is compare runs on the scenarios rest names, real runs from realRun.
func (f *compareRunsFlags) run(ctx context.Context, rest []string, realRun compare.RealRun, stdout, stderr io.Writer) error {
	switch {
	case f.runs < 1:
		return badInputf("redlocksim compare: --runs must be at least 1, got %d", f.runs)
	case bool(f.json) && f.csv:
		return badInputf("redlocksim compare: --json or --csv, not both")
	case f.all == (len(rest) > 0):
		return badInputf("redlocksim compare: name scenarios or give --all (not both)")
	}
	scs, err := compareScenarios(rest, f.all, f.sets, stderr)
	if err != nil {
		return err
	}
	var bar interface{ Add(int) error }
	if isTerminal(stderr) {
		bar = newBar(stderr, len(scs)*f.runs, "compare")
	}
	var progress func()
	if bar != nil {
		progress = func() { _ = bar.Add(1) }
	}
	var rows []compare.Row
	for _, sc := range scs {
		row, err := compare.One(ctx, sc, f.runs, realRun, progress)
		if err != nil {
			var missing *proc.MissingError
			switch {
			case ctx.Err() != nil:
				return interrupted(ctx)
			case errors.As(err, &missing):
				return environment(fmt.Errorf("redlocksim compare: %w", err))
			}
			return finding(fmt.Errorf("redlocksim compare: %s: %v", sc.Name, err))
		}
		rows = append(rows, row)
	}
	if bar != nil {
		fmt.Fprintln(stderr)
	}
	switch {
	case bool(f.json):
		if err := printJSON(stdout, rows); err != nil {
			return badInput(nil)
		}
	case f.csv:
		compare.WriteCSV(stdout, rows)
	default:
		compare.WriteTable(stdout, rows)
	}
	return nil
}

// compareScenarios loads the scenarios to compare, each with the --set
// overrides sets as run applies them: those a real run refuses are
// skipped (with the reason on stderr) when they came from --all or a
// directory, and end the command when named on their own.
func compareScenarios(args []string, all bool, sets []string, stderr io.Writer) ([]*scenarios.Scenario, error) {
	if _, err := scenarios.ParseOverrides(sets); err != nil {
		return nil, badInputf("redlocksim compare: %v", err)
	}
	targets, err := compareTargets(args, all)
	if err != nil {
		return nil, badInputf("redlocksim compare: %v", err)
	}
	var scs []*scenarios.Scenario
	for _, t := range targets {
		sc, err := loadScenario(t.arg, sets)
		switch {
		case err != nil && len(sets) > 0 && len(targets) > 1:
			// A --set names no scenario: say which one it does not fit.
			return nil, badInputf("redlocksim compare: %s: %v", t.arg, err)
		case err != nil:
			return nil, badInputf("redlocksim compare: %v", err)
		}
		if refused, _ := harness.Refusals(&sc.Config); len(refused) > 0 {
			if !t.skippable {
				return nil, badInputf("redlocksim compare: %s: %v", t.arg, refused[0])
			}
			fmt.Fprintf(stderr, "skipped %s: %v\n", t.arg, refused[0])
			continue
		}
		scs = append(scs, sc)
	}
	if len(scs) == 0 {
		return nil, badInputf("redlocksim compare: nothing to compare: a real run can take none of these scenarios (the reasons are above)")
	}
	return scs, nil
}

// compareTarget is one scenario to compare: a library name or a file, and
// whether a refusal skips it (it came from --all or a directory) rather
// than ending the command.
type compareTarget struct {
	arg       string
	skippable bool
}

// compareTargets expands the command's arguments: --all is every library
// scenario, a directory is its *.toml files in name order, anything else is
// a name or a file for loadScenario.
func compareTargets(args []string, all bool) ([]compareTarget, error) {
	if all {
		var out []compareTarget
		for _, n := range scenarios.LibraryNames() {
			out = append(out, compareTarget{arg: n, skippable: true})
		}
		return out, nil
	}
	var out []compareTarget
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, compareTarget{arg: a})
			continue
		}
		files, err := filepath.Glob(filepath.Join(a, "*.toml"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: a directory with no scenario files (*.toml) in it", a)
		}
		slices.Sort(files)
		for _, f := range files {
			out = append(out, compareTarget{arg: f, skippable: true})
		}
	}
	return out, nil
}
