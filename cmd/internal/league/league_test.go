package league

import (
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
)

// TestLeagueCells: the table and the CSV do not depend on the workers,
// every cell is there, and the cells say what the mechanisms make: no
// lock violates without faults, the fenced cells are safe, and Curator's
// standard error policy stops a partitioned holder believing before its
// session expires.
func TestLeagueCells(t *testing.T) {
	var mds, csvs []string
	for _, workers := range []int{1, 3} {
		l, err := Play(2, workers)
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
	_, err := play(1, 2, func(model.Config, uint64, bool) (model.Result, error) { panic("injected for the test") })
	var ie *sweeprun.InternalError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "injected for the test", ie.Value)
}
