package whatif

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/scenarios"
)

func replay(sets []string) string { return strings.Join(sets, " ") }

func rowsByName(t *testing.T, rows []Row) map[string]Row {
	t.Helper()
	m := map[string]Row{}
	for _, r := range rows {
		m[r.Remedy] = r
	}
	return m
}

// The debate's argument in one table: Kleppmann's gc-pause violates both
// verdicts; fencing (Kleppmann) and compare-and-set (antirez) make the
// resource safe but cannot stop two clients believing they hold the lock.
func TestGCPauseTable(t *testing.T) {
	rows, err := Table("gc-pause", nil, 1, scenarios.Remedies, replay)
	require.NoError(t, err)
	m := rowsByName(t, rows)
	base := m["as written"]
	assert.False(t, base.Result.MutexSafe())
	assert.False(t, base.Result.ResourceSafe())
	assert.Positive(t, base.Result.Report.LostUpdates)
	for _, name := range []string{"fencing", "cas"} {
		r := m[name]
		require.True(t, r.Applies, name)
		assert.True(t, r.Result.ResourceSafe(), name)
		assert.Equal(t, base.Result.MutexSafe(), r.Result.MutexSafe(), "%s leaves the mutex verdict alone", name)
		assert.Equal(t, base.Result.Report.MutexViolations, r.Result.Report.MutexViolations, name)
		assert.Positive(t, r.Result.Report.StaleWritesRejected, "%s rejects c1's write", name)
	}
	assert.Equal(t, []string{"resource.mode=fencing"}, m["fencing"].Sets, "gc-pause already takes INCR tokens")
	for _, name := range []string{"monotonic", "delayed-restart", "fsync-always", "wait"} {
		assert.False(t, m[name].Applies, name)
		assert.NotEmpty(t, m[name].Why, name)
	}
}

// The persistence remedies make restart-no-persistence safe, and delayed
// restart pays in availability.
func TestRestartTable(t *testing.T) {
	rows, err := Table("restart-no-persistence", nil, 1, scenarios.Remedies, replay)
	require.NoError(t, err)
	m := rowsByName(t, rows)
	require.False(t, m["as written"].Result.MutexSafe())
	for _, name := range []string{"delayed-restart", "fsync-always"} {
		r := m[name]
		require.True(t, r.Applies, name)
		assert.True(t, r.Result.MutexSafe(), name)
		assert.True(t, r.Result.ResourceSafe(), name)
	}
	assert.Greater(t, m["delayed-restart"].Result.Report.LongestOutage, m["as written"].Result.Report.LongestOutage)
	assert.Equal(t, "faults[4].for", strings.SplitN(m["delayed-restart"].Sets[0], "=", 2)[0])
}

// A node's own persistence setting wins over [nodes], so fsync-always
// must override it too.
func TestFsyncAlwaysReachesNodeTables(t *testing.T) {
	rows, err := Table("aof-everysec-power-loss", nil, 1, []scenarios.Remedy{scenarios.Remedies[4]}, replay)
	require.NoError(t, err)
	assert.Contains(t, rows[1].Sets, "nodes.node[0].persistence=always")
	assert.True(t, rows[1].Result.MutexSafe())
}

func TestMonotonicAndWait(t *testing.T) {
	rows, err := Table("client-clock-step-back", nil, 1, []scenarios.Remedy{scenarios.Remedies[2]}, replay)
	require.NoError(t, err)
	assert.Equal(t, []string{"lock.elapsed_clock=monotonic"}, rows[1].Sets)
	assert.True(t, rows[1].Result.MutexSafe())

	rows, err = Table("failover-race", nil, 1, []scenarios.Remedy{scenarios.Remedies[5]}, replay)
	require.NoError(t, err)
	assert.True(t, rows[1].Result.MutexSafe(), "with WAIT the unreplicated lock is never used")
	assert.Zero(t, rows[1].Result.Report.AcquireSuccesses, "with one replica, nobody can lock after the failover")
}

// The table reads the scenario once: a remedy's overrides go on the
// loaded Base after the user's own, and its replay command lists both.
func TestRemedyAfterUserOverrides(t *testing.T) {
	rows, err := Table("gc-pause", []string{"resource.mode=compare-and-set"}, 1, scenarios.Remedies[:2], replay)
	require.NoError(t, err)
	assert.False(t, rows[2].Applies, "cas on a resource that compares already")
	require.True(t, rows[1].Applies)
	assert.Equal(t, "resource.mode=compare-and-set resource.mode=fencing", rows[1].Replay)
	assert.True(t, rows[1].Result.ResourceSafe())
}
