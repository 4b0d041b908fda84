package sweeprun

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// CalibrationRuns and CalibrationTime bound the calibration a sweep makes
// before it states its estimate: the first runs, spread over the points
// (their costs differ), until this many are in or CalibrationTime has
// passed. The calibration runs are runs of the sweep: they are journaled
// once the estimate lets the sweep go on, and dropped if it refuses.
const (
	CalibrationRuns = 8
	CalibrationTime = time.Second
)

// DefaultGrace is how long the runs under way may take to finish once a
// sweep is stopped; a run still going then is dropped (--resume makes it
// again), so that a signal stops any sweep within about a second.
const DefaultGrace = time.Second

// Estimate is what a sweep states before its runs: how many, and how long
// it should take, from the calibration.
type Estimate struct {
	Runs       int           // to make now (adaptive: at most)
	Adaptive   bool          // Runs is an upper bound
	Calibrated int           // runs timed
	PerRun     time.Duration // mean wall time of one run; a lower bound if Calibrated is 0
	Wall       time.Duration // Runs × PerRun over the workers
	Workers    int
}

// pointRun is a point the scheduler has started (or timed for the
// calibration): its scenario, and where its seeds stand.
type pointRun struct {
	p       sweep.Point
	plan    *model.Plan
	opened  bool
	end     int // end of the current batch, as a replicate (exclusive)
	pending int // runs of the current batch not yet done
}

// span is a range of one point's replicates to dispatch.
type span struct{ lp, from, to int }

// scheduler decides which run is made next. It walks the shard's points
// in order and hands out each point's seeds a batch at a time (for fixed
// seeds, one batch of all of them); when a batch is complete it decides
// from the runs in the journal's order, never from the order they
// finished in, whether the point takes another batch. It runs in one
// goroutine (the collector's).
type scheduler struct {
	spec                 *sweep.Spec
	sh                   sweep.Shard
	smp                  sampling
	points               int
	done, sent, violated bitset
	active               map[int]*pointRun
	next                 int // the next point to open
	ready                []span
	cal                  []int // calibration runs, dispatched first
}

func newScheduler(spec *sweep.Spec, sh sweep.Shard, smp sampling, done, violated bitset) *scheduler {
	points := sh.Count(spec.NumPoints())
	return &scheduler{
		spec: spec, sh: sh, smp: smp, points: points,
		done: done, violated: violated, sent: newBitset(points * smp.per),
		active: make(map[int]*pointRun),
	}
}

// calibrate picks up to n runs for the calibration: the first replicate
// not yet done of points spread evenly over the shard.
func (s *scheduler) calibrate(n int) {
	for k := range min(n, s.points) {
		lp := k * s.points / min(n, s.points)
		for rep := range s.smp.batch {
			if i := lp*s.smp.per + rep; !s.done.has(i) {
				s.cal = append(s.cal, i)
				break
			}
		}
	}
}

func (s *scheduler) point(lp int) (*pointRun, error) {
	if pr := s.active[lp]; pr != nil {
		return pr, nil
	}
	p := s.spec.Point(s.sh.Point(lp))
	sc, err := s.spec.Scenario(p)
	if err != nil {
		return nil, fmt.Errorf("point %d: %w", p.Index, err)
	}
	pr := &pointRun{p: p, plan: sc.Plan}
	s.active[lp] = pr
	return pr, nil
}

// open starts point lp at its first batch, and decides at once the
// batches the journal already holds in full.
func (s *scheduler) open(lp int) error {
	pr, err := s.point(lp)
	if err != nil {
		return err
	}
	pr.opened = true
	s.startBatch(lp, pr, 0)
	return nil
}

// startBatch queues the batch starting at replicate from; a batch whose
// runs are all done is decided at once, and so on.
func (s *scheduler) startBatch(lp int, pr *pointRun, from int) {
	for {
		pr.end = s.smp.batchEnd(from)
		base := lp * s.smp.per
		pr.pending = (pr.end - from) - s.done.count(base+from, base+pr.end)
		s.ready = append(s.ready, span{lp: lp, from: from, to: pr.end})
		if pr.pending > 0 {
			return
		}
		if s.decide(lp, pr) {
			return
		}
		from = pr.end
	}
}

// decide is called when point lp's current batch is complete: it reports
// whether the point is finished (and forgets it).
func (s *scheduler) decide(lp int, pr *pointRun) bool {
	base := lp * s.smp.per
	if s.smp.stop(s.violated.count(base, base+pr.end), pr.end) {
		delete(s.active, lp)
		return true
	}
	return false
}

// nextJob is the next run to make, or nil when none is ready (every
// point is finished, or the batches under way must complete first).
func (s *scheduler) nextJob() (*job, error) {
	for len(s.cal) > 0 {
		i := s.cal[0]
		s.cal = s.cal[1:]
		if !s.done.has(i) && !s.sent.has(i) {
			return s.job(i)
		}
	}
	for {
		for len(s.ready) > 0 {
			sp := &s.ready[0]
			for sp.from < sp.to {
				i := sp.lp*s.smp.per + sp.from
				sp.from++
				if !s.done.has(i) && !s.sent.has(i) {
					return s.job(i)
				}
			}
			s.ready = s.ready[1:]
		}
		if s.next >= s.points {
			return nil, nil
		}
		// A new point only when no started one has a run to give: the
		// points under way, and the memory they hold, stay few.
		if err := s.open(s.next); err != nil {
			return nil, err
		}
		s.next++
	}
}

func (s *scheduler) job(i int) (*job, error) {
	lp, rep := i/s.smp.per, i%s.smp.per
	pr, err := s.point(lp)
	if err != nil {
		return nil, err
	}
	s.sent.set(i)
	return &job{i: i, seed: s.spec.RunSeed(pr.p, rep), plan: pr.plan, point: &pr.p}, nil
}

// finished records run i's outcome and, if it completes its point's
// batch, decides the point.
func (s *scheduler) finished(i int, violated bool) {
	s.done.set(i)
	if violated {
		s.violated.set(i)
	}
	lp, rep := i/s.smp.per, i%s.smp.per
	pr := s.active[lp]
	if pr == nil || !pr.opened || rep >= pr.end {
		return // a calibration run of a point not started yet
	}
	if pr.pending--; pr.pending == 0 && !s.decide(lp, pr) {
		s.startBatch(lp, pr, pr.end)
	}
}

// poolConfig is what the pool needs besides the scheduler.
type poolConfig struct {
	workers   int
	maxEvents uint64
	todo      int // for progress and the estimate (adaptive: at most)
	progress  func(done, todo int)
	estimate  func(Estimate)
	maxTime   time.Duration
	grace     time.Duration
	calibrate bool
}

// pool makes the runs the scheduler hands out on cfg.workers goroutines
// and journals them from this one. The first runs are a calibration: they
// are held back from the journal until the estimate is stated (and, past
// cfg.maxTime, refused: nothing is journaled). Once ctx is cancelled or a
// run fails, no run starts; the runs under way are waited for up to
// cfg.grace, and a run still going then is dropped.
//
// It is one long function on purpose: its loop is a single select over
// the workers, the calibration timer, ctx and the grace, and the closures
// above it (journalRun, stop, endCalibration) change the loop's own state
// (held, stopping, graceC); split into methods, that state would live in a
// struct that every step reads and writes, which hides the one goroutine
// that owns it.
func pool(ctx context.Context, spec *sweep.Spec, s *scheduler, j *journal, cfg poolConfig) (ran int, err error) {
	jobs := make(chan job)
	results := make(chan result, cfg.workers)
	var wg sync.WaitGroup
	for range cfg.workers {
		wg.Go(func() {
			for jb := range jobs {
				t0 := time.Now()
				r, err := Guard(jb.seed, func() (model.Result, error) { return runFast(jb.plan, jb.seed, cfg.maxEvents) })
				if ie, ok := err.(*InternalError); ok {
					ie.Replay = spec.Replay(*jb.point, jb.seed)
				}
				results <- result{i: jb.i, rec: toRecord(jb.seed, &r), err: err, wall: time.Since(t0)}
			}
		})
	}
	inflight := 0
	defer func() {
		close(jobs)
		if inflight > 0 {
			go func() { // the runs dropped at the grace: let them end unheard
				for range inflight {
					<-results
				}
			}()
		}
	}()

	calibrating := cfg.calibrate
	calStart := time.Now()
	calTimer := time.NewTimer(CalibrationTime)
	defer calTimer.Stop()
	calC := calTimer.C
	if calibrating {
		s.calibrate(min(CalibrationRuns, cfg.todo))
	} else {
		calC = nil
	}
	calTarget := min(CalibrationRuns, cfg.todo)
	var held []result // the calibration's runs, until the estimate
	var calWall time.Duration

	journalRun := func(r result) error {
		if err := j.put(r.i, r.rec); err != nil {
			return err
		}
		ran++
		if cfg.progress != nil {
			cfg.progress(ran, cfg.todo)
		}
		return nil
	}
	var stopErr error // why the pool stops: a failed run, a refusal
	stopping := false
	var graceC <-chan time.Time
	stop := func(err error) {
		if stopErr == nil {
			stopErr = err
		}
		if !stopping {
			stopping = true
			graceC = time.After(cfg.grace)
		}
	}
	endCalibration := func(estimate bool) {
		calibrating, calC = false, nil
		if estimate && cfg.estimate != nil || estimate && cfg.maxTime > 0 {
			e := Estimate{Runs: cfg.todo, Adaptive: s.smp.adaptive(), Calibrated: len(held), Workers: cfg.workers}
			if len(held) > 0 {
				e.PerRun = calWall / time.Duration(len(held))
			} else {
				e.PerRun = time.Since(calStart) // none finished yet: at least this
			}
			e.Wall = time.Duration(float64(e.PerRun) * float64(e.Runs) / float64(min(cfg.workers, max(e.Runs, 1))))
			if cfg.estimate != nil {
				cfg.estimate(e)
			}
			if cfg.maxTime > 0 && e.Wall > cfg.maxTime {
				held = nil
				stop(refused("%s: an estimated %v for %d runs on %d workers (%v a run, timed over %d runs), more than --max-time %v; nothing was kept: lower the seeds or the points, split the sweep into shards, or raise --max-time",
					spec.File, e.Wall.Round(time.Second), e.Runs, e.Workers, e.PerRun.Round(time.Millisecond), e.Calibrated, cfg.maxTime))
				graceC = closedTime // refused: drop the runs under way at once
				return
			}
		}
		for _, r := range held {
			if err := journalRun(r); err != nil {
				stop(fmt.Errorf("run %d: %w", r.i, err))
				return
			}
		}
		held = nil
	}

	ctxDone := ctx.Done()
	var next *job
loop:
	for {
		if !stopping && ctx.Err() != nil {
			ctxDone = nil
			stop(nil)
		}
		if next == nil && !stopping {
			if next, err = s.nextJob(); err != nil {
				stop(err)
			}
		}
		if (next == nil || stopping) && inflight == 0 {
			break
		}
		var out chan<- job
		var send job
		if next != nil && !stopping {
			out, send = jobs, *next
		}
		select {
		case out <- send:
			inflight++
			next = nil
		case r := <-results:
			inflight--
			if stopErr != nil {
				continue // after a failure or refusal: drained, not kept
			}
			if r.err != nil {
				stop(fmt.Errorf("run %d: %w", r.i, r.err))
				continue
			}
			s.finished(r.i, r.rec.mutex())
			if calibrating {
				held = append(held, r)
				calWall += r.wall
				if len(held) >= calTarget {
					endCalibration(!stopping)
				}
				continue
			}
			if err := journalRun(r); err != nil {
				stop(fmt.Errorf("run %d: %w", r.i, err))
			}
		case <-calC:
			endCalibration(!stopping)
		case <-ctxDone:
			ctxDone = nil
			stop(nil)
		case <-graceC:
			break loop // the runs still under way are dropped (see the deferred drain)
		}
	}
	if calibrating && stopErr == nil {
		// Done (a sweep of fewer runs than the calibration), or stopped
		// while calibrating: keep what was made.
		endCalibration(!stopping)
	}
	if stopErr != nil {
		return ran, stopErr
	}
	if stopping {
		return ran, fmt.Errorf("%w: %d runs made", ErrInterrupted, ran)
	}
	return ran, nil
}

// closedTime is a channel that is ready at once.
var closedTime = func() <-chan time.Time {
	c := make(chan time.Time)
	close(c)
	return c
}()
