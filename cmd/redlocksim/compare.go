package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/redlocksim/redlocksim/cmd/internal/compare"
)

// comparer is the compare command over its one dependency on real
// processes: the runner of one real run, which compare runs and compare
// sweep call. The binary's comes from realPoint over os.Executable; a
// test gives its own (compareCommand).
type comparer struct{ realRun compare.RealRun }

// compareCommand is compare, with real runs from realRun.
func compareCommand(realRun compare.RealRun) *command {
	c := &comparer{realRun: realRun}
	return &command{name: "compare", summary: "run scenarios in the simulator and for real, side by side", signals: true, run: c.compare, subcommands: c.subcommands()}
}

// subcommands are compare's: the three ways it sets the simulator beside
// real runs.
func (c *comparer) subcommands() []*command {
	return []*command{
		{name: "runs", summary: "run scenarios in the simulator and for real, side by side, one row each", signals: true, run: c.runs},
		{name: "sweep", summary: "run points of a sweep for real and write them as the sweep's results CSV", signals: true, run: c.sweep},
		{name: "explore", summary: "search fault schedules for where the simulator and real runs part, and shrink each", signals: true, run: cmdCompareExplore},
	}
}

const compareUsage = `usage: redlocksim compare runs NAME|FILE|DIR... [--set KEY=VALUE]... [flags]
       redlocksim compare runs --all [--set KEY=VALUE]... [flags]
       redlocksim compare sweep NAME|FILE [--where KEY=V1,V2]... [--runs N] --out FILE.csv
       redlocksim compare explore BASE [--runs R] [--repeat K] [--faults KINDS] [--seed S] [--budget N] [--out DIR] [--json] [--set KEY=VALUE]...

Sets the simulator beside real runs (see 'redlocksim help real'), three
ways:

`

// compareOverview is compare's help: its subcommands, each with its
// summary. The flags are each subcommand's.
func compareOverview(w io.Writer, subcommands []*command) {
	fmt.Fprint(w, compareUsage)
	for _, c := range subcommands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
'redlocksim help compare SUBCOMMAND' prints a subcommand's flags.
'compare NAME...' and 'compare --all' are 'compare runs'; the older
spellings 'compare --sweep SPEC' and 'compare --explore BASE' still work
and say what they are now.
`)
}

// cmdCompare runs the subcommand args name. Without one it takes the
// older spellings: scenarios (or --all) as compare runs, --sweep and
// --explore as their subcommands, with a note naming the new spelling.
func (c *comparer) compare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	subcommands := c.subcommands()
	if len(args) > 0 {
		if sub := lookup(subcommands, args[0]); sub != nil {
			return sub.run(ctx, args[1:], stdout, stderr)
		}
	}
	f, rest, err := parseOldCompareFlags(args, subcommands, stderr)
	switch {
	case err != nil:
		return err
	case f.sw.spec != "":
		fmt.Fprintf(stderr, "redlocksim compare: --sweep is 'redlocksim compare sweep %s' now\n", f.sw.spec)
		if len(f.runs.sets) > 0 {
			return badInputf("redlocksim compare: --set does not apply to --sweep: a sweep's points are set by its spec (its base and axes)")
		}
		f.sw.runs, f.sw.out = f.runs.runs, f.outGiven()
		return f.sw.run(ctx, rest, c.realRun, stdout, stderr)
	case f.dx.base != "":
		fmt.Fprintf(stderr, "redlocksim compare: --explore is 'redlocksim compare explore %s' now\n", f.dx.base)
		if len(rest) > 0 || f.runs.csv || f.runs.all {
			return badInputf("redlocksim compare --explore: give the base with --explore alone: no scenario names, --all or --csv beside it")
		}
		x := &compareExploreFlags{differFlags: f.dx, runs: f.runs.runs, json: f.runs.json, sets: f.runs.sets}
		if !f.set("runs") {
			x.runs = 30
		}
		return compareExplore(ctx, x, recordedCommand("compare", args), stdout, stderr)
	}
	return f.runs.run(ctx, rest, c.realRun, stdout, stderr)
}

// oldCompareFlags are every flag compare took before its subcommands:
// compare runs's, with --sweep's and --explore's beside them.
type oldCompareFlags struct {
	fs   *flag.FlagSet
	runs compareRunsFlags
	dx   differFlags
	sw   sweepCompareFlags
}

// set reports whether the flag name was given.
func (f *oldCompareFlags) set(name string) bool {
	given := false
	f.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == name })
	return given
}

// outGiven is --out as given, or "" when it was not: --sweep's file
// (--out's default is --explore's directory).
func (f *oldCompareFlags) outGiven() string {
	if !f.set("out") {
		return ""
	}
	return string(f.dx.out)
}

func parseOldCompareFlags(args []string, subcommands []*command, stderr io.Writer) (*oldCompareFlags, []string, error) {
	fs := newFlagSet("compare", "", stderr)
	fs.Usage = func() { compareOverview(stderr, subcommands) }
	f := &oldCompareFlags{fs: fs}
	f.runs.declare(fs)
	f.dx.declare(fs)
	fs.StringVar(&f.dx.base, "explore", "", "search for schedules where the simulator and real runs of `BASE` part (now: compare explore BASE)")
	f.sw.declare(fs)
	fs.StringVar(&f.sw.spec, "sweep", "", "run points of the sweep `NAME|FILE` for real (now: compare sweep NAME|FILE)")
	rest, err := parseArgs(fs, args)
	return f, rest, err
}
