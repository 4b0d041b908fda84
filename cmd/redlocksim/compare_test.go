package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/compare"
	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

const tinySweep = "testdata/comparesweep/tiny.toml"

func TestSelectPointsAsPlotWhere(t *testing.T) {
	spec, err := sweep.Load(tinySweep)
	require.NoError(t, err)
	indices := func(where ...string) []int {
		ps, err := selectPoints(spec, where)
		require.NoError(t, err)
		var out []int
		for _, p := range ps {
			out = append(out, p.Index)
		}
		return out
	}
	// Values of one key are OR, keys are AND; 1000ms reads as 1s.
	assert.Equal(t, []int{2, 3, 4, 5}, indices("lock.ttl=500ms,1000ms"))
	assert.Equal(t, []int{3, 5}, indices("lock.ttl=500ms,1s", "nodes.clock.rate_ppm=2e4"))
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, indices())
	_, err = selectPoints(spec, []string{"lock.ttl=3s"})
	assert.EqualError(t, err, "sweep tiny: no row has lock.ttl=3s (it has 1ms, 500ms, 1s)")
	_, err = selectPoints(spec, []string{"lock.tt=1s"})
	assert.ErrorContains(t, err, `no column "lock.tt"`)
}

// fakeRealRuns gives the command line whose compare makes its real runs
// with a function of (point, seed), and the configs it was asked to run,
// in order.
func fakeRealRuns(run func(cfg model.Config, seed uint64) (*harness.Result, error)) (cli func(args ...string) (int, string, string), asked *[]model.Config) {
	asked = new([]model.Config)
	fake := func(_ context.Context, cfg model.Config, seed uint64) (*harness.Result, error) {
		*asked = append(*asked, cfg)
		return run(cfg, seed)
	}
	return cliWith(compareCommand(fake)), asked
}

// cliWith is runCLI over the commands with c in place of the command of
// its name.
func cliWith(c *command) func(args ...string) (int, string, string) {
	cmds := slices.Clone(commands)
	for i := range cmds {
		if cmds[i].name == c.name {
			cmds[i] = c
		}
	}
	return func(args ...string) (int, string, string) {
		var o, e bytes.Buffer
		code := realMainOf(cmds, args, &o, &e)
		return code, o.String(), e.String()
	}
}

// realBinaryCLI is the command line whose compare runs the real client
// from the binary bin (this package's test binary cannot be one).
func realBinaryCLI(bin string) func(args ...string) (int, string, string) {
	return cliWith(compareCommand(realPoint(func() (string, error) { return bin, nil })))
}

func TestCompareSweepWritesTheSweepsColumnsPlusMode(t *testing.T) {
	// Each fake run violates mutual exclusion on odd seeds and reports
	// 100ms of wall-time outage at scale 4: 400ms in scenario time.
	cli, asked := fakeRealRuns(func(cfg model.Config, seed uint64) (*harness.Result, error) {
		return &harness.Result{Scale: 4, Report: check.Report{
			MutexViolations: int(seed % 2), AcquireAttempts: 3, AcquireSuccesses: 2, AcquireFailures: 1,
			Unavailable: 100 * time.Millisecond, LongestOutage: 50 * time.Millisecond,
		}}, nil
	})
	dir := t.TempDir()
	out := filepath.Join(dir, "real.csv")
	code, stdout, stderr := cli("compare", "sweep", tinySweep, "--where", "lock.ttl=1ms,1s", "--where", "nodes.clock.rate_ppm=20000", "--runs", "3", "--out", out)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "wrote "+out+": 1 point, 3 real runs of tiny\n", stdout)
	assert.Equal(t, "skipped point 1 (lock.ttl=1ms, nodes.clock.rate_ppm=20000): --scale 1 makes lock.ttl 1ms, below the 250ms a real run resolves (largest scale: 0.004)\n", stderr)
	require.Len(t, *asked, 3, "point 5 runs three times, point 1 never")
	assert.Equal(t, time.Second, (*asked)[0].Lock.TTL)

	// The header is the one sweep writes for the same spec, with mode and
	// scale before the rate columns, which come last.
	simOut := filepath.Join(dir, "sim.csv")
	code, _, stderr = cli("sweep", tinySweep, "--out", simOut)
	require.Equal(t, exitOK, code, stderr)
	sim, real := readCSV(t, simOut), readCSV(t, out)
	older := sim[0][:len(sim[0])-len(sweeprun.RateColumns)]
	assert.Equal(t, slices.Concat(older, []string{"mode", "scale"}, sweeprun.RateColumns), real[0])
	require.Len(t, real, 2)
	row := map[string]string{}
	for i, h := range real[0] {
		row[h] = real[1][i]
	}
	lo, hi := results.Wilson(2, 3)
	for col, want := range map[string]string{
		"point": "5", "lock.ttl": "1s", "nodes.clock.rate_ppm": "20000", "runs": "3",
		"mutex_violation_runs": "2", "mutex_violation_rate": "0.666667", "mutex_ci_low": trimNum(lo), "mutex_ci_high": trimNum(hi),
		"acquisitions_mean": "2", "unavailable_ms_mean": "400", "longest_outage_ms_max": "200",
		"mode": "real", "scale": "4",
	} {
		assert.Equal(t, want, row[col], col)
	}
}

// trimNum is how the results file writes a number (sweeprun's num).
func trimNum(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(f, 'f', 6, 64), "0"), ".")
}

func TestCompareSweepWithNothingRunnableIsExit2(t *testing.T) {
	cli, asked := fakeRealRuns(func(model.Config, uint64) (*harness.Result, error) { return nil, errors.New("must not run") })
	out := filepath.Join(t.TempDir(), "real.csv")
	code, _, stderr := cli("compare", "sweep", tinySweep, "--where", "lock.ttl=1ms", "--out", out)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "skipped point 0 (lock.ttl=1ms, nodes.clock.rate_ppm=0): --scale 1 makes lock.ttl 1ms")
	assert.Contains(t, stderr, "redlocksim compare: nothing to run: a real run can take none of the 2 points selected")
	assert.Empty(t, *asked)
	assert.NoFileExists(t, out)
}

// A point the harness refuses only once it runs is skipped with the
// reason; the others are written.
func TestCompareSweepSkipsAPointRefusedAtRunTime(t *testing.T) {
	cli, _ := fakeRealRuns(func(cfg model.Config, seed uint64) (*harness.Result, error) {
		if cfg.Lock.TTL == 500*time.Millisecond {
			return nil, &harness.RefusedError{What: "lock.ttl", Reason: "a refusal for the test"}
		}
		return &harness.Result{Scale: 1}, nil
	})
	out := filepath.Join(t.TempDir(), "real.csv")
	code, stdout, stderr := cli("compare", "sweep", tinySweep, "--where", "lock.ttl=500ms,1s", "--where", "nodes.clock.rate_ppm=0", "--runs", "2", "--out", out)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "skipped point 2 (lock.ttl=500ms, nodes.clock.rate_ppm=0): point 2 (lock.ttl=500ms, nodes.clock.rate_ppm=0), real seed 1: cannot run for real: lock.ttl: a refusal for the test")
	assert.Contains(t, stdout, "1 point, 2 real runs")
	rows := readCSV(t, out)
	require.Len(t, rows, 2)
	assert.Equal(t, "4", rows[1][0])
}

func TestCompareSweepBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sweep", tinySweep}, "--sweep needs --out FILE.csv"},
		{[]string{"--sweep", tinySweep, "--out", "x.csv", "gc-pause"}, "--sweep takes no scenarios, got gc-pause"},
		{[]string{"--sweep", tinySweep, "--out", "x.csv", "--runs", "0"}, "--runs must be at least 1, got 0"},
		{[]string{"--sweep", tinySweep, "--out", "x.csv", "--where", "lock.ttl"}, "--where wants key=value"},
		{[]string{"--sweep", "no-such-sweep", "--out", "x.csv"}, "no-such-sweep"},
		{[]string{"sweep", tinySweep}, "--sweep needs --out FILE.csv"},
		{[]string{"sweep", tinySweep, "--out", "x.csv", "gc-pause"}, "--sweep takes no scenarios, got gc-pause"},
		{[]string{"sweep", "--out", "x.csv"}, "compare sweep needs a sweep"},
		{[]string{"sweep", tinySweep, "--out", "x.csv", "--set", "lock.ttl=1s"}, "flag provided but not defined: -set"},
		{[]string{"explore"}, "compare explore: name one base scenario, got 0 arguments"},
		{[]string{"explore", "gc-pause", "--set", "lock.tll=1s"}, `--set: lock.tll: unknown key; did you mean "ttl"?`},
		{[]string{"runs"}, "name scenarios or give --all (not both)"},
		{[]string{"runs", "gc-pause", "--runs", "0"}, "--runs must be at least 1, got 0"},
	} {
		code, _, stderr := runCLI(append([]string{"compare"}, c.args...)...)
		assert.Equal(t, exitBadInput, code, c.args)
		assert.Contains(t, stderr, c.want, c.args)
	}
}

// The spellings from before the subcommands still work, and say on
// stderr what they are now; what they print on stdout is the
// subcommand's.
func TestCompareOldSpellingsNameTheirSubcommand(t *testing.T) {
	cli, _ := fakeRealRuns(func(cfg model.Config, seed uint64) (*harness.Result, error) {
		return &harness.Result{Scale: 1, Report: check.Report{AcquireAttempts: 1, AcquireSuccesses: 1}}, nil
	})
	dir := t.TempDir()
	oldOut, newOut := filepath.Join(dir, "old.csv"), filepath.Join(dir, "new.csv")
	code, stdout, stderr := cli("compare", "--sweep", tinySweep, "--where", "lock.ttl=1s", "--runs", "2", "--out", oldOut)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "redlocksim compare: --sweep is 'redlocksim compare sweep "+tinySweep+"' now\n", stderr)
	assert.Equal(t, "wrote "+oldOut+": 2 points, 4 real runs of tiny\n", stdout)
	code, _, stderr = cli("compare", "sweep", tinySweep, "--where", "lock.ttl=1s", "--runs", "2", "--out", newOut)
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stderr)
	assert.Equal(t, readCSV(t, newOut), readCSV(t, oldOut))

	code, _, stderr = cli("compare", "--explore", "gc-pause", "--repeat", "0")
	assert.Equal(t, exitBadInput, code)
	assert.Equal(t, "redlocksim compare: --explore is 'redlocksim compare explore gc-pause' now\n"+
		"redlocksim compare --explore: --repeat must be at least 1 and --budget at least --repeat (got 0 and 40)\n", stderr)

	_, oldRows, _ := cli("compare", "gc-pause", "--runs", "1", "--json")
	code, newRows, stderr := cli("compare", "runs", "gc-pause", "--runs", "1", "--json")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, oldRows, newRows, "compare NAME is compare runs NAME")
}

// One point, one real run, end to end: a real redis-server and a real
// client process, about three seconds.
func TestCompareSweepRunsAPointForReal(t *testing.T) {
	needRealRun(t)
	bin := builtBinary(t)
	cli := realBinaryCLI(bin)

	out := filepath.Join(t.TempDir(), "real.csv")
	code, stdout, stderr := cli("compare", "sweep", tinySweep, "--where", "lock.ttl=1s", "--where", "nodes.clock.rate_ppm=0", "--runs", "1", "--out", out)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "1 point, 1 real run of tiny")
	rows := readCSV(t, out)
	require.Len(t, rows, 2)
	row := map[string]string{}
	for i, h := range rows[0] {
		row[h] = rows[1][i]
	}
	// One client alone on one node never overlaps itself, and takes the
	// lock again and again for two seconds.
	assert.Equal(t, "0", row["mutex_violation_runs"])
	assert.Equal(t, "real", row["mode"])
	assert.Equal(t, "1", row["scale"])
	assert.NotEqual(t, "0", row["acquisitions_mean"])
}

// The real points of docs/ttl-vs-drift-real.png are compare --sweep's file
// for the headline sweep: its header is the sweep's, plus mode and scale,
// and every row is a real run of a point of that sweep.
func TestDocsRealCSVIsCompareSweeps(t *testing.T) {
	spec, err := sweep.Load("ttl-vs-drift")
	require.NoError(t, err)
	rows := readCSV(t, filepath.Join("..", "..", "docs", "ttl-vs-drift-real.csv"))
	// It was written before the key columns gained their seconds
	// (lock.ttl_s): its header is the older form, which plot reads as well.
	older := slices.Concat([]string{"point"}, spec.Columns, sweeprun.ResultColumns)
	assert.Equal(t, slices.Concat(older, compare.SweepColumns), rows[0])
	for _, row := range rows[1:] {
		i, err := strconv.Atoi(row[0])
		require.NoError(t, err)
		assert.Equal(t, spec.Point(i).Cells, row[1:1+len(spec.Columns)], "point %d", i)
		assert.Equal(t, "real", row[len(row)-2])
	}
}

// compare's --set is run's: a bad one is refused with exit 2 and the
// message run gives (its file, key and what is valid), before any run.
func TestCompareRefusesABadSetAsRunDoes(t *testing.T) {
	cli, asked := fakeRealRuns(func(model.Config, uint64) (*harness.Result, error) { return nil, errors.New("must not run") })
	for _, set := range []string{"lock.tll=20s", "lock.ttl=ten", "lock.ttl", "faults[7].for=1s", "lock..ttl=1s"} {
		code, runOut, runErr := cli("run", "gc-pause", "--set", set)
		require.Equal(t, exitBadInput, code, set)
		require.Empty(t, runOut)
		msg, ok := strings.CutPrefix(runErr, "redlocksim run: ")
		require.True(t, ok, runErr)
		require.Contains(t, msg, "--set: ")

		code, out, errOut := cli("compare", "gc-pause", "--set", set)
		assert.Equal(t, exitBadInput, code, set)
		assert.Empty(t, out)
		assert.Equal(t, "redlocksim compare: "+msg, errOut, set)
	}
	assert.Empty(t, *asked)

	// With several scenarios, the message says which one a key does not fit.
	code, _, errOut := cli("compare", "baseline", "gc-pause", "--set", "faults[0].for=1s")
	assert.Equal(t, exitBadInput, code)
	assert.Equal(t, "redlocksim compare: baseline: --set: faults[0].for: faults is not in the scenario, so there is no faults[0]\n", errOut)

	code, _, errOut = cli("compare", "--sweep", tinySweep, "--set", "lock.ttl=1s", "--out", t.TempDir()+"/x.csv")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--set does not apply to --sweep")
	code, _, errOut = cli("compare", "--explore", "gc-pause", "--set", "lock.tll=1s")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, `redlocksim compare --explore: --set: lock.tll: unknown key; did you mean "ttl"?`)
	assert.Empty(t, *asked)
}

// A TTL longer than c1's pause keeps gc-pause safe: with --set the
// simulated column says so, and the real side is asked to run the same
// overridden scenario.
func TestCompareSetReachesBothSides(t *testing.T) {
	cli, asked := fakeRealRuns(func(cfg model.Config, seed uint64) (*harness.Result, error) {
		return &harness.Result{Scale: 2, Report: check.Report{AcquireAttempts: 2, AcquireSuccesses: 1}}, nil
	})
	compareGC := func(args ...string) compare.Row {
		t.Helper()
		code, out, errOut := cli(append([]string{"compare", "gc-pause", "--runs", "2", "--json"}, args...)...)
		require.Equal(t, exitOK, code, errOut)
		var rows []compare.Row
		require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
		require.Len(t, rows, 1)
		return rows[0]
	}
	plain := compareGC()
	require.Len(t, *asked, 2)
	assert.Equal(t, 10*time.Second, (*asked)[0].Lock.TTL)
	assert.Equal(t, compare.NewRate(2, 2), plain.Sim.Mutex, "gc-pause violates on every seed")

	*asked = nil
	longer := compareGC("--set", "lock.ttl=20s", "--set", "workload.critical_section=1s")
	require.Len(t, *asked, 2)
	for _, cfg := range *asked {
		assert.Equal(t, 20*time.Second, cfg.Lock.TTL)
		assert.Equal(t, time.Second, cfg.Work.CriticalSection)
	}
	assert.Equal(t, compare.NewRate(0, 2), longer.Sim.Mutex, "a 20s TTL outlives the 15s pause")
	assert.Equal(t, compare.NewRate(0, 2), longer.Sim.Resource)
}

// One real run of gc-pause with a TTL longer than its pause: the real
// client keeps mutual exclusion too, and the row agrees.
func TestCompareSetRunsForReal(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run")
	}
	proctest.Need(t, "redis-server", "redis-server")
	bin := builtBinary(t)
	cli := realBinaryCLI(bin)

	code, out, errOut := cli("compare", "gc-pause", "--runs", "1", "--json", "--set", "lock.ttl=20s")
	require.Equal(t, exitOK, code, errOut)
	var rows []compare.Row
	require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
	require.Len(t, rows, 1)
	assert.Equal(t, compare.NewRate(0, 1), rows[0].Sim.Mutex)
	assert.Equal(t, compare.NewRate(0, 1), rows[0].Real.Mutex, "the real client kept mutual exclusion with a 20s TTL: %+v", rows[0])
}
