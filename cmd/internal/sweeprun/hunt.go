package sweeprun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"sync"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// HuntOptions say what a hunt runs: one scenario over the seeds From,
// From+1, ..., From+Seeds-1.
type HuntOptions struct {
	Plan      *model.Plan
	MaxEvents uint64 // each run's budget (see model.Plan.RunWithin)
	// Hash identifies the scenario's meaning (and its overrides); the
	// journal carries it, so that --resume refuses another scenario's.
	Hash      string
	From      uint64
	Seeds     int
	Workers   int // 0 means runtime.NumCPU()
	Journal   string
	Resume    bool
	SyncEvery time.Duration // 0 means a second
	Progress  func(done, todo int)
	ReplayOf  func(seed uint64) string // for an internal error's report
	// Run makes one run; nil means model.Plan.RunFastWithin.
	Run func(plan *model.Plan, seed, maxEvents uint64) (model.Result, error)
}

// HuntOutcome is one violating seed.
type HuntOutcome struct {
	Seed            uint64
	Mutex, Resource bool
}

// HuntResult is what a hunt found among the seeds it has made: all of
// them when it completed, those finished before an interruption otherwise.
type HuntResult struct {
	Seeds        int // the seeds asked for
	Done         int // seeds made, now or before a resume
	Resumed      int // of which from the journal
	MutexN, ResN int // runs that violated mutual exclusion, the resource
	// PerAcquisition and PerHour are the mutex and resource violations
	// (lost updates plus stale writes accepted) of the seeds made, over
	// their acquisitions and over their hours of simulated time (the
	// scenario's duration per seed), with Garwood's 95% intervals.
	PerAcquisition, PerHour struct{ Mutex, Resource results.Rate }
	Bad                     []HuntOutcome
	Wall                    time.Duration
	Journal                 string
}

// CheckHuntRange refuses a seed range with more than sweep.MaxSeeds seeds
// or one that would wrap past the largest uint64.
func CheckHuntRange(from uint64, seeds int) error {
	if seeds < 1 || seeds > sweep.MaxSeeds {
		return fmt.Errorf("--seeds must be between 1 and %d, got %d", sweep.MaxSeeds, seeds)
	}
	if from > math.MaxUint64-uint64(seeds-1) {
		return fmt.Errorf("--from %d with --seeds %d runs past the largest seed, %d: start at %d at most", from, seeds, uint64(math.MaxUint64), uint64(math.MaxUint64)-uint64(seeds-1))
	}
	return nil
}

func huntHeader(hash string, from uint64, seeds int) string {
	return fmt.Sprintf("redlocksim hunt journal v1 scenario=%s from=%d seeds=%d", hash, from, seeds)
}

// Hunt runs the seeds in a pool of workers, keeping each finished run in
// the journal (the sweep's format, one slot per seed in seed order), and
// reads the result back from the journal: the same for any worker count
// and whether or not the hunt was interrupted and resumed. The journal is
// removed when the hunt completes.
//
// If ctx is cancelled, the runs under way finish and are kept, and Hunt
// returns what the finished runs found with an error wrapping
// ErrInterrupted.
func Hunt(ctx context.Context, opt HuntOptions) (HuntResult, error) {
	start := time.Now()
	res := HuntResult{Seeds: opt.Seeds, Journal: opt.Journal}
	if err := CheckHuntRange(opt.From, opt.Seeds); err != nil {
		return res, err
	}
	if opt.Run == nil {
		opt.Run = runFast
	}
	workers, every := poolSettings(opt.Workers, opt.SyncEvery)
	// A world over its budget by its Config alone is refused before the
	// journal is made, as a sweep's point is.
	if err := opt.Plan.CheckBudget(opt.MaxEvents); err != nil {
		return res, err
	}
	header := huntHeader(opt.Hash, opt.From, opt.Seeds)
	_, statErr := os.Stat(opt.Journal)
	created := errors.Is(statErr, fs.ErrNotExist)
	j, err := useJournal(opt.Journal, header, opt.Seeds, every, opt.Resume)
	if err != nil {
		return res, err
	}
	defer j.close()
	done, resumed, err := j.done()
	if err != nil {
		return res, err
	}
	res.Resumed = resumed
	var runErr error
	if todo := opt.Seeds - res.Resumed; todo > 0 {
		runErr = huntPool(ctx, opt, workers, j, done, todo)
		if serr := j.sync(); runErr == nil {
			runErr = serr
		}
	}
	if runErr != nil && !errors.Is(runErr, ErrInterrupted) {
		res.Wall = time.Since(start)
		if _, kept, err := j.done(); created && err == nil && kept == 0 {
			// Nothing was kept (its first run refused over its budget):
			// no journal is left to block the same hunt with a larger
			// --max-events as "interrupted".
			j.close()
			os.Remove(opt.Journal)
			syncDir(opt.Journal)
		}
		return res, runErr
	}
	var mutexViolations, resourceViolations, acquisitions int64
	err = j.scan(func(i int, r record, ok bool) error {
		if !ok {
			return nil
		}
		seed := opt.From + uint64(i)
		if want := seed; r.Seed != want {
			return fmt.Errorf("%s: slot %d has seed %d, want %d", opt.Journal, i, r.Seed, want)
		}
		res.Done++
		mutexViolations += r.MutexViolations
		resourceViolations += r.LostUpdates + r.StaleWritesAccepted
		acquisitions += r.AcquireSuccesses
		if r.mutex() || r.resource() {
			res.Bad = append(res.Bad, HuntOutcome{Seed: seed, Mutex: r.mutex(), Resource: r.resource()})
			if r.mutex() {
				res.MutexN++
			}
			if r.resource() {
				res.ResN++
			}
		}
		return nil
	})
	hours := float64(res.Done) * opt.Plan.Config().Duration.Hours()
	res.PerAcquisition.Mutex = results.NewRate(mutexViolations, float64(acquisitions))
	res.PerAcquisition.Resource = results.NewRate(resourceViolations, float64(acquisitions))
	res.PerHour.Mutex = results.NewRate(mutexViolations, hours)
	res.PerHour.Resource = results.NewRate(resourceViolations, hours)
	res.Wall = time.Since(start)
	if err != nil {
		return res, err
	}
	if runErr != nil {
		return res, runErr
	}
	j.close()
	if err := os.Remove(opt.Journal); err != nil {
		return res, err
	}
	syncDir(opt.Journal)
	return res, nil
}

// huntPool makes the seeds not marked done; this goroutine journals them.
func huntPool(ctx context.Context, opt HuntOptions, workers int, j *journal, done []uint64, todo int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int, 2*workers)
	results := make(chan result, 2*workers)
	go func() {
		defer close(jobs)
		for i := range opt.Seeds {
			if done[i/64]&(1<<(i%64)) != 0 {
				continue
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				if ctx.Err() != nil {
					continue
				}
				seed := opt.From + uint64(i)
				r, err := Guard(seed, func() (model.Result, error) { return opt.Run(opt.Plan, seed, opt.MaxEvents) })
				if ie, ok := err.(*InternalError); ok && opt.ReplayOf != nil {
					ie.Replay = opt.ReplayOf(seed)
				}
				results <- result{i: i, rec: toRecord(seed, &r), err: err}
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	ran, firstErr := collect(results, j, cancel, opt.Progress, todo, func(i int) string { return fmt.Sprintf("seed %d", opt.From+uint64(i)) })
	switch {
	case firstErr != nil:
		return firstErr
	case ran < todo:
		return fmt.Errorf("%w: %d of %d seeds made", ErrInterrupted, ran, todo)
	}
	return nil
}
