package sweepfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// The caption names the --where selection and the keys that hold one value
// in every row drawn, but not the axes, the series, a key that varies, or
// a key left to the base.
func TestSelection(t *testing.T) {
	tab := results.NewTable("t.csv",
		[]string{"point", "lock.ttl", "lock.ttl_s", "nodes.clock.rate_ppm", "nodes.count", "resource.mode", "clients.count", "runs"},
		[][]string{
			{"0", "1s", "1", "0", "5", "fencing", "", "20"},
			{"1", "2s", "2", "0", "5", "fencing", "", "20"},
			{"2", "1s", "1", "10000", "5", "none", "", "20"},
			{"3", "2s", "2", "10000", "3", "none", "", "20"},
		}, []int{2, 3, 4, 5})
	where, err := results.ParseWhere([]string{"resource.mode=none,fencing"})
	require.NoError(t, err)
	s := Spec{X: "lock.ttl", Y: "runs", Where: where}
	assert.Equal(t, "Selected: resource.mode=fencing,none.", selection(tab, s, []int{0, 1, 2, 3}),
		"nodes.clock.rate_ppm and nodes.count vary; clients.count is the base's")
	assert.Equal(t, "Selected: resource.mode=fencing. Fixed: nodes.clock.rate_ppm=0, nodes.count=5.", selection(tab, s, []int{0, 1}),
		"the values the rows drawn have")
	s.Series, s.Where = "nodes.clock.rate_ppm", nil
	assert.Equal(t, "Fixed: nodes.count=5, resource.mode=fencing.", selection(tab, s, []int{0, 1}))
	assert.Equal(t, "", selection(tab, s, []int{0, 1, 2, 3}))
}

// A key's seconds column (lock.ttl_s) is not stamped beside its key.
func TestSelectionSkipsSecondsTwin(t *testing.T) {
	tab := results.NewTable("t.csv", []string{"lock.ttl", "lock.ttl_s", "nodes.count", "runs"},
		[][]string{{"1s", "1", "3", "20"}, {"1s", "1", "5", "20"}}, []int{2, 3})
	assert.Equal(t, "Fixed: lock.ttl=1s.", selection(tab, Spec{X: "nodes.count", Y: "runs"}, []int{0, 1}))
	assert.Equal(t, []string{"nodes.count"}, tab.DifferingKeys(0, 1))
}

// The caption reads the runs column as a count of runs: a damaged one is
// refused with file:line, by a line figure and by a heatmap, where "-3 to
// 20 runs per point" was drawn under the figure.
func TestRunsColumnIsACount(t *testing.T) {
	for _, c := range []struct{ runs, want string }{
		{"-3", `t.csv:3: column "runs" (the runs behind each point, for the caption) must be a count, a whole number from 0, got -3`},
		{"2.5", `t.csv:3: column "runs" (the runs behind each point, for the caption) must be a count, a whole number from 0, got 2.5`},
	} {
		tab := results.NewTable("t.csv", []string{"lock.ttl", "nodes.count", "runs", "mutex_violation_rate"},
			[][]string{{"1s", "3", "20", "0"}, {"2s", "5", c.runs, "0.5"}}, []int{2, 3})
		_, err := Lines(tab, Spec{X: "lock.ttl", Y: "mutex_violation_rate"})
		require.Error(t, err)
		assert.Equal(t, c.want, err.Error())
		_, err = Heatmap(tab, Spec{X: "lock.ttl", Y: "nodes.count", Z: "mutex_violation_rate"})
		require.Error(t, err)
		assert.Equal(t, c.want, err.Error())
	}
}
