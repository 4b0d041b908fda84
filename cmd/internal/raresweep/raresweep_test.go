package raresweep

import (
	"bytes"
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
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
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
// holds it, with the keys as a sweep's results file has them (lock.ttl_s
// in seconds); the file is the same bytes at 1 and 2 workers, and when
// the points are run as two shards and merged; and an interrupted sweep
// resumes to the same file.
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
	for i, r := range all[1:] {
		assert.Equal(t, strconv.Itoa(i), r[col["point"]])
		assert.Equal(t, []string{"500ms", "0.5", "1s", "1"}[2*i:2*i+2], []string{r[col["lock.ttl"]], r[col["lock.ttl_s"]]}, "the TTL and its seconds")
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
	assert.Equal(t, readBytes(t, out), readBytes(t, one), "1 worker and 2 give the same bytes")

	// Two shards, each with the line merge reads, merged by the sweep's
	// own merge: the one-machine file, byte for byte.
	var shards []string
	for k := 1; k <= 2; k++ {
		o := options(filepath.Join(dir, "shard"+strconv.Itoa(k)+".csv"), 2-k%2)
		o.Shard = sweep.Shard{K: k, N: 2}
		_, err = Run(context.Background(), spec, o)
		require.NoError(t, err)
		b := readBytes(t, o.Out)
		assert.True(t, bytes.HasPrefix(b, []byte("# redlocksim sweep spec="+Hash(spec, o.Estimate)+" shard="+o.Shard.String())), "%s", b)
		shards = append(shards, o.Out)
	}
	merged := filepath.Join(dir, "merged.csv")
	require.NoError(t, sweeprun.Merge(merged, []string{shards[1], shards[0]}))
	assert.Equal(t, readBytes(t, out), readBytes(t, merged), "merged shards give the one-machine file")
	assert.ErrorContains(t, sweeprun.Merge(merged, shards[:1]), "shard 2/2 missing")

	// A shard made with other settings is another sweep's.
	o := options(filepath.Join(dir, "other2.csv"), 2)
	o.Shard, o.Estimate.RelError = sweep.Shard{K: 2, N: 2}, 0.4
	_, err = Run(context.Background(), spec, o)
	require.NoError(t, err)
	assert.ErrorContains(t, sweeprun.Merge(merged, []string{shards[0], o.Out}), "different sweeps")

	// An interrupted sweep: its partial holds point 1's row; a resume
	// estimates only point 2 and writes the same file.
	res := filepath.Join(dir, "resumed.csv")
	w, err := os.Create(res + ".partial")
	require.NoError(t, err)
	require.NoError(t, csv.NewWriter(w).WriteAll(all[:2]))
	require.NoError(t, w.Close())
	_, err = Run(context.Background(), spec, options(res, 2))
	assert.ErrorContains(t, err, "--resume")
	o = options(res, 2)
	o.Resume = true
	sum, err = Run(context.Background(), spec, o)
	require.NoError(t, err)
	assert.Equal(t, 1, sum.Resumed)
	assert.Equal(t, 1, sum.Ran)
	assert.Equal(t, readBytes(t, out), readBytes(t, res))
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
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
