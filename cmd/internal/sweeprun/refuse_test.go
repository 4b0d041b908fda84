package sweeprun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// countRuns replaces runFast for the test with one that counts the runs
// it makes (and, with delay, takes at least that long each).
func countRuns(t *testing.T, delay time.Duration) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	old := runFast
	runFast = func(plan *model.Plan, seed, maxEvents uint64) (model.Result, error) {
		n.Add(1)
		time.Sleep(delay)
		return old(plan, seed, maxEvents)
	}
	t.Cleanup(func() { runFast = old })
	return &n
}

// requireRefused checks that err is a refusal saying msg, that no run was
// made, and that no journal was left.
func requireRefused(t *testing.T, err error, runs *atomic.Int64, out string, msg ...string) {
	t.Helper()
	var re *RefusedError
	require.ErrorAs(t, err, &re)
	for _, m := range msg {
		require.Contains(t, re.Msg, m)
	}
	if runs != nil {
		require.Zero(t, runs.Load(), "runs made before the refusal")
	}
	_, serr := os.Stat(JournalPath(out))
	require.Error(t, serr, "a refused sweep leaves no journal")
}

// The billion-run spec: 1000 points × 1,000,000 seeds, refused
// before any run, quickly and in little memory, naming the lines that
// multiply up to the count.
func TestBillionRunsAreRefused(t *testing.T) {
	var vals []string
	for i := range 100 {
		vals = append(vals, fmt.Sprint(i))
	}
	src := "name = \"billion\"\nbase = \"baseline\"\nseeds = 1000000\n[axes]\nlock.ttl = [\"1s\", \"2s\", \"3s\", \"4s\", \"5s\", \"6s\", \"7s\", \"8s\", \"9s\", \"10s\"]\nnodes.clock.rate_ppm = [" + strings.Join(vals, ", ") + "]\n"
	before := sweep.ScenariosBuilt()
	spec, out, _ := refusedCheaply(t, "billion.toml", src,
		"billion.toml has 1000000000 runs, more than --max-runs 10000000",
		"billion.toml:5: axes.lock.ttl: 10 values",
		"billion.toml:6: axes.nodes.clock.rate_ppm: 100 values",
		"billion.toml:3: seeds = 1000000",
		"--shard K/N")
	require.Equal(t, int64(spec.NumPoints()), sweep.ScenariosBuilt()-before, "scenarios built: the loader's, of each of the 1000 points, and none by the refusal")

	// --seeds is named as such; a shard counts its own runs.
	runs := countRuns(t, 0)
	spec.SetSeeds(20000, "--seeds 20000")
	_, err := Run(context.Background(), spec, Options{Out: out, Workers: 2})
	requireRefused(t, err, runs, out, "20000000 runs", "  --seeds 20000\n")
	_, err = Run(context.Background(), spec, Options{Out: out, Workers: 2, Shard: sweep.Shard{K: 1, N: 3}, MaxRuns: 6_000_000})
	requireRefused(t, err, runs, out, "6680000 runs, more than --max-runs 6000000 in shard 1/3 (334 of its 1000 points)")
}

// The million points (1000 × 1000, 1000 seeds each): the loader
// applied every point to the base before the runner counted its billion
// runs (a minute and 79 MB). Now the loader builds a sample and the
// refusal none.
func TestMillionPointsAreRefusedFromTheirCounts(t *testing.T) {
	ttl, ppm := make([]string, 1000), make([]string, 1000)
	for i := range 1000 {
		ttl[i], ppm[i] = fmt.Sprintf(`"%dms"`, 100+i), fmt.Sprint(i)
	}
	src := "name = \"big\"\nbase = \"baseline\"\nseeds = 1000\n[axes]\nlock.ttl = [" + strings.Join(ttl, ", ") + "]\nnodes.clock.rate_ppm = [" + strings.Join(ppm, ", ") + "]\n"
	before := sweep.ScenariosBuilt()
	refusedCheaply(t, "big.toml", src,
		"big.toml has 1000000000 runs, more than --max-runs 10000000; the count is the product of\n"+
			"  big.toml:5: axes.lock.ttl: 1000 values\n  big.toml:6: axes.nodes.clock.rate_ppm: 1000 values\n  big.toml:3: seeds = 1000\n")
	require.LessOrEqual(t, sweep.ScenariosBuilt()-before, int64(sweep.CheckedAtLoad), "scenarios built to load and refuse a million points")
}

// A large spec within its budget has every point checked before its
// first run, not only the loader's sample: here a pause of client c2 at
// the points with one client, a combination the sample does not take.
func TestEveryPointOfALargeSpecIsCheckedFirst(t *testing.T) {
	ttl := make([]string, 600)
	for i := range ttl {
		ttl[i] = fmt.Sprintf(`"%dms"`, 1000+i)
	}
	src := "name = \"large\"\nseeds = 1\n[axes]\nclients.count = [1, 2]\n\"faults[0].target\" = [\"c1\", \"c2\"]\nlock.ttl = [" + strings.Join(ttl, ", ") + "]\n" +
		"[base]\nduration = \"5s\"\n[[base.faults]]\nat = \"1s\"\nkind = \"pause\"\ntarget = \"c1\"\nfor = \"1s\"\n"
	spec, err := sweep.Parse("large.toml", []byte(src))
	require.NoError(t, err, "the sample takes (1, c1) and (2, c2) only")
	runs := countRuns(t, 0)
	out := filepath.Join(t.TempDir(), "r.csv")
	_, err = Run(context.Background(), spec, Options{Out: out, Workers: 2})
	requireRefused(t, err, runs, out, `point 600 of large.toml cannot run (clients.count=1 at large.toml:4, faults[0].target="c2" at large.toml:5, lock.ttl="1000ms" at large.toml:6)`,
		`no process is called "c2"`)
}

func TestOutputsThatCannotBeWrittenAreRefused(t *testing.T) {
	spec := loadSpec(t, testSpec)
	runs := countRuns(t, 0)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, c := range []struct {
		out, raw, msg string
	}{
		{dir, "", "cannot write --out " + dir + ": it is a directory; name a file in it, like " + filepath.Join(dir, "results.csv")},
		{filepath.Join(dir, "no", "r.csv"), "", "cannot write --out " + filepath.Join(dir, "no", "r.csv") + ": no directory " + filepath.Join(dir, "no")},
		{filepath.Join(file, "r.csv"), "", "no directory " + file},
		{filepath.Join(dir, "r.csv"), dir, "cannot write --raw " + dir + ": it is a directory"},
		{filepath.Join(dir, "r.csv"), "/proc/raw.csv", "cannot write --raw /proc/raw.csv: cannot create a file in /proc"},
	} {
		_, err := Run(context.Background(), spec, Options{Out: c.out, Raw: c.raw, Workers: 2})
		requireRefused(t, err, runs, c.out, c.msg)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		require.NoError(t, os.Mkdir(ro, 0o555))
		out := filepath.Join(ro, "r.csv")
		_, err := Run(context.Background(), spec, Options{Out: out, Workers: 2})
		requireRefused(t, err, runs, out, "cannot create a file in "+ro)
	}
}

// The 1000 × 1000 point: refused before any run, with its axis
// values and the lines that set them, where the sweep used to run for
// seconds and a gigabyte before failing without either.
func TestAPointOverItsBudgetIsRefusedFirst(t *testing.T) {
	src := "name = \"big\"\nbase = \"baseline\"\nseeds = 4\n[axes]\nclients.count = [3, 1000]\nnodes.count = [5, 1000]\n"
	_, _, err := refusedCheaply(t, "big.toml", src,
		"point 3 of big.toml cannot run (clients.count=1000 at big.toml:5, nodes.count=1000 at big.toml:6): the run would exceed its budget")
	var be *model.BudgetError
	require.ErrorAs(t, errors.Unwrap(err), &be, "the budget error is kept")
}

// --max-time: the estimate from the calibration exceeds it, the sweep is
// refused, the calibration's runs are not kept, and no journal is left.
func TestMaxTimeRefusesOnTheEstimate(t *testing.T) {
	spec := loadSpec(t, testSpec)
	countRuns(t, 20*time.Millisecond)
	out := filepath.Join(t.TempDir(), "r.csv")
	var est []Estimate
	_, err := Run(context.Background(), spec, Options{Out: out, Workers: 2, MaxTime: 50 * time.Millisecond, Estimate: func(e Estimate) { est = append(est, e) }})
	requireRefused(t, err, nil, out, "small.toml: an estimated", "for 32 runs on 2 workers", "more than --max-time 50ms; nothing was kept")
	require.Len(t, est, 1)
	require.Equal(t, 32, est[0].Runs)
	require.GreaterOrEqual(t, est[0].Calibrated, CalibrationRuns)
	require.GreaterOrEqual(t, est[0].PerRun, 20*time.Millisecond)
	require.GreaterOrEqual(t, est[0].Wall, 32*20*time.Millisecond/2)

	// Within the limit it runs, and the calibration's runs are in the output.
	want, _ := sweepFiles(t, spec, t.TempDir(), Options{Workers: 2})
	got, _ := sweepFiles(t, spec, t.TempDir(), Options{Workers: 2, MaxTime: time.Hour})
	require.Equal(t, string(want), string(got))
}

// A stopped sweep does not wait for a long run: after the grace the run
// is dropped, what finished is kept, and --resume completes the sweep.
func TestStopDoesNotWaitForLongRuns(t *testing.T) {
	spec := loadSpec(t, testSpec)
	want, _ := sweepFiles(t, spec, t.TempDir(), Options{Workers: 2})
	var made atomic.Int64
	var slow atomic.Bool
	slow.Store(true)
	// The runs the stopped sweep drops go on in their goroutines after Run
	// returns; runFast is put back only once they are done, so that the
	// write does not race with their read of it.
	var dropped sync.WaitGroup
	old := runFast
	runFast = func(plan *model.Plan, seed, maxEvents uint64) (model.Result, error) {
		dropped.Add(1)
		defer dropped.Done()
		if slow.Load() && made.Add(1) > 10 {
			time.Sleep(5 * time.Second) // a run far longer than the grace
		}
		return old(plan, seed, maxEvents)
	}
	defer func() { dropped.Wait(); runFast = old }()
	out := filepath.Join(t.TempDir(), "r.csv")
	ctx, cancel := context.WithCancel(context.Background())
	opt := Options{Out: out, Workers: 2, Grace: 200 * time.Millisecond}
	opt.Progress = func(done, todo int) {
		if done == 10 {
			go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		}
	}
	start := time.Now()
	sum, err := Run(ctx, spec, opt)
	stopped := time.Since(start)
	require.ErrorIs(t, err, ErrInterrupted)
	require.Equal(t, 10, sum.Ran)
	require.Less(t, stopped, 3*time.Second, "the sweep waited for the long runs")

	slow.Store(false)
	sum, err = Run(context.Background(), spec, Options{Out: out, Workers: 2, Resume: true})
	require.NoError(t, err)
	require.Equal(t, 10, sum.Resumed)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// A journal of a large sweep that holds a few runs (at its start, in its
// middle, at its end) reads back exactly those, wherever they are.
func TestSparseJournalReadsWhatItHolds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	const runs = 10_000_000
	j, err := createJournal(path, "redlocksim sweep journal v1 test", runs, time.Hour)
	require.NoError(t, err)
	held := []int{0, 1, 63, 64, 4_999_999, runs - 1}
	for _, i := range held {
		require.NoError(t, j.put(i, record{Seed: uint64(i) + 7, MutexViolations: int64(i % 2)}))
	}
	var got []int
	require.NoError(t, j.held(func(i int, r *record) {
		got = append(got, i)
		require.Equal(t, uint64(i)+7, r.Seed)
	}))
	require.Equal(t, held, got)
	done, violated, n, err := j.outcomes()
	require.NoError(t, err)
	require.Equal(t, len(held), n)
	for _, i := range held {
		require.True(t, done.has(i))
		require.Equal(t, i%2 == 1, violated.has(i))
	}
	require.False(t, done.has(2))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, int64(headerSize+runs*slotSize), fi.Size())
	require.NoError(t, j.close())
}

// refusedCheaply parses src as the sweep spec file name, runs it into a
// fresh output file, and checks that the sweep is refused as a sweep too
// large must be: saying msg, before any run, leaving no journal, and
// having allocated under 100 MB. It returns the spec, the output file and
// the refusal.
func refusedCheaply(t *testing.T, name, src string, msg ...string) (*sweep.Spec, string, error) {
	t.Helper()
	spec, err := sweep.Parse(name, []byte(src))
	require.NoError(t, err)
	runs := countRuns(t, 0)
	out := filepath.Join(t.TempDir(), "r.csv")
	alloc := allocatedBy(func() { _, err = Run(context.Background(), spec, Options{Out: out, Workers: 2}) })
	requireRefused(t, err, runs, out, msg...)
	require.Less(t, alloc, uint64(100<<20), "memory allocated to refuse")
	return spec, out, err
}

// allocatedBy is how many bytes f allocates, from a collected heap.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHuntOverItsBudgetLeavesNoJournal: a hunt whose first run is refused
// over its budget left its journal behind: the same hunt with a larger
// --max-events, as the refusal advises, was then refused as interrupted.
// A hunt that kept no run leaves no journal, and is refused twice over
// with the same message.
func TestHuntOverItsBudgetLeavesNoJournal(t *testing.T) {
	sc, err := scenarios.LoadLibrary("baseline")
	require.NoError(t, err)
	journal := filepath.Join(t.TempDir(), "hunt.partial")
	for range 2 {
		_, err := Hunt(context.Background(), HuntOptions{Plan: sc.Plan, MaxEvents: 5000, Hash: "h", From: 1, Seeds: 4, Workers: 1, Journal: journal})
		var be *model.BudgetError
		require.True(t, errors.As(err, &be), "%v", err)
		require.Contains(t, err.Error(), "seed 1: the run would exceed its budget: an estimated 33.8k events")
		_, statErr := os.Stat(journal)
		require.True(t, errors.Is(statErr, os.ErrNotExist), "no journal left: %v", statErr)
	}
}
