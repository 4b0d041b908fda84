package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
	"github.com/redlocksim/redlocksim/cmd/internal/raresweep"
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// rareFlags are sweep --estimate's settings: one rare-event estimate per
// point instead of the spec's seeds.
type rareFlags struct {
	on        bool
	property  string
	relError  float64
	pointTime time.Duration
	pointRuns int
}

func (r *rareFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&r.on, "estimate", false, "estimate each point's violation probability with the rare-event estimator (as estimate does) instead of running its seeds: the low points become estimates with intervals, not zeros")
	fs.StringVar(&r.property, "property", "mutex", "with --estimate: what a run violates, mutex or resource")
	fs.Float64Var(&r.relError, "rel-error", 0.2, "with --estimate: stop a point when its 95% interval's half-width is this fraction of its estimate, in (0, 1)")
	fs.DurationVar(&r.pointTime, "point-time", time.Minute, "with --estimate: at most this long per point")
	fs.IntVar(&r.pointRuns, "point-runs", 200_000, fmt.Sprintf("with --estimate: at most this many runs per point (at least %d)", estimate.MinRuns))
}

// sweepEstimates is sweep --estimate: one estimate per point, its budget
// stated (and checked against --max-time) before it starts.
func sweepEstimates(ctx context.Context, spec *sweep.Spec, shard sweep.Shard, f *sweepFlags, stderr io.Writer) error {
	prop, err := estimate.ParseProperty(f.rare.property)
	if err != nil {
		return badInputf("redlocksim sweep: --property: %v", err)
	}
	if !(f.rare.relError > 0 && f.rare.relError < 1) {
		return badInputf("redlocksim sweep: --rel-error must be in (0, 1), got %v", f.rare.relError)
	}
	if f.rare.pointRuns < estimate.MinRuns {
		return badInputf("redlocksim sweep: --point-runs must be at least %d (the estimator's pilot), got %d", estimate.MinRuns, f.rare.pointRuns)
	}
	if f.rare.pointTime <= 0 {
		return badInputf("redlocksim sweep: --point-time must be positive: an estimating sweep states its budget")
	}
	points := shard.Count(spec.NumPoints())
	most := time.Duration(points) * f.rare.pointTime
	fmt.Fprintf(stderr, "sweep %s --estimate: %d points, one %s estimate each of at most %v and %d runs: at most %v in all\n",
		spec.Name, points, prop, f.rare.pointTime, f.rare.pointRuns, most)
	if f.maxTime > 0 && most > f.maxTime {
		return badInputf("redlocksim sweep: %d points of at most %v each may take %v, beyond --max-time %v: lower --point-time or raise --max-time", points, f.rare.pointTime, most, f.maxTime)
	}
	// The loader checked a sample of a large spec's points: check them
	// all before the first estimate, not at the point, hours in.
	if err := sweeprun.CheckPoints(spec, shard, *f.maxEvents); err != nil {
		return badInputf("redlocksim sweep: %v", err)
	}
	tuneGCForManyRuns()
	opt := raresweep.Options{
		Out: string(f.out), Resume: f.resume, Shard: shard,
		Estimate: estimate.Options{Property: prop, Method: "auto", RelError: f.rare.relError, MaxRuns: f.rare.pointRuns, MaxTime: f.rare.pointTime,
			Workers: int(f.workers), MaxEvents: *f.maxEvents},
		Progress: func(done, todo int, p sweep.Point, r *estimate.Result) {
			fmt.Fprintf(stderr, "  point %d of %d (%s): %s\n", done, todo, cellsText(spec, p), resultText(r))
		},
	}
	sum, err := raresweep.Run(ctx, spec, opt)
	switch {
	case errors.Is(err, raresweep.ErrInterrupted):
		return &interruptedError{sig: caughtSignal(ctx), msg: fmt.Errorf("sweep %s --estimate interrupted: %d of %d points done, kept in %s.partial; run the same command with --resume to continue",
			spec.Name, sum.Ran+sum.Resumed, sum.Points, f.out)}
	case errors.Is(err, estimate.ErrBadInput):
		return badInputf("redlocksim sweep: %v", err)
	case err != nil:
		return err
	}
	fmt.Fprintf(stderr, "sweep %s --estimate: %d points (%d resumed) in %v; wrote %s\n", spec.Name, sum.Points, sum.Resumed, sum.Wall.Round(time.Second), f.out)
	if sum.Untrustworthy > 0 {
		return finding(fmt.Errorf("redlocksim sweep: %d of %d points have no trustworthy interval (their rows say trustworthy=false)", sum.Untrustworthy, sum.Points))
	}
	return nil
}

func cellsText(spec *sweep.Spec, p sweep.Point) string {
	s := ""
	for i, c := range spec.Columns {
		if i > 0 {
			s += ", "
		}
		s += c + "=" + p.Cells[i]
	}
	return s
}

func resultText(r *estimate.Result) string {
	if r.UpperBound {
		return fmt.Sprintf("at most %.3g per run (none seen in %d runs)", r.CIHigh, r.EstimateRuns)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g] per run, %s, %d runs", r.Probability, r.CILow, r.CIHigh, r.Method, r.Runs)
}
