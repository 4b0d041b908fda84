package sweeprun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
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
	// Progress, if not nil, is called after each run this sweep journals
	// with the number journaled so far and the number it has to make (the
	// runs not already in the journal; adaptive: at most). It is called
	// from one goroutine.
	Progress func(done, todo int)
	// Estimate, if not nil, is called once, after the calibration (the
	// first few runs) and before the rest: the runs to make and how long
	// they should take.
	Estimate func(Estimate)
	// SyncEvery is how often the journal is fsynced; 0 means a second.
	SyncEvery time.Duration
	// Analytic, if not nil, adds its columns to the results file, after
	// the others: a closed form's prediction per point (sweep --analytic).
	Analytic *Analytic
	// MaxEvents is each run's budget (see model.Plan.RunWithin; 0: the
	// default). A point whose Config alone shows it over the budget is
	// refused before the first run; a run over it fails the sweep with a
	// *model.BudgetError.
	MaxEvents uint64
	// MaxRuns refuses, before any run, a sweep (a shard) of more runs
	// (adaptive: at most); 0 means DefaultMaxRuns.
	MaxRuns int
	// MaxTime, if not zero, refuses a sweep whose calibrated estimate is
	// longer; the calibration's runs are then not kept.
	MaxTime time.Duration
	// CIWidth, if not zero, samples adaptively: each point's seeds are
	// made in batches of Batch, in order, and a point stops once the 95%
	// Wilson interval of its mutex violation rate is narrower than
	// CIWidth, or at MaxSeeds.
	CIWidth float64
	// MaxSeeds is the most seeds an adaptive point takes; 0 means the
	// spec's seeds.
	MaxSeeds int
	// Batch is an adaptive sweep's batch; 0 means DefaultBatch.
	Batch int
	// Grace is how long runs under way may take to finish once the sweep
	// is stopped; 0 means DefaultGrace.
	Grace time.Duration
}

// Summary says what a sweep did.
type Summary struct {
	Points int // in the shard
	// Runs is the shard's runs: points × seeds, or for an adaptive sweep,
	// once it is done, the runs its points took.
	Runs    int
	Resumed int // runs found in the journal
	Ran     int // runs made now
	Wall    time.Duration
	Journal string
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
	i    int
	rec  record
	err  error
	wall time.Duration
}

// Run runs the spec's runs (the shard's, if opt.Shard is set) in a pool of
// opt.Workers goroutines, one run per goroutine at a time, keeping each
// finished run in the journal; when all are done it writes the results
// (and raw) file atomically from the journal, in point order, and removes
// the journal. The files are the same bytes for any worker count and
// whether or not the sweep was interrupted and resumed.
//
// Before the first run it refuses (a *RefusedError) a sweep of more than
// opt.MaxRuns runs, outputs that cannot be written, and a point that does
// not compile or cannot fit its budget; after the calibration, one whose
// estimate exceeds opt.MaxTime. A refused sweep leaves no journal, and
// neither does one stopped before any run was kept.
//
// If ctx is cancelled, no new run starts, the runs under way are given
// opt.Grace to finish and be kept, and Run returns an error wrapping
// ErrInterrupted.
func Run(ctx context.Context, spec *sweep.Spec, opt Options) (sum Summary, err error) {
	start := time.Now()
	if opt.Out == "" {
		return Summary{}, errors.New("sweeprun: no output file")
	}
	workers, every := poolSettings(opt.Workers, opt.SyncEvery)
	smp, err := samplingOf(spec, opt)
	if err != nil {
		return Summary{}, err
	}
	sh := opt.Shard
	points := sh.Count(spec.NumPoints())
	slots := points * smp.per
	sum = Summary{Points: points, Runs: slots, Journal: JournalPath(opt.Out)}
	if err := checkRuns(spec, sh, slots, opt.MaxRuns, smp.adaptive()); err != nil {
		return sum, err
	}
	for _, o := range []struct{ flag, path string }{{"--out", opt.Out}, {"--raw", opt.Raw}} {
		if o.path == "" {
			continue
		}
		if err := checkOutput(o.flag, o.path); err != nil {
			return sum, err
		}
	}
	if err := CheckPoints(spec, sh, opt.MaxEvents); err != nil {
		return sum, err
	}
	hash := spec.Hash()
	header := journalHeader(hash, sh.String(), spec.NumPoints(), smp.per, smp.suffix())

	_, statErr := os.Stat(sum.Journal)
	created := errors.Is(statErr, fs.ErrNotExist)
	j, err := useJournal(sum.Journal, header, slots, every, opt.Resume)
	if err != nil {
		return sum, err
	}
	defer func() {
		if j == nil {
			return
		}
		j.close()
		if created && sum.Resumed+sum.Ran == 0 {
			// Nothing was kept: a sweep that never started leaves no
			// journal to block the next one.
			os.Remove(sum.Journal)
			syncDir(sum.Journal)
		}
	}()
	done, violated, resumed, err := j.outcomes()
	if err != nil {
		return sum, err
	}
	sum.Resumed = resumed
	grace := opt.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	todo := slots - resumed
	if todo > 0 {
		s := newScheduler(spec, sh, smp, done, violated)
		sum.Ran, err = pool(ctx, spec, s, j, poolConfig{
			workers: workers, maxEvents: opt.MaxEvents, todo: todo,
			progress: opt.Progress, estimate: opt.Estimate, maxTime: opt.MaxTime, grace: grace,
			calibrate: opt.Estimate != nil || opt.MaxTime > 0, // nobody to tell: no need to hold runs back
		})
		if serr := j.sync(); err == nil {
			err = serr
		}
		if err != nil {
			sum.Wall = time.Since(start)
			return sum, err
		}
	}
	made := 0
	if sum.Direct, made, err = writeOutputs(ctx, spec, sh, hash, j, smp, opt.Out, opt.Raw, opt.Analytic); err != nil {
		sum.Wall = time.Since(start)
		return sum, err
	}
	sum.Runs = made
	j.close()
	j = nil
	if err := os.Remove(sum.Journal); err != nil {
		return sum, err
	}
	syncDir(sum.Journal)
	sum.Wall = time.Since(start)
	return sum, nil
}

// poolSettings resolves a pool's zero settings, as Options and
// HuntOptions document them: runtime.NumCPU() workers, and the journal
// fsynced every second.
func poolSettings(workers int, syncEvery time.Duration) (int, time.Duration) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if syncEvery <= 0 {
		syncEvery = time.Second
	}
	return workers, syncEvery
}

// samplingOf is the sweep's sampling: the spec's seeds per point, or the
// adaptive rule of opt.CIWidth, opt.MaxSeeds and opt.Batch.
func samplingOf(spec *sweep.Spec, opt Options) (sampling, error) {
	if opt.CIWidth == 0 {
		if opt.MaxSeeds != 0 {
			return sampling{}, refused("--max-seeds goes with --ci-width (without it every point takes the spec's seeds; use --seeds)")
		}
		return fixedSampling(spec.Seeds), nil
	}
	if !(opt.CIWidth > 0 && opt.CIWidth < 1) {
		return sampling{}, refused("--ci-width must be between 0 and 1 (a width of the violation rate's 95%% interval, like 0.05), got %v", opt.CIWidth)
	}
	per := opt.MaxSeeds
	if per == 0 {
		per = spec.Seeds
	}
	if per < 1 || per > sweep.MaxSeeds {
		return sampling{}, refused("--max-seeds must be between 1 and %d, got %d", sweep.MaxSeeds, per)
	}
	batch := opt.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	return sampling{per: per, batch: min(batch, per), width: opt.CIWidth}, nil
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
