package sweepfig

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

func TestAxisLabel(t *testing.T) {
	l := Labels{"lock.drift_factor": "drift allowance (share of the TTL)", "lock.ttl": "TTL", "clients.count": "clients (processes)"}
	for _, c := range []struct {
		key  string
		kind results.ValueKind
		vs   []float64
		want string
	}{
		{"lock.ttl", results.Durations, nil, "TTL (s)"}, // the label keeps the unit
		{"lock.retry_delay", results.Durations, nil, "retry delay (s)"},
		{"lock.retry_delay_s", results.Numbers, nil, "retry delay (s)"}, // a duration key's seconds column
		{"nodes.node[2].min_replicas_max_lag_s", results.Numbers, nil, "nodes node[2] min replicas max lag (s)"},
		{"nodes.clock.rate_ppm", results.Numbers, []float64{0, 500}, "server clock rate (ppm, positive = fast)"},
		{"nodes.clock.rate_ppm", results.Numbers, []float64{0, 1000, 60000}, "server clock rate (%, positive = fast)"},
		{"nodes.clock.rate_ppm", results.Numbers, []float64{-2000, 0}, "server clock rate (%, positive = fast)"},
		{"nodes.clock.rate_spread_ppm", results.Numbers, []float64{5000}, "server clock rate spread (%)"},
		{"unavailable_ms_mean", results.Numbers, nil, "mean time wanted but unheld per run, retry gaps included (ms)"},
		{"unavailable_ms_mean_ci_low", results.Numbers, nil, "mean time wanted but unheld per run, retry gaps included, 95% interval low (ms)"},
		{"acquire_p99_ms", results.Numbers, nil, "mean p99 acquisition latency (ms)"},
		{"mutex_violation_rate", results.Numbers, nil, "mutex violations (fraction of runs)"},
		{"resource_ci_high", results.Numbers, nil, "resource violations, 95% interval high (fraction of runs)"},
		{"lost_updates_mean", results.Numbers, nil, "mean lost updates per run (count)"},
		{"lock.drift_factor", results.Numbers, nil, "drift allowance (share of the TTL)"}, // the label gives its own
		{"clients.count", results.Numbers, nil, "clients (processes)"},
		{"resource.msgs", results.Numbers, nil, "resource msgs"},
		{"nodes.node[2].min_replicas_max_lag", results.Durations, nil, "nodes node[2] min replicas max lag (s)"},
		{"clients.clock.offset_ms", results.Numbers, nil, "clients clock offset (ms)"},
	} {
		if got := l.axis(c.key, l.scaleOf(c.key, c.kind, c.vs, "")); got != c.want {
			t.Errorf("axis(%q, %v) = %q, want %q", c.key, c.vs, got, c.want)
		}
	}
	rate := func(vs ...float64) scale { return l.scaleOf("nodes.clock.rate_ppm", results.Numbers, vs, "") }
	assert.Equal(t, "server clock rate +2%", l.legend("nodes.clock.rate_ppm", "20000", results.Numbers, rate(0, 20000)))
	assert.Equal(t, "server clock rate +0.5%", l.legend("nodes.clock.rate_ppm", "5000", results.Numbers, rate(0, 20000)))
	assert.Equal(t, "server clock rate 0%", l.legend("nodes.clock.rate_ppm", "0", results.Numbers, rate(0, 20000)))
	assert.Equal(t, "server clock rate -0.1%", l.legend("nodes.clock.rate_ppm", "-1000", results.Numbers, rate(-1000, 0)))
	assert.Equal(t, "server clock rate +500 ppm", l.legend("nodes.clock.rate_ppm", "500", results.Numbers, rate(0, 500)))
	assert.Equal(t, "TTL 10s", l.legend("lock.ttl", "10s", results.Durations, scale{factor: 1, unit: "s"}))
	assert.Equal(t, "always", l.legend("nodes.persistence", "always", results.Words, scale{factor: 1}), "a word names its series by itself")
	assert.Equal(t, "redlock", l.legend("name", "redlock", results.Words, scale{factor: 1}))
	// a label with its own unit takes the values as the CSV has them
	own := Labels{"nodes.clock.rate_ppm": "drift (ppm)"}
	s := own.scaleOf("nodes.clock.rate_ppm", results.Numbers, []float64{0, 20000}, "")
	assert.Equal(t, "drift (ppm)", own.axis("nodes.clock.rate_ppm", s))
	assert.Equal(t, "drift 20000 (ppm)", own.legend("nodes.clock.rate_ppm", "20000", results.Numbers, s))
	assert.Equal(t, "drift", own.name("nodes.clock.rate_ppm"), "a title names the key without the label's unit")
}

// Every column a sweep writes has a human label with its unit: "fraction
// of runs" for a rate, ms, a count, ...
func TestEveryResultColumnHasALabel(t *testing.T) {
	for _, c := range slices.Concat([]string{"point", "replicate", "seed"}, results.Names(results.Summary), results.Names(results.Rates), results.Names(results.Raw)) {
		l, ok := columnLabelOf(c)
		if assert.True(t, ok, "column %s has no label", c) {
			assert.NotEmpty(t, l.unit, "column %s has no unit", c)
		}
	}
	// the analytic onsets (sweep --analytic's) and the onset curve are in
	// their key's unit
	tab := results.NewTable("t.csv", []string{"analytic_key", "key"}, [][]string{{"nodes.clock.rate_ppm", "nodes.clock.rate_ppm"}}, []int{2})
	for _, c := range slices.Concat(slices.Sorted(maps.Keys(unitFrom)), results.CurveColumns) {
		switch c {
		case "analytic_key", "key", "verdict", "analytic_formula":
			continue // words, never an axis
		}
		l := Labels{}
		if l, ok := columnLabelOf(c); ok && l.unit != "" {
			continue // a count
		}
		_, ok := columnLabelOf(c)
		assert.True(t, ok, "column %s has no label", c)
		assert.Contains(t, l.axis(c, l.scaleOf(c, results.Numbers, []float64{20000}, impliedKey(tab, c))), "(%, positive = fast)", "column %s", c)
		assert.Contains(t, l.axis(c, l.scaleOf(c, results.Durations, nil, "")), "(s)", "column %s", c)
	}
}

// Every column the sweep writes with an interval beside it is drawn with
// that interval: results.IntervalColumns names the columns the sweep writes, and the
// caption names a method for each.
func TestFindsEverySweepInterval(t *testing.T) {
	cols := map[string]bool{}
	all := slices.Concat(results.Names(results.Summary), results.Names(results.Rates))
	for _, c := range all {
		cols[c] = true
	}
	n := 0
	for _, c := range all {
		if !strings.HasSuffix(c, "_rate") && !cols[c+"_ci_low"] {
			continue // no interval: a count, a maximum, an interval's end
		}
		low, high := results.IntervalColumns(c)
		assert.True(t, cols[low] && cols[high], "%s: plot looks for %s and %s", c, low, high)
		_, many := IntervalMethod(c)
		assert.NotContains(t, many, "from the CSV's", "%s: the caption does not name the sweep's method", c)
		n++
	}
	assert.GreaterOrEqual(t, n, 10, "the rates and the averaged columns")
}
