package main

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/redlocksim/redlocksim/model"
)

// TestLeague: the league's table and CSV do not depend on the workers,
// every cell is there, and the cells say what the mechanisms make: no
// lock violates without faults, the fenced cells are safe, and Curator's
// standard error policy lets a partitioned holder believe past its
// session.
func TestLeague(t *testing.T) {
	var mds, csvs []string
	for _, workers := range []string{"1", "3"} {
		dir := t.TempDir()
		code, stdout, stderr := runCLI("league", "--seeds", "2", "--workers", workers, "--out", dir)
		require.Equal(t, 0, code, stderr)
		md, err := os.ReadFile(filepath.Join(dir, "league.md"))
		require.NoError(t, err)
		assert.Contains(t, stdout, string(md))
		c, err := os.ReadFile(filepath.Join(dir, "league.csv"))
		require.NoError(t, err)
		png, err := os.Stat(filepath.Join(dir, "league.png"))
		require.NoError(t, err)
		assert.Positive(t, png.Size())
		mds, csvs = append(mds, string(md)), append(csvs, string(c))
	}
	assert.Equal(t, mds[0], mds[1], "the table depends on --workers")
	assert.Equal(t, csvs[0], csvs[1], "the CSV depends on --workers")

	rows, err := csv.NewReader(strings.NewReader(csvs[0])).ReadAll()
	require.NoError(t, err)
	fenced := 0
	for _, l := range leagueLocks {
		if l.tokens != "" {
			fenced++
		}
	}
	require.Len(t, rows, 1+(len(leagueLocks)+fenced)*len(leagueFaultSets), "a header and one row per lock, fault set and fencing")
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
			assert.Positive(t, num(r, "violations"), "the standard policy believes until LOST, after the session expired")
		}
		if faults == "crash" {
			assert.Positive(t, num(r, "outage_median_s"), "%s: another client waits after the holder crashes", lock)
		}
		assert.LessOrEqual(t, num(r, "rate_lo"), num(r, "rate"))
		assert.LessOrEqual(t, num(r, "rate"), num(r, "rate_hi"))
	}
}

// TestLeagueRate: a cell's rate per acquisition has Garwood's interval:
// its ends are where the Poisson tails at the count are 2.5%, and at zero
// its upper end is the closed form −ln(0.025) over the acquisitions.
func TestLeagueRate(t *testing.T) {
	const n = 1000
	r, lo, hi := (&leagueCell{acquisitions: n}).rate()
	assert.Zero(t, r)
	assert.Zero(t, lo)
	assert.InDelta(t, -math.Log(0.025)/n, hi, 1e-12)
	for _, k := range []int{1, 2, 5, 30, 400} {
		r, lo, hi := (&leagueCell{acquisitions: n, violations: k}).rate()
		assert.InDelta(t, float64(k)/n, r, 1e-15)
		// P(X >= k | lo) = 0.025 and P(X <= k | hi) = 0.025.
		assert.InDelta(t, 0.025, 1-distuv.Poisson{Lambda: lo * n}.CDF(float64(k-1)), 1e-6, "k=%d lower", k)
		assert.InDelta(t, 0.025, distuv.Poisson{Lambda: hi * n}.CDF(float64(k)), 1e-6, "k=%d upper", k)
	}
	r, _, _ = (&leagueCell{}).rate()
	assert.True(t, math.IsNaN(r), "no acquisitions, no rate")
}

func TestLeagueBadInput(t *testing.T) {
	code, _, stderr := runCLI("league", "--seeds", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--seeds must be 1 to 10000, got 0")
	code, _, stderr = runCLI("league", "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unexpected argument "extra"`)
}

// TestLeagueRunThatPanicsIsAnInternalError: a league run panicked in a
// worker goroutine, where no recover reached it, and the process died
// with the runtime's exit 2, bad input's status. Now it is a bug report,
// exit 3.
func TestLeagueRunThatPanicsIsAnInternalError(t *testing.T) {
	old := leagueRun
	defer func() { leagueRun = old }()
	leagueRun = func(model.Config, uint64, bool) (model.Result, error) { panic("injected for the test") }
	code, _, stderr := runCLI("league", "--seeds", "1", "--out", t.TempDir())
	assert.Equal(t, exitInternal, code, stderr)
	assert.Contains(t, stderr, "redlocksim: internal error: injected for the test\n")
	assert.Contains(t, stderr, "This is a bug in redlocksim")
}
