package sweeprun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// Options say where a sweep writes and how it runs.
type Options struct {
	// Out is the results file (one row per point). The journal is
	// Out + ".partial" while the sweep is under way.
	Out string
	// Raw, if not "", is the per-run file (one row per run).
	Raw string
	// Workers is the number of runs made at once; 0 means runtime.NumCPU().
	Workers int
	// Resume continues from the journal a previous, interrupted sweep left.
	// Without it an existing journal is an error (nothing is overwritten).
	Resume bool
	// Shard, if not zero, runs only that shard's points; its files start
	// with a comment line carrying the spec's hash, for Merge.
	Shard sweep.Shard
	// Progress, if not nil, is called after each run this sweep makes with
	// the number made so far and the number it has to make (the runs not
	// already in the journal). It is called from one goroutine.
	Progress func(done, todo int)
	// SyncEvery is how often the journal is fsynced; 0 means a second.
	SyncEvery time.Duration
	// Analytic, if not nil, adds its columns to the results file, after
	// the others: a closed form's prediction per point (sweep --analytic).
	Analytic *Analytic
	// MaxEvents is each run's budget (see model.Plan.RunWithin; 0: the
	// default). A run over it fails the sweep with a *model.BudgetError.
	MaxEvents uint64
}

// Summary says what a sweep did.
type Summary struct {
	Points, Runs int // in the shard
	Resumed      int // runs found in the journal
	Ran          int // runs made now
	Wall         time.Duration
	Journal      string
	// Direct lists the outputs written in place rather than atomically:
	// devices and pipes (see package atomicfile).
	Direct []string
}

// ErrInterrupted is returned, wrapped, when the context was cancelled
// before every run was made; the finished runs are in the journal.
var ErrInterrupted = errors.New("sweep interrupted")

// JournalPath is the journal of a sweep writing out.
func JournalPath(out string) string { return out + ".partial" }

type job struct {
	i     int // run index in the shard
	seed  uint64
	plan  *model.Plan
	point *sweep.Point
}

type result struct {
	i   int
	rec record
	err error
}

// Run runs the spec's runs (the shard's, if opt.Shard is set) in a pool of
// opt.Workers goroutines, one run per goroutine at a time, keeping each
// finished run in the journal; when all are done it writes the results
// (and raw) file atomically from the journal, in point order, and removes
// the journal. The files are the same bytes for any worker count and
// whether or not the sweep was interrupted and resumed.
//
// If ctx is cancelled, no new run starts, the runs under way finish and
// are kept, and Run returns an error wrapping ErrInterrupted.
func Run(ctx context.Context, spec *sweep.Spec, opt Options) (Summary, error) {
	start := time.Now()
	if opt.Out == "" {
		return Summary{}, errors.New("sweeprun: no output file")
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	every := opt.SyncEvery
	if every <= 0 {
		every = time.Second
	}
	sh := opt.Shard
	points := sh.Count(spec.NumPoints())
	runs := points * spec.Seeds
	hash := spec.Hash()
	header := journalHeader(hash, sh.String(), spec.NumPoints(), spec.Seeds)
	sum := Summary{Points: points, Runs: runs, Journal: JournalPath(opt.Out)}

	var j *journal
	var err error
	j, err = useJournal(sum.Journal, header, runs, every, opt.Resume)
	if err != nil {
		return sum, err
	}
	defer func() {
		if j != nil {
			j.close()
		}
	}()
	done, resumed, err := j.done()
	if err != nil {
		return sum, err
	}
	sum.Resumed = resumed
	todo := runs - sum.Resumed
	if todo > 0 {
		sum.Ran, err = pool(ctx, spec, sh, workers, j, done, todo, opt.Progress, opt.MaxEvents)
		if serr := j.sync(); err == nil {
			err = serr
		}
		if err != nil {
			sum.Wall = time.Since(start)
			return sum, err
		}
	}
	if sum.Direct, err = writeOutputs(spec, sh, hash, j, opt.Out, opt.Raw, opt.Analytic); err != nil {
		sum.Wall = time.Since(start)
		return sum, err
	}
	j.close()
	j = nil
	if err := os.Remove(sum.Journal); err != nil {
		return sum, err
	}
	syncDir(sum.Journal)
	sum.Wall = time.Since(start)
	return sum, nil
}

// pool makes the runs not marked done. A dispatcher walks the shard's
// points in order, builds each point's Config once and hands its runs to
// the workers; this goroutine collects the results and journals them.
func pool(ctx context.Context, spec *sweep.Spec, sh sweep.Shard, workers int, j *journal, done []uint64, todo int, progress func(done, todo int), maxEvents uint64) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job, 2*workers)
	results := make(chan result, 2*workers)
	var dispatchErr error
	go func() {
		defer close(jobs)
		points := sh.Count(spec.NumPoints())
		for lp := 0; lp < points; lp++ {
			first := lp * spec.Seeds
			var plan *model.Plan
			var p sweep.Point
			for rep := 0; rep < spec.Seeds; rep++ {
				i := first + rep
				if done[i/64]&(1<<(i%64)) != 0 {
					continue
				}
				if plan == nil {
					p = spec.Point(sh.Point(lp))
					s, err := spec.Scenario(p)
					if err != nil {
						dispatchErr = fmt.Errorf("point %d: %w", p.Index, err)
						cancel()
						return
					}
					plan = s.Plan
				}
				select {
				case jobs <- job{i: i, seed: spec.RunSeed(p, rep), plan: plan, point: &p}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for jb := range jobs {
				if ctx.Err() != nil {
					continue // interrupted: queued runs are not started
				}
				r, err := Guard(jb.seed, func() (model.Result, error) { return runFast(jb.plan, jb.seed, maxEvents) })
				if ie, ok := err.(*InternalError); ok {
					ie.Replay = spec.Replay(*jb.point, jb.seed)
				}
				results <- result{i: jb.i, rec: toRecord(jb.seed, &r), err: err}
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	ran, firstErr := collect(results, j, cancel, progress, todo, func(i int) string { return fmt.Sprintf("run %d", i) })
	switch {
	case firstErr != nil:
		return ran, firstErr
	case dispatchErr != nil:
		return ran, dispatchErr
	case ran < todo:
		return ran, fmt.Errorf("%w: %d of %d runs made", ErrInterrupted, ran, todo)
	}
	return ran, nil
}

func toRecord(seed uint64, r *model.Result) record { return reportRecord(seed, &r.Report) }

// reportRecord is the journal's record of one run's report.
func reportRecord(seed uint64, rep *check.Report) record {
	return record{
		Seed:                seed,
		MutexViolations:     int64(rep.MutexViolations),
		MutexOverlap:        int64(rep.MutexOverlapTotal),
		LostUpdates:         int64(rep.LostUpdates),
		StaleWritesAccepted: int64(rep.StaleWritesAccepted),
		StaleWritesRejected: int64(rep.StaleWritesRejected),
		WritesAccepted:      int64(rep.WritesAccepted),
		AcquireAttempts:     int64(rep.AcquireAttempts),
		AcquireSuccesses:    int64(rep.AcquireSuccesses),
		AcquireFailures:     int64(rep.AcquireFailures),
		AcquireP50:          int64(rep.AcquireP50),
		AcquireP99:          int64(rep.AcquireP99),
		Unavailable:         int64(rep.Unavailable),
		LongestOutage:       int64(rep.LongestOutage),
	}
}

// collect journals the results as they come, calling progress after each,
// until results is closed. After the first error it cancels the pool and
// drains the rest; name says which run failed.
func collect(results <-chan result, j *journal, cancel func(), progress func(done, todo int), todo int, name func(i int) string) (ran int, firstErr error) {
	for r := range results {
		if firstErr != nil {
			continue
		}
		if r.err == nil {
			r.err = j.put(r.i, r.rec)
		}
		if r.err != nil {
			firstErr = fmt.Errorf("%s: %w", name(r.i), r.err)
			cancel()
			continue
		}
		ran++
		if progress != nil {
			progress(ran, todo)
		}
	}
	return ran, firstErr
}
