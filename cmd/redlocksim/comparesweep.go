package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/compare"
	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// sweepCompareFlags are compare sweep's: points of a sweep run for real,
// written as the sweep's own results file with a mode column.
type sweepCompareFlags struct {
	spec  string
	where []string
	runs  int
	out   string
}

// declare registers --where (the older spelling's --runs and --out are
// compare runs's and compare explore's).
func (s *sweepCompareFlags) declare(fs *flag.FlagSet) {
	fs.Var((*repeated)(&s.where), "where", "keep the points where `key=value[,value...]` (repeatable; as plot --where)")
}

func (c *comparer) sweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare sweep", `usage: redlocksim compare sweep NAME|FILE [--where KEY=V1,V2]... [--runs N] --out FILE.csv

Runs points of a sweep for real instead of in the simulator: the points
that --where selects (as plot --where does), each --runs times with real
seeds 1..N, one run at a time, and writes the sweep's results CSV for
them (the same columns as 'redlocksim sweep', times in scenario time)
plus mode = real and the scale; 'plot --overlay' draws it over the
simulator's lines. Points a real run cannot take are listed on stderr
with the reason and skipped. Ctrl-C writes the runs that finished.

flags:
`, stderr)
	s := &sweepCompareFlags{}
	fs.IntVar(&s.runs, "runs", 5, "real runs per point")
	fs.StringVar(&s.out, "out", "", "the results `FILE` (required)")
	s.declare(fs)
	rest, err := parseArgs(fs, args)
	switch {
	case err != nil:
		return err
	case len(rest) == 0:
		return badInputf("redlocksim compare: compare sweep needs a sweep (a built-in name or a file)")
	}
	s.spec = rest[0]
	return s.run(ctx, rest[1:], c.realRun, stdout, stderr)
}

// realPoint is compare's real runner (compare.RealRun) over the
// redlocksim binary that client names, whose hidden real-client
// subcommand runs a client process (this one: os.Executable; a test
// builds one): one real run of cfg with the given seed, in a process
// group that dies with ctx or the run.
func realPoint(client func() (string, error)) compare.RealRun {
	return func(ctx context.Context, cfg model.Config, seed uint64) (*harness.Result, error) {
		exe, err := client()
		if err != nil {
			return nil, err
		}
		g := proc.NewGroup()
		closeGroup := closeOnDone(ctx, g)
		defer func() { _ = closeGroup() }()
		return harness.Run(ctx, cfg, harness.Options{Seed: seed, Client: []string{exe, "real-client"}, Group: g})
	}
}

// compareSweep is compare --sweep: it selects the sweep's points with
// --where, refuses (on stderr, with the reason) those a real run cannot
// take, runs each other point --runs times for real, one run at a time
// with real seeds 1..N, and writes the results file. An interrupt stops
// the run under way and writes the runs that finished.
func (s *sweepCompareFlags) run(ctx context.Context, rest []string, realRun compare.RealRun, stdout, stderr io.Writer) error {
	fail := func(format string, a ...any) error {
		return badInputf("redlocksim compare: "+format, a...)
	}
	out, runs := s.out, s.runs
	switch {
	case len(rest) > 0:
		return fail("--sweep takes no scenarios, got %s", strings.Join(rest, " "))
	case out == "":
		return fail("--sweep needs --out FILE.csv")
	case runs < 1:
		return fail("--runs must be at least 1, got %d", runs)
	}
	spec, err := loadSweep(s.spec)
	if err != nil {
		return badInput(err)
	}
	points, err := selectPoints(spec, s.where)
	if err != nil {
		return fail("%v", err)
	}
	var todo []compare.Point
	for _, p := range points {
		sc, err := spec.Scenario(p)
		if err != nil {
			return fail("point %d: %v", p.Index, err)
		}
		if why := compare.Refusal(&sc.Config); why != "" {
			fmt.Fprintf(stderr, "skipped point %d (%s): %s\n", p.Index, compare.PointLabel(spec, p), why)
			continue
		}
		todo = append(todo, compare.Point{Point: p, Config: sc.Config})
	}
	if len(todo) == 0 {
		return fail("nothing to run: a real run can take none of the %s selected (the reasons are above)", count(len(points), "point"))
	}
	var progress func()
	if isTerminal(stderr) {
		bar := newBar(stderr, len(todo)*runs, "compare --sweep "+spec.Name)
		progress = func() { _ = bar.Add(1) }
	}
	rows, interrupted, err := compare.RunPoints(ctx, spec, todo, runs, realRun, progress, stderr)
	if progress != nil {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		var missing *proc.MissingError
		if errors.As(err, &missing) {
			return environment(fmt.Errorf("redlocksim compare: %w", err))
		}
		fmt.Fprintf(stderr, "redlocksim compare: %v\n", err)
		if len(rows) == 0 {
			return finding(nil)
		}
	}
	if len(rows) > 0 {
		direct, werr := sweeprun.WriteResults(out, spec, compare.SweepColumns, rows)
		if werr != nil {
			return fail("%v", werr)
		}
		if direct {
			fmt.Fprintf(stderr, "redlocksim compare: %s is not a regular file; it was written directly, not atomically\n", out)
		}
		done := 0
		for _, r := range rows {
			done += r.Runs.Runs()
		}
		fmt.Fprintf(stdout, "wrote %s: %s, %s of %s\n", out, count(len(rows), "point"), count(done, "real run"), spec.Name)
	}
	if interrupted {
		return &interruptedError{msg: errors.New("compare --sweep interrupted: the runs that finished are written")}
	}
	if err != nil {
		return finding(nil) // said above
	}
	return nil
}

// selectPoints returns the spec's points that satisfy where, in point
// order, with plot --where's syntax and errors: the points are read as the
// rows of a table whose columns are the sweep's keys.
func selectPoints(spec *sweep.Spec, where []string) ([]sweep.Point, error) {
	if n := spec.NumPoints(); n > maxRealPoints {
		return nil, fmt.Errorf("sweep %s has %d points; compare --sweep reads at most %d", spec.Name, n, maxRealPoints)
	}
	header := append(slices.Clone(spec.Columns), "point")
	var rows [][]string
	var lines []int
	for i := range spec.NumPoints() {
		p := spec.Point(i)
		rows = append(rows, append(append([]string(nil), p.Cells...), strconv.Itoa(i)))
		lines = append(lines, i+1)
	}
	t := results.NewTable("sweep "+spec.Name, header, rows, lines)
	conds, err := results.ParseWhere(where)
	if err != nil {
		return nil, err
	}
	if err := t.Where(conds); err != nil {
		return nil, err
	}
	out := make([]sweep.Point, 0, len(t.Rows))
	for _, row := range t.Rows {
		i, _ := strconv.Atoi(row[len(spec.Columns)])
		out = append(out, spec.Point(i))
	}
	return out, nil
}

// maxRealPoints bounds the points compare --sweep lists to select from:
// far more than real runs could ever cover.
const maxRealPoints = 100_000
