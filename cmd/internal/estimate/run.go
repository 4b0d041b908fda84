package estimate

import (
	"context"
	"math"
	"strconv"
	"sync"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/sim"
)

// sample is what one run gave the estimator.
type sample struct {
	seed     uint64
	violated bool
	logLR    float64 // log f/g of the run's draws (0 for a plain run)
	logF     float64 // log f of the tilted sites' standard variates
	acq      int     // successful acquisitions
	sites    []sim.SiteStats
}

// weight is the run's likelihood ratio.
func (s *sample) weight() float64 { return math.Exp(s.logLR) }

// runSeed is the seed of run i of a phase: a fixed function of the
// estimate's seed, so that the runs do not depend on the worker count. It
// is below 2⁶³, as a scenario file's seed must be.
func runSeed(seed uint64, phase string, i int) uint64 {
	a, _ := sim.StreamSeed(seed, "estimate:"+phase+":"+strconv.Itoa(i))
	return a >> 1
}

// runner makes the runs of one estimate.
type runner struct {
	plan      *model.Plan
	property  Property
	maxEvents uint64
	workers   int
	seed      uint64
	merge     *shards // a merge's main phase comes from here
}

// batch makes runs from..from+n-1 of phase with tilts, in parallel, and
// returns them in run order. When ctx is done it stops taking runs and
// returns the finished prefix, so that what it returns is always the
// first runs of the phase. A run's error (a budget, a panic) ends the
// batch with the error of the lowest run that had one.
func (r *runner) batch(ctx context.Context, phase string, tilts []sim.Tilt, from, n int) ([]sample, error) {
	if f := r.merge; f != nil && phase == f.files[0].Phase && from >= f.files[0].From {
		return f.serve(r, phase, from, n)
	}
	out := make([]sample, n)
	done, errs := r.parallel(ctx, n, func(i int) (err error) {
		out[i], err = r.one(phase, tilts, from+i)
		return err
	})
	for i := range n {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if !done[i] {
			return out[:i], ctx.Err()
		}
	}
	return out, nil
}

// parallel calls f(0..n-1) on the runner's workers, and says which calls
// finished and their errors. When ctx is done, or a call fails, the
// workers take no more.
func (r *runner) parallel(ctx context.Context, n int, f func(i int) error) (done []bool, errs []error) {
	done, errs = make([]bool, n), make([]error, n)
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for w := 0; w < min(n, max(1, r.workers)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n || ctx.Err() != nil {
					return
				}
				errs[i] = f(i)
				done[i] = true
				if errs[i] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return done, errs
}

// one makes run i of phase.
func (r *runner) one(phase string, tilts []sim.Tilt, i int) (sample, error) {
	seed := runSeed(r.seed, phase, i)
	smp := &sim.Sampling{Tilts: tilts}
	res, err := sweeprun.Guard(seed, func() (model.Result, error) {
		return r.plan.RunSampledWithin(seed, smp, r.maxEvents, false)
	})
	if err != nil {
		return sample{}, err
	}
	return sample{
		seed: seed, violated: r.property.violated(&res), logLR: smp.LogLR, logF: smp.LogF,
		acq: res.Report.AcquireSuccesses, sites: smp.Sites,
	}, nil
}
