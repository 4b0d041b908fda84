package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// boundaryFlags are boundary's options.
type boundaryFlags struct {
	key, from, to, tol, property string
	seeds                        int
	workers                      workersFlag
	overs                        []string
	out                          outFlag
	sets                         setFlags
}

func parseBoundaryFlags(args []string, stderr io.Writer) (*boundaryFlags, string, error) {
	fs := newFlagSet("boundary", `usage: redlocksim boundary NAME|FILE --key KEY --from A --to B [flags]
       redlocksim boundary NAME|FILE --key KEY --from A --to B --over KEY2=v1,v2,... [--out FILE.csv] [flags]

Bisects one numeric scenario key (a number, or a duration with a unit)
between A and B to the value where the verdict flips, judging each value
over --seeds seeds (a value violates if any seed does). Prints the
threshold with its bracket, commands that replay the last safe and the
first violating runs, and, for the keys with a closed form (the nodes'
clock rate, a node's forward clock step, a client's pause length, and
lock.ttl against a client's pause), the analytic prediction beside the
measurement.

With --over, it bisects KEY at each value of KEY2 and writes the onset
curve as CSV (to --out, atomically, or to stdout): per value, the measured
bracket (the last value safe on every seed, the first that violated on
one), the seeds and runs, and the closed form's onset and range where one
applies; 'redlocksim plot --boundary FILE' draws it. Repeat --over to move
several keys together (value i of each at point i), like a TTL and the
critical section that goes with it; the first is the curve's x axis. The
values are bisected one after another, so the file does not depend on
--workers.

flags:
`, stderr)
	f := &boundaryFlags{}
	fs.StringVar(&f.key, "key", "", "the scenario key to bisect, like nodes.clock.rate_ppm or faults[4].by (required)")
	fs.StringVar(&f.from, "from", "", "one end of the range (required)")
	fs.StringVar(&f.to, "to", "", "the other end (required)")
	fs.StringVar(&f.tol, "tol", "", "stop when the bracket is this narrow (default: a thousandth of the range)")
	fs.IntVar(&f.seeds, "seeds", 20, fmt.Sprintf("seeds per probed value, 1 to %d", sweep.MaxSeeds))
	fs.StringVar(&f.property, "property", "mutex", "the verdict: mutex or resource")
	f.workers.register(fs)
	fs.Var((*repeated)(&f.overs), "over", "bisect at each value of a key, `KEY2=v1,v2,...` (repeatable: the keys move together)")
	f.out.register(fs, "", "with --over, write the curve's CSV to `FILE` (default: stdout)")
	f.sets.register(fs)
	tuneGCForManyRuns()
	arg, err := parseScenario(fs, args)
	switch {
	case err != nil:
		return nil, "", err
	case f.key == "" || f.from == "" || f.to == "":
		return nil, "", badBoundary("--key, --from and --to are required")
	}
	if err := f.workers.check(); err != nil {
		return nil, "", badBoundary("%v", err)
	}
	if f.seeds < 1 || f.seeds > sweep.MaxSeeds {
		// A probe holds a verdict and an error per seed: --seeds
		// 1000000000 grew to half a gigabyte in 20 s, and more would die
		// of the runtime's out of memory.
		return nil, "", badBoundary("--seeds must be between 1 and %d, got %d", sweep.MaxSeeds, f.seeds)
	}
	return f, arg, nil
}

func badBoundary(format string, a ...any) error {
	return badInputf("redlocksim boundary: "+format, a...)
}

// options checks the flags against the scenario arg and returns the
// bisection's options.
func (f *boundaryFlags) options(arg string) (explore.BoundaryOptions, error) {
	prop, err := explore.ParseProperty(f.property)
	if err != nil {
		return explore.BoundaryOptions{}, badBoundary("%v", err)
	}
	if err := scenarios.CheckKey(f.key); err != nil {
		return explore.BoundaryOptions{}, badBoundary("--key %s: %v", f.key, err)
	}
	base, err := scenarios.LoadBase(arg)
	if err != nil {
		return explore.BoundaryOptions{}, badBoundary("%v", err)
	}
	overrides, err := f.sets.overrides()
	if err != nil {
		return explore.BoundaryOptions{}, badBoundary("%v", err)
	}
	return explore.BoundaryOptions{
		Base: base, Arg: arg, Sets: overrides, Key: f.key, From: f.from, To: f.to, Tol: f.tol,
		Seeds: f.seeds, Property: prop, Workers: int(f.workers),
	}, nil
}

// cmdBoundary answers "where exactly does safety end?" for one numeric
// key: it bisects the key over [--from, --to], judging each value over
// --seeds seeds, and prints the threshold's bracket, the runs on either
// side, and a closed form's prediction where one applies.
func cmdBoundary(_ context.Context, args []string, stdout, stderr io.Writer) error {
	f, arg, err := parseBoundaryFlags(args, stderr)
	if err != nil {
		return err
	}
	opt, err := f.options(arg)
	if err != nil {
		return err
	}
	if len(f.overs) > 0 {
		return boundaryCurve(opt, f.overs, string(f.out), stdout, stderr)
	}
	if f.out != "" {
		return badBoundary("--out writes the curve of --over; without --over boundary prints its finding")
	}
	b, err := explore.FindBoundary(opt)
	if err != nil {
		return badBoundary("%w", err)
	}
	writeBoundary(stdout, arg, opt, b)
	return nil
}

// writeBoundary prints the bracket the bisection found, the runs on its
// two sides and the closed form's prediction.
func writeBoundary(w io.Writer, arg string, opt explore.BoundaryOptions, b *explore.Boundary) {
	fmt.Fprintf(w, "boundary %s: %s from %s (%s) to %s (%s), %s over seeds %d to %d\n",
		arg, opt.Key, b.Format(b.From.Value), verdictWord(!b.From.Violates), b.Format(b.To.Value), verdictWord(!b.To.Violates),
		opt.Property, b.FirstSeed, b.FirstSeed+uint64(b.Seeds)-1)
	fmt.Fprintf(w, "  threshold        between %s (safe) and %s (violation); tolerance %s; %d probes, %d runs\n",
		b.Format(b.Safe.Value), b.Format(b.Violating.Value), b.Format(b.Tol), b.Probes, b.Runs)
	fmt.Fprintf(w, "  last safe        %s   (safe on every seed)\n", b.Replay(b.Safe))
	fmt.Fprintf(w, "  first violating  %s --trace\n", b.Replay(b.Violating))
	p := b.Analytic
	if p == nil {
		fmt.Fprintln(w, "  analytic         no closed form for this key")
		return
	}
	agree := "agrees: the measured bracket lies within the predicted range"
	if lo, hi := min(b.Safe.Value, b.Violating.Value), max(b.Safe.Value, b.Violating.Value); lo < p.Lo || hi > p.Hi {
		agree = "agrees: the measured bracket meets the predicted range"
	}
	if !p.Agrees(b) {
		agree = "DISAGREES: the measured bracket lies outside the predicted range"
	}
	fmt.Fprintf(w, "  analytic         %s\n", p.Formula)
	fmt.Fprintf(w, "                   %s\n", p.Facts)
	fmt.Fprintf(w, "                   predicted onset in [%s, %s]; %s\n", b.Format(p.Lo), b.Format(p.Hi), agree)
}

// boundaryCurve is boundary --over: the onset curve, one bisection per
// value, as CSV, with a line per value on stderr as it is found.
func boundaryCurve(opt explore.BoundaryOptions, overArgs []string, outFile string, stdout, stderr io.Writer) error {
	var over []explore.Over
	for _, s := range overArgs {
		o, err := explore.ParseOver(s)
		if err != nil {
			return badBoundary("%v", err)
		}
		over = append(over, o)
	}
	if outFile != "" {
		// Refuse an output that cannot be written before the first run.
		f, err := atomicfile.Create(outFile)
		if err != nil {
			return badBoundary("--out: %v", err)
		}
		f.Abort()
	}
	points, err := explore.FindCurve(explore.CurveOptions{BoundaryOptions: opt, Over: over}, func(p explore.CurvePoint) {
		b := p.Boundary
		found := fmt.Sprintf("between %s (safe) and %s (violation)", b.Format(b.Safe.Value), b.Format(b.Violating.Value))
		if p.NoFlip != "" {
			found = p.NoFlip + " of [" + b.Format(b.From.Value) + ", " + b.Format(b.To.Value) + "]"
		}
		if a := b.Analytic; a != nil && a.HasOnset {
			found += "; closed form " + b.Format(a.Onset)
		}
		fmt.Fprintf(stderr, "boundary %s at %s: %s\n", opt.Key, curveAt(p), found)
	})
	if err != nil {
		return badBoundary("%w", err)
	}
	var buf bytes.Buffer
	if err := explore.WriteCurve(&buf, over, points); err != nil {
		return badBoundary("%v", err)
	}
	if outFile == "" {
		stdout.Write(buf.Bytes())
		return nil
	}
	if _, err := atomicfile.Write(outFile, buf.Bytes()); err != nil {
		return badBoundary("--out: %v", err)
	}
	return nil
}

// curveAt writes a curve point's values as key=value.
func curveAt(p explore.CurvePoint) string {
	s := make([]string, len(p.At))
	for i, o := range p.At {
		s[i] = o.Arg()
	}
	return strings.Join(s, " ")
}
