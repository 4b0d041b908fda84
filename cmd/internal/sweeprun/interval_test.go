package sweeprun

import (
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMeanIntervals recomputes every averaged column's interval of a
// sweep from its raw file, the textbook way (two passes, the t table's
// quantile for 3 degrees of freedom), and requires the results file to
// agree.
func TestMeanIntervals(t *testing.T) {
	spec := loadSpec(t, testSpec) // 4 seeds a point
	const t3 = 3.182446305284263
	results, raw := sweepFiles(t, spec, t.TempDir(), Options{Workers: 2})
	require.True(t, strings.HasPrefix(string(results), "point,"))
	res := readCSV(t, results)
	rw := readCSV(t, raw)
	byPoint := map[string][]map[string]string{}
	for _, r := range rw {
		byPoint[r["point"]] = append(byPoint[r["point"]], r)
	}
	meanCI := func(xs []float64) (mean, lo, hi float64) {
		for _, x := range xs {
			mean += x
		}
		mean /= float64(len(xs))
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		half := t3 * math.Sqrt(ss/float64(len(xs)-1)/float64(len(xs)))
		return mean, max(0, mean-half), mean + half
	}
	near := func(what, cell string, want float64) {
		t.Helper()
		got, err := strconv.ParseFloat(cell, 64)
		require.NoError(t, err, "%s: %q", what, cell)
		if math.Abs(got-want) > 2e-6*max(1, math.Abs(want)) {
			t.Errorf("%s = %s, want %.6f", what, cell, want)
		}
	}
	spread := false
	for _, row := range res {
		runs := byPoint[row["point"]]
		require.Len(t, runs, 4)
		for col, rawCol := range map[string]string{
			"mutex_overlap_ms_mean": "mutex_overlap_ms", "lost_updates_mean": "lost_updates",
			"stale_writes_accepted_mean": "stale_writes_accepted", "stale_writes_rejected_mean": "stale_writes_rejected",
			"acquisitions_mean": "acquire_successes", "acquire_failures_mean": "acquire_failures",
			"unavailable_ms_mean": "unavailable_ms",
		} {
			var xs []float64
			for _, r := range runs {
				x, err := strconv.ParseFloat(r[rawCol], 64)
				require.NoError(t, err)
				xs = append(xs, x)
			}
			mean, lo, hi := meanCI(xs)
			what := "point " + row["point"] + " " + col
			near(what, row[col], mean)
			near(what+"_ci_low", row[col+"_ci_low"], lo)
			near(what+"_ci_high", row[col+"_ci_high"], hi)
			spread = spread || hi > lo
		}
		// the ratio's delta-method interval
		var x, y []float64
		for _, r := range runs {
			s, _ := strconv.ParseFloat(r["acquire_successes"], 64)
			v, _ := strconv.ParseFloat(r["mutex_violations"], 64)
			x, y = append(x, s), append(y, v)
		}
		var sx, sy float64
		for i := range x {
			sx, sy = sx+x[i], sy+y[i]
		}
		if sx == 0 {
			require.Empty(t, row["violations_per_1k_acquisitions_ci_low"])
			continue
		}
		ratio := sy / sx
		d := make([]float64, len(x))
		for i := range x {
			d[i] = y[i] - ratio*x[i]
		}
		var ss float64
		for _, v := range d {
			ss += v * v
		}
		half := t3 * math.Sqrt(ss/3/4) / (sx / 4)
		near("point "+row["point"]+" violations_per_1k_acquisitions_ci_low", row["violations_per_1k_acquisitions_ci_low"], 1000*max(0, ratio-half))
		near("point "+row["point"]+" violations_per_1k_acquisitions_ci_high", row["violations_per_1k_acquisitions_ci_high"], 1000*(ratio+half))
	}
	require.True(t, spread, "some interval has a width, or the test checks nothing")
}

// TestMeanIntervalsOfOneRun: with one run there is no spread to estimate
// and the interval cells are empty.
func TestMeanIntervalsOfOneRun(t *testing.T) {
	spec := loadSpec(t, strings.Replace(testSpec, "seeds = 4", "seeds = 1", 1))
	results, _ := sweepFiles(t, spec, t.TempDir(), Options{Workers: 1})
	for _, row := range readCSV(t, results) {
		require.Equal(t, "1", row["runs"])
		require.NotEmpty(t, row["unavailable_ms_mean"])
		require.Empty(t, row["unavailable_ms_mean_ci_low"])
		require.Empty(t, row["unavailable_ms_mean_ci_high"])
	}
}

// readCSV reads a header-and-rows CSV into one map per row.
func readCSV(t *testing.T, data []byte) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	require.NoError(t, err)
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, c := range recs[0] {
			m[c] = r[i]
		}
		rows = append(rows, m)
	}
	return rows
}
