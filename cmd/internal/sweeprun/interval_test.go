package sweeprun

import (
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
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

// TestRateColumns recomputes the rate columns of a small sweep from its
// raw file: the totals are the sums of the runs' counts, run_hours is the
// runs times the base's 10 s, and every rate has Garwood's interval on
// the total over acquisitions or hours; a point without a violation has a
// positive upper bound, 3.689 over the exposure, where the delta-method
// column beside it says [0, 0].
func TestRateColumns(t *testing.T) {
	spec := loadSpec(t, testSpec) // 4 seeds a point, 10 s runs
	resultsCSV, raw := sweepFiles(t, spec, t.TempDir(), Options{Workers: 2})
	byPoint := map[string][]map[string]string{}
	for _, r := range readCSV(t, raw) {
		byPoint[r["point"]] = append(byPoint[r["point"]], r)
	}
	sum := func(runs []map[string]string, cols ...string) int64 {
		var n int64
		for _, r := range runs {
			for _, c := range cols {
				v, err := strconv.ParseInt(r[c], 10, 64)
				require.NoError(t, err)
				n += v
			}
		}
		return n
	}
	near := func(what, cell string, want float64) {
		t.Helper()
		got, err := strconv.ParseFloat(cell, 64)
		require.NoError(t, err, "%s: %q", what, cell)
		if math.Abs(got-want) > 1e-5*math.Abs(want) {
			t.Errorf("%s = %s, want %.6g", what, cell, want)
		}
	}
	zeros, counts := 0, 0
	for _, row := range readCSV(t, resultsCSV) {
		runs := byPoint[row["point"]]
		mutex := sum(runs, "mutex_violations")
		resource := sum(runs, "lost_updates", "stale_writes_accepted")
		acq := sum(runs, "acquire_successes")
		hours := float64(len(runs)) * 10 / 3600
		require.Equal(t, strconv.FormatInt(mutex, 10), row["mutex_violations_total"])
		require.Equal(t, strconv.FormatInt(resource, 10), row["resource_violations_total"])
		require.Equal(t, strconv.FormatInt(acq, 10), row["acquisitions_total"])
		near("run_hours", row["run_hours"], hours)
		require.Positive(t, acq, "point %s acquired nothing: the test checks nothing", row["point"])
		for _, c := range []struct {
			col      string
			k        int64
			exposure float64
		}{
			{"mutex_violations_per_acquisition", mutex, float64(acq)},
			{"mutex_violations_per_hour", mutex, hours},
			{"resource_violations_per_acquisition", resource, float64(acq)},
			{"resource_violations_per_hour", resource, hours},
		} {
			what := "point " + row["point"] + " " + c.col
			lo, hi := results.Garwood(c.k)
			near(what+"_ci_high", row[c.col+"_ci_high"], hi/c.exposure)
			if c.k == 0 {
				zeros++
				require.Equal(t, "0", row[c.col], what)
				require.Equal(t, "0", row[c.col+"_ci_low"], what)
				near(what+"_ci_high", row[c.col+"_ci_high"], 3.688879/c.exposure)
				if c.col == "mutex_violations_per_acquisition" {
					require.Equal(t, "0", row["violations_per_1k_acquisitions_ci_high"], "the delta method's [0, 0] at zero")
				}
				continue
			}
			counts++
			near(what, row[c.col], float64(c.k)/c.exposure)
			near(what+"_ci_low", row[c.col+"_ci_low"], lo/c.exposure)
		}
	}
	require.Positive(t, zeros, "some point saw no violation")
	require.Positive(t, counts, "some point saw violations")
}
