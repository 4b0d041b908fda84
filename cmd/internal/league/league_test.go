package league

import (
	"context"
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
)

// TestLeagueCells: the table and the CSV do not depend on the workers,
// every cell is there, and the cells say what the mechanisms make: no
// lock violates without faults, the fenced cells are safe, and Curator's
// standard error policy stops a partitioned holder believing before its
// session expires.
func TestLeagueCells(t *testing.T) {
	var mds, csvs []string
	for _, workers := range []int{1, 3} {
		l, err := Play(context.Background(), 2, workers, 0)
		require.NoError(t, err)
		mds, csvs = append(mds, l.Markdown()), append(csvs, string(l.CSV()))
	}
	assert.Equal(t, mds[0], mds[1], "the table depends on the workers")
	assert.Equal(t, csvs[0], csvs[1], "the CSV depends on the workers")

	rows, err := csv.NewReader(strings.NewReader(csvs[0])).ReadAll()
	require.NoError(t, err)
	fenced := 0
	for _, l := range locks {
		if l.tokens != "" {
			fenced++
		}
	}
	require.Len(t, rows, 1+(len(locks)+fenced)*len(faultSets), "a header and one row per lock, fault set and fencing")
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	num := func(r []string, k string) float64 {
		v, err := strconv.ParseFloat(r[col[k]], 64)
		require.NoError(t, err, k)
		return v
	}
	for _, r := range rows[1:] {
		lock, faults, fencing := r[col["lock"]], r[col["faults"]], r[col["fencing"]]
		if faults == "none" {
			assert.Zero(t, num(r, "violations"), "%s without faults", lock)
		}
		if fencing == "fenced" {
			assert.Zero(t, num(r, "unsafe_runs"), "%s under %s with fencing", lock, faults)
		}
		if lock == "zookeeper" && faults == "partition" {
			// Curator's standard policy ends the belief at SUSPENDED,
			// before the ensemble expires the session; the cut-off
			// holder's 20 s job still writes after the next holder's.
			assert.Zero(t, num(r, "violations"), "the standard policy stops believing at SUSPENDED, before the session expires")
			if fencing == "unfenced" {
				assert.Equal(t, num(r, "runs"), num(r, "unsafe_runs"), "the cut-off holder's late write loses an update")
			}
		}
		if faults == "crash" {
			assert.Positive(t, num(r, "outage_median_s"), "%s: another client waits after the holder crashes", lock)
			assert.Zero(t, num(r, "violations"), "%s: a crashed holder believes nothing", lock)
		}
		const rate = "mutex_violations_per_acquisition"
		assert.LessOrEqual(t, num(r, rate+"_ci_low"), num(r, rate))
		assert.LessOrEqual(t, num(r, rate), num(r, rate+"_ci_high"))
	}
}

// TestLeagueRate: a cell's rate per acquisition has Garwood's interval:
// its ends are where the Poisson tails at the count are 2.5%, and at zero
// its upper end is the closed form −ln(0.025) over the acquisitions.
func TestLeagueRate(t *testing.T) {
	const n = 1000
	r, lo, hi := (&Cell{acquisitions: n}).rate()
	assert.Zero(t, r)
	assert.Zero(t, lo)
	assert.InDelta(t, -math.Log(0.025)/n, hi, 1e-12)
	for _, k := range []int{1, 2, 5, 30, 400} {
		r, lo, hi := (&Cell{acquisitions: n, violations: k}).rate()
		assert.InDelta(t, float64(k)/n, r, 1e-15)
		// P(X >= k | lo) = 0.025 and P(X <= k | hi) = 0.025.
		assert.InDelta(t, 0.025, 1-distuv.Poisson{Lambda: lo * n}.CDF(float64(k-1)), 1e-6, "k=%d lower", k)
		assert.InDelta(t, 0.025, distuv.Poisson{Lambda: hi * n}.CDF(float64(k)), 1e-6, "k=%d upper", k)
	}
	r, _, _ = (&Cell{}).rate()
	assert.True(t, math.IsNaN(r), "no acquisitions, no rate")
}

// TestLeagueRunThatPanicsIsAnInternalError: a league run panicked in a
// worker goroutine, where no recover reached it, and the process died
// with the runtime's exit 2, bad input's status. Now Play returns the
// panic as an internal error, which the command exits 3 for with the bug
// report (cmd/redlocksim's exitStatus).
func TestLeagueRunThatPanicsIsAnInternalError(t *testing.T) {
	_, err := play(context.Background(), 1, 2, 0, func(model.Config, uint64, bool) (model.Result, error) { panic("injected for the test") })
	var ie *sweeprun.InternalError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "injected for the test", ie.Value)
}

// TestLeagueEstimatesSmallCells: the estimator is asked about the
// unfenced cells with few violations only, finds the pauses' violations
// with an interval around its estimate, gives a bound alone where no run
// violates, does not depend on the workers, and fills the CSV's estimate
// columns of those cells alone.
func TestLeagueEstimatesSmallCells(t *testing.T) {
	all, err := jobs(1)
	require.NoError(t, err)
	var picked []job
	for _, j := range all {
		if j.cell.lock == "zookeeper" && (j.cell.faults == "pauses" || j.cell.faults == "none") {
			picked = append(picked, j)
		}
	}
	require.Len(t, picked, 4, "zookeeper's none and pauses cells, unfenced and fenced")
	pausesCell := find([]*Cell{picked[0].cell, picked[1].cell, picked[2].cell, picked[3].cell}, "zookeeper", "pauses", false)
	pausesCell.violations = smallCount // counted well enough: not asked
	var got [2][]cellEstimate
	for i, workers := range []int{1, 2} {
		for _, j := range picked {
			j.cell.estimate = nil
		}
		require.NoError(t, estimateSmall(context.Background(), picked, estimate.MinRuns, workers))
		for _, j := range picked {
			if j.cell.fenced || j.cell.violations >= smallCount {
				assert.Nil(t, j.cell.estimate, "%s %s %s is not estimated", j.cell.lock, j.cell.faults, j.cell.fencing())
				continue
			}
			require.NotNil(t, j.cell.estimate, "%s %s", j.cell.lock, j.cell.faults)
			got[i] = append(got[i], *j.cell.estimate)
		}
	}
	assert.Equal(t, got[0], got[1], "the estimates depend on the workers")
	var none, pauses *cellEstimate
	for _, j := range picked {
		switch {
		case j.cell.fenced:
		case j.cell.faults == "none":
			none = j.cell.estimate
		case j.cell.faults == "pauses":
			pauses = j.cell.estimate
		}
	}
	require.NotNil(t, none)
	assert.True(t, none.upperBound, "no run violates without faults")
	assert.Zero(t, none.p)
	assert.Positive(t, none.hi)
	require.Nil(t, pauses, "the pauses cell was marked counted")

	pausesCell.violations = 0
	require.NoError(t, estimateSmall(context.Background(), picked, estimate.MinRuns, 2))
	pauses = pausesCell.estimate
	require.NotNil(t, pauses)
	assert.False(t, pauses.upperBound, "lognormal pauses with a tail of seconds break the lock")
	assert.Positive(t, pauses.p)
	assert.LessOrEqual(t, pauses.lo, pauses.p)
	assert.LessOrEqual(t, pauses.p, pauses.hi)

	l := &League{Seeds: 1, EstimateRuns: estimate.MinRuns}
	for _, j := range picked {
		l.Cells = append(l.Cells, j.cell)
	}
	rows, err := csv.NewReader(strings.NewReader(string(l.CSV()))).ReadAll()
	require.NoError(t, err)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	require.Contains(t, col, "violating_run_probability")
	for i, j := range picked {
		method := rows[i+1][col["estimate_method"]]
		assert.Equal(t, j.cell.estimate != nil, method != "", "%s %s %s", j.cell.lock, j.cell.faults, j.cell.fencing())
	}
	assert.Contains(t, estimatesMarkdown(l.Cells, l.EstimateRuns), "| zookeeper | pauses | "+pauses.method+" |")
}

// TestLeagueRunsWhatPeopleRun: the league has a row for each preset of
// a lock people run as its documentation recommends (the issue's
// presets and redsync for Redlock) and for every algorithm on the
// consensus store.
func TestLeagueRunsWhatPeopleRun(t *testing.T) {
	js, err := jobs(1)
	require.NoError(t, err)
	presets, algorithms := map[string]bool{}, map[string]bool{}
	for _, l := range locks {
		for _, line := range strings.Split(l.lock, "\n") {
			if v, ok := strings.CutPrefix(line, "preset = "); ok {
				presets[strings.Trim(v, `"`)] = true
			}
		}
	}
	for _, j := range js {
		algorithms[j.cfg.Lock.Algorithm.String()] = true
	}
	for _, p := range []string{"redsync", "redisson", "redisson-wait", "k8s-defaults", "consul-defaults"} {
		assert.True(t, presets[p], "no league row runs preset %q", p)
	}
	for _, a := range client.Algorithms() {
		alg, err := client.ParseAlgorithm(a)
		require.NoError(t, err)
		if alg.Store() {
			assert.True(t, algorithms[a], "no league row runs algorithm %q", a)
		}
	}
	// redisson-wait is redisson with WAIT 1: the only difference between the rows.
	var plain, wait model.Config
	for _, j := range js {
		switch {
		case j.cell.lock == "redisson" && j.cell.faults == "none":
			plain = j.cfg
		case j.cell.lock == "redisson-wait" && j.cell.faults == "none":
			wait = j.cfg
		}
	}
	assert.Equal(t, 1, wait.Lock.WaitReplicas)
	wait.Name, wait.Lock.WaitReplicas, wait.Lock.WaitTimeout = plain.Name, plain.Lock.WaitReplicas, plain.Lock.WaitTimeout
	assert.Equal(t, plain, wait, "redisson-wait differs from redisson only in its WAIT")
}
