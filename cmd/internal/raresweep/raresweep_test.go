package raresweep

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

func options(out string, workers int) Options {
	return Options{Out: out, Estimate: estimate.Options{
		Property: estimate.Mutex, Method: "auto", RelError: 0.5, MaxRuns: 5_000, MaxTime: 10 * time.Minute, Workers: workers,
	}}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return recs
}

// TestEstimatingSweep: one row per point, each an estimate whose interval
// holds it; the rows are the same at any worker count and when the
// points are run as two shards; and an interrupted sweep resumes to the
// same file.
func TestEstimatingSweep(t *testing.T) {
	spec, err := sweep.Load("testdata/tail.toml")
	require.NoError(t, err)
	dir := t.TempDir()
	out := filepath.Join(dir, "all.csv")
	sum, err := Run(context.Background(), spec, options(out, 2))
	require.NoError(t, err)
	assert.Equal(t, Summary{Points: 2, Ran: 2}, Summary{Points: sum.Points, Ran: sum.Ran, Resumed: sum.Resumed})
	all := readCSV(t, out)
	require.Len(t, all, 3)
	assert.Equal(t, Header(spec, estimate.Mutex), all[0])
	col := map[string]int{}
	for i, h := range all[0] {
		col[h] = i
	}
	var ps []float64
	for _, r := range all[1:] {
		p, _ := strconv.ParseFloat(r[col["mutex_violation_probability"]], 64)
		lo, _ := strconv.ParseFloat(r[col["mutex_violation_probability_ci_low"]], 64)
		hi, _ := strconv.ParseFloat(r[col["mutex_violation_probability_ci_high"]], 64)
		require.Greater(t, p, 0.0, "a 1 s TTL breaks now and then")
		assert.True(t, lo <= p && p <= hi, "%v in [%v, %v]", p, lo, hi)
		ps = append(ps, p)
	}
	assert.Greater(t, ps[0], ps[1], "the shorter TTL breaks more often")
	_, err = os.Stat(out + ".partial")
	assert.True(t, os.IsNotExist(err), "the journal goes at the end")

	one := filepath.Join(dir, "one.csv")
	_, err = Run(context.Background(), spec, options(one, 1))
	require.NoError(t, err)
	assert.Equal(t, all, readCSV(t, one), "1 worker and 2 give the same rows")

	for k := 1; k <= 2; k++ {
		o := options(filepath.Join(dir, "shard"+strconv.Itoa(k)+".csv"), 2)
		o.Shard = sweep.Shard{K: k, N: 2}
		_, err = Run(context.Background(), spec, o)
		require.NoError(t, err)
		rows := readCSV(t, o.Out)
		require.Len(t, rows, 2)
		assert.Equal(t, all[k], rows[1], "shard %d/2's row is the full sweep's", k)
	}

	// An interrupted sweep: its partial holds point 1's row; a resume
	// estimates only point 2 and writes the same file.
	res := filepath.Join(dir, "resumed.csv")
	w, err := os.Create(res + ".partial")
	require.NoError(t, err)
	require.NoError(t, csv.NewWriter(w).WriteAll(all[:2]))
	require.NoError(t, w.Close())
	_, err = Run(context.Background(), spec, options(res, 2))
	assert.ErrorContains(t, err, "--resume")
	o := options(res, 2)
	o.Resume = true
	sum, err = Run(context.Background(), spec, o)
	require.NoError(t, err)
	assert.Equal(t, 1, sum.Resumed)
	assert.Equal(t, 1, sum.Ran)
	assert.Equal(t, all, readCSV(t, res))
}

// TestInterruptedSweepKeepsFinishedRows: a sweep whose context is already
// done writes no results file, keeps what it finished, and says so.
func TestInterruptedSweepKeepsFinishedRows(t *testing.T) {
	spec, err := sweep.Load("testdata/tail.toml")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "x.csv")
	_, err = Run(ctx, spec, options(out, 1))
	require.ErrorIs(t, err, ErrInterrupted)
	_, err = os.Stat(out)
	assert.True(t, os.IsNotExist(err), "no results file for an unfinished sweep")
}
