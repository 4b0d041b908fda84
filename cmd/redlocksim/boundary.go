package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/scenarios"
)

func init() {
	registerLegacy("boundary", "bisect one scenario key to the value where the verdict flips", cmdBoundary)
}

// cmdBoundary answers "where exactly does safety end?" for one numeric
// key: it bisects the key over [--from, --to], judging each value over
// --seeds seeds, and prints the threshold's bracket, the runs on either
// side, and a closed form's prediction where one applies.
func cmdBoundary(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("boundary", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: redlocksim boundary NAME|FILE --key KEY --from A --to B [flags]
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
`)
		fs.PrintDefaults()
	}
	key := fs.String("key", "", "the scenario key to bisect, like nodes.clock.rate_ppm or faults[4].by (required)")
	from := fs.String("from", "", "one end of the range (required)")
	to := fs.String("to", "", "the other end (required)")
	tol := fs.String("tol", "", "stop when the bracket is this narrow (default: a thousandth of the range)")
	seeds := fs.Int("seeds", 20, "seeds per probed value")
	property := fs.String("property", "mutex", "the verdict: mutex or resource")
	workers := fs.Int("workers", runtime.NumCPU(), "runs made at once")
	var sets, overs []string
	fs.Func("over", "bisect at each value of a key, `KEY2=v1,v2,...` (repeatable: the keys move together)", func(s string) error {
		overs = append(overs, s)
		return nil
	})
	outFile := fs.String("out", "", "with --over, write the curve's CSV to `FILE` (default: stdout)")
	fs.Func("set", "override a scenario key, `key=value` with a TOML value (repeatable)", func(s string) error {
		sets = append(sets, s)
		return nil
	})
	tuneGCForManyRuns()
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitBadInput
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "redlocksim boundary: "+format+"\n", a...)
		return exitBadInput
	}
	switch {
	case len(rest) != 1:
		return bad("name one scenario (a built-in name or a .toml file)")
	case *key == "" || *from == "" || *to == "":
		return bad("--key, --from and --to are required")
	case *workers < 1:
		return bad("--workers must be at least 1, got %d", *workers)
	}
	prop, err := explore.ParseProperty(*property)
	if err != nil {
		return bad("%v", err)
	}
	if err := scenarios.CheckKey(*key); err != nil {
		return bad("--key %s: %v", *key, err)
	}
	base, err := scenarios.LoadBase(rest[0])
	if err != nil {
		return bad("%v", err)
	}
	overrides, err := scenarios.ParseOverrides(sets)
	if err != nil {
		return bad("%v", err)
	}
	opt := explore.BoundaryOptions{
		Base: base, Arg: rest[0], Sets: overrides, Key: *key, From: *from, To: *to, Tol: *tol,
		Seeds: *seeds, Property: prop, Workers: *workers,
	}
	if len(overs) > 0 {
		return boundaryCurve(opt, overs, *outFile, stdout, stderr)
	}
	if *outFile != "" {
		return bad("--out writes the curve of --over; without --over boundary prints its finding")
	}
	b, err := explore.FindBoundary(opt)
	if err != nil {
		if status := internalStatus(stderr, err, exitBadInput); status != exitBadInput {
			return status
		}
		return bad("%v", err)
	}
	verdict := func(p explore.Probe) string {
		if p.Violates {
			return "violation"
		}
		return "safe"
	}
	fmt.Fprintf(stdout, "boundary %s: %s from %s (%s) to %s (%s), %s over seeds %d to %d\n",
		rest[0], *key, b.Format(b.From.Value), verdict(b.From), b.Format(b.To.Value), verdict(b.To),
		prop, b.FirstSeed, b.FirstSeed+uint64(b.Seeds)-1)
	fmt.Fprintf(stdout, "  threshold        between %s (safe) and %s (violation); tolerance %s; %d probes, %d runs\n",
		b.Format(b.Safe.Value), b.Format(b.Violating.Value), b.Format(b.Tol), b.Probes, b.Runs)
	fmt.Fprintf(stdout, "  last safe        %s   (safe on every seed)\n", b.Replay(b.Safe))
	fmt.Fprintf(stdout, "  first violating  %s --trace\n", b.Replay(b.Violating))
	p := b.Analytic
	if p == nil {
		fmt.Fprintln(stdout, "  analytic         no closed form for this key")
		return 0
	}
	agree := "agrees: the measured bracket lies within the predicted range"
	if lo, hi := min(b.Safe.Value, b.Violating.Value), max(b.Safe.Value, b.Violating.Value); lo < p.Lo || hi > p.Hi {
		agree = "agrees: the measured bracket meets the predicted range"
	}
	if !p.Agrees(b) {
		agree = "DISAGREES: the measured bracket lies outside the predicted range"
	}
	fmt.Fprintf(stdout, "  analytic         %s\n", p.Formula)
	fmt.Fprintf(stdout, "                   %s\n", p.Facts)
	fmt.Fprintf(stdout, "                   predicted onset in [%s, %s]; %s\n", b.Format(p.Lo), b.Format(p.Hi), agree)
	return 0
}

// boundaryCurve is boundary --over: the onset curve, one bisection per
// value, as CSV, with a line per value on stderr as it is found.
func boundaryCurve(opt explore.BoundaryOptions, overArgs []string, outFile string, stdout, stderr io.Writer) int {
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "redlocksim boundary: "+format+"\n", a...)
		return exitBadInput
	}
	var over []explore.Over
	for _, s := range overArgs {
		o, err := explore.ParseOver(s)
		if err != nil {
			return bad("%v", err)
		}
		over = append(over, o)
	}
	if outFile != "" {
		// Refuse an output that cannot be written before the first run.
		f, err := atomicfile.Create(outFile)
		if err != nil {
			return bad("--out: %v", err)
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
		if status := internalStatus(stderr, err, exitBadInput); status != exitBadInput {
			return status
		}
		return bad("%v", err)
	}
	var buf bytes.Buffer
	if err := explore.WriteCurve(&buf, over, points); err != nil {
		return bad("%v", err)
	}
	if outFile == "" {
		stdout.Write(buf.Bytes())
		return exitOK
	}
	if _, err := atomicfile.Write(outFile, buf.Bytes()); err != nil {
		return bad("--out: %v", err)
	}
	return exitOK
}

// curveAt writes a curve point's values as key=value.
func curveAt(p explore.CurvePoint) string {
	s := make([]string, len(p.At))
	for i, o := range p.At {
		s[i] = o.Arg()
	}
	return strings.Join(s, " ")
}
