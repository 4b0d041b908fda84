package scenarios

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/client"
)

// TestK8sClockStepChangesNothing: "the implementation is tolerant to
// arbitrary clock skew" (client-go's leaderelection doc.go). k8s-clock-step
// gives the same report, to the nanosecond, without its clock steps.
func TestK8sClockStepChangesNothing(t *testing.T) {
	sc := loadLibrary(t, "k8s-clock-step")
	without := sc.Config
	without.Faults = slices.DeleteFunc(slices.Clone(without.Faults), func(f model.Fault) bool { return f.Kind == model.ClockStep })
	require.Len(t, without.Faults, len(sc.Config.Faults)-4, "the scenario steps four clocks")
	for seed := uint64(1); seed <= 5; seed++ {
		with, err := model.RunFast(sc.Config, seed)
		require.NoError(t, err)
		plain, err := model.RunFast(without, seed)
		require.NoError(t, err)
		assert.Equal(t, plain.Report, with.Report, "seed %d", seed)
		assert.Positive(t, with.Report.AcquireSuccesses, "seed %d", seed)
	}
}

// TestDynamoDBWaiterClockDecides: the same scenario with c2's clock at the
// right rate is safe; the fast clock alone makes the violation.
func TestDynamoDBWaiterClockDecides(t *testing.T) {
	sc := loadLibrary(t, "dynamodb-fast-waiter")
	honest := sc.Config
	honest.Clients = slices.Clone(honest.Clients)
	honest.Clients[1].Clock.RatePPM = 0
	for seed := uint64(1); seed <= 5; seed++ {
		r, err := model.RunFast(honest, seed)
		require.NoError(t, err)
		assert.Zero(t, r.Report.MutexViolations, "seed %d: with honest clocks the waiter takes over after the holder's belief ends", seed)
		fast, err := model.RunFast(sc.Config, seed)
		require.NoError(t, err)
		assert.Positive(t, fast.Report.MutexViolations, "seed %d", seed)
	}
}

// TestLeaguePresets: the presets of the locks people pick instead of
// Redlock load with the documented defaults.
func TestLeaguePresets(t *testing.T) {
	load := func(lock string) client.LockConfig {
		sc, err := Parse("p.toml", []byte("duration = \"30s\"\n[lock]\n"+lock+"[nodes]\ncount = 2\n"))
		require.NoError(t, err, lock)
		return sc.Config.Lock
	}
	r := load("preset = \"redisson\"\nttl = \"30s\"\n")
	assert.Equal(t, client.Failover, r.Algorithm)
	assert.Equal(t, client.Watchdog, r.Renewal)
	assert.Equal(t, 30*time.Second, r.TTL)
	assert.Zero(t, r.WaitReplicas)
	assert.Equal(t, 1, load("preset = \"redisson-wait\"\nttl = \"30s\"\n").WaitReplicas)
	k := load("preset = \"k8s-defaults\"\n")
	assert.Equal(t, client.K8sLease, k.Algorithm)
	assert.Equal(t, []time.Duration{15 * time.Second, 10 * time.Second, 2 * time.Second}, []time.Duration{k.TTL, k.RenewDeadline, k.KeepAlive})
	k = load("preset = \"k8s-defaults\"\nrenew_deadline = \"8s\"\n")
	assert.Equal(t, 8*time.Second, k.RenewDeadline, "a key overrides the preset")
}

// TestConsulLockDelay: "a lock is released only after twice the session
// TTL plus the lock-delay" (consul#4508: 35 s for a 10 s TTL). From c1's
// acquisition, where it stops, to c2's: 2 × TTL + lock-delay, less what
// of a renewal period had passed since c1's last renewal, plus at most
// one 5 s retry of api.Lock's.
func TestConsulLockDelay(t *testing.T) {
	sc := loadLibrary(t, "consul-lock-delay")
	for seed := uint64(1); seed <= 5; seed++ {
		r, err := model.RunTraced(sc.Config, seed)
		require.NoError(t, err)
		first := map[string]time.Duration{}
		for _, h := range r.History.Holds {
			if at, ok := first[h.Client]; !ok || h.Start < at {
				first[h.Client] = h.Start
			}
		}
		require.Contains(t, first, "c1")
		require.Contains(t, first, "c2")
		assertConsulRelease(t, sc.Config.Lock, first["c2"]-first["c1"], seed)
	}
}

// TestConsulHolderCrash: a holder that crashes as it acquires costs 2 ×
// TTL + lock-delay of availability (consul#4508), less what of a renewal
// period had passed since its last renewal, plus at most one 5 s retry of
// api.Lock's; the crashed holder believes nothing, so nobody overlaps.
func TestConsulHolderCrash(t *testing.T) {
	sc := loadLibrary(t, "consul-holder-crash")
	for seed := uint64(1); seed <= 5; seed++ {
		r, err := model.RunFast(sc.Config, seed)
		require.NoError(t, err)
		assert.Zero(t, r.Report.MutexViolations, "seed %d", seed)
		assertConsulRelease(t, sc.Config.Lock, r.Report.LongestOutage, seed)
	}
}

// assertConsulRelease: a lock whose holder stopped renewing was free
// again after d, which is consul's 2 × TTL + lock-delay (consul#4508),
// less at most half a TTL (what of a renewal period had passed since the
// last renewal), plus at most one 5 s retry of api.Lock's.
func assertConsulRelease(t *testing.T, l client.LockConfig, d time.Duration, seed uint64) {
	t.Helper()
	want := 2*l.TTL + l.LockDelay
	assert.GreaterOrEqual(t, d, want-l.TTL/2, "seed %d", seed)
	assert.LessOrEqual(t, d, want+5*time.Second+100*time.Millisecond, "seed %d", seed)
}

// pauseFor is library scenario name with its one on-acquisition pause
// lasting d.
func pauseFor(t *testing.T, name string, d time.Duration) model.Config {
	t.Helper()
	cfg := loadLibrary(t, name).Config
	cfg.Faults = slices.Clone(cfg.Faults)
	i := slices.IndexFunc(cfg.Faults, func(f model.Fault) bool { return f.Kind == model.Pause && f.OnAcquire })
	require.GreaterOrEqual(t, i, 0, "%s pauses its holder on acquisition", name)
	cfg.Faults[i].For = d
	return cfg
}

// pauseDecides: over five seeds, the holder paused for short overlaps
// nobody and loses nothing, and paused for long overlaps and loses
// updates; it returns long's reports.
func pauseDecides(t *testing.T, name string, short, long time.Duration) []check.Report {
	t.Helper()
	var out []check.Report
	for seed := uint64(1); seed <= 5; seed++ {
		r, err := model.RunFast(pauseFor(t, name, short), seed)
		require.NoError(t, err)
		assert.Zero(t, r.Report.MutexViolations+r.Report.LostUpdates, "%s, seed %d: a pause of %v", name, seed, short)
		assert.Positive(t, r.Report.AcquireSuccesses, "%s, seed %d", name, seed)
		r, err = model.RunFast(pauseFor(t, name, long), seed)
		require.NoError(t, err)
		assert.Positive(t, r.Report.MutexViolations, "%s, seed %d: a pause of %v", name, seed, long)
		out = append(out, r.Report)
	}
	return out
}

// TestZooKeeperSessionPause: the contract's "a holder pause longer than the
// session timeout is a violation, and the zxid fences it", from the
// checker's counts. The same holder paused for half its session timeout
// (less than the two thirds after which Curator suspends) overlaps nobody;
// paused twice the timeout it overlaps and loses updates; with the czxid
// checked at the resource it overlaps, and every stale write is rejected.
func TestZooKeeperSessionPause(t *testing.T) {
	timeout := loadLibrary(t, "zookeeper-session-pause").Config.Lock.TTL
	for i, r := range pauseDecides(t, "zookeeper-session-pause", timeout/2, 2*timeout) {
		assert.Positive(t, r.LostUpdates, "seed %d", i+1)
	}
	for i, r := range pauseDecides(t, "zookeeper-session-fencing", timeout/2, 2*timeout) {
		assert.Zero(t, r.LostUpdates+r.StaleWritesAccepted, "seed %d: the zxid fences every stale write", i+1)
		assert.Positive(t, r.StaleWritesRejected, "seed %d: the paused holder's write is rejected", i+1)
	}
}

// TestK8sLeaderPause: the contract's "a leader pause past the lease is a
// violation", from the checker's counts: the leader paused for half its
// renew deadline keeps the lease (candidates wait a whole lease duration
// after the last renewal they saw); paused past the lease duration it is
// overtaken, wakes still leading and loses updates.
func TestK8sLeaderPause(t *testing.T) {
	lock := loadLibrary(t, "k8s-leader-pause").Config.Lock
	for i, r := range pauseDecides(t, "k8s-leader-pause", lock.RenewDeadline/2, lock.TTL+5*time.Second) {
		assert.Positive(t, r.LostUpdates, "seed %d", i+1)
	}
}

// TestEveryPresetHasARow: README.md's table of presets says what each one
// is.
func TestEveryPresetHasARow(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	require.NoError(t, err)
	for _, name := range client.PresetNames() {
		assert.Contains(t, string(raw), "\n| `"+name+"` | ", "README.md's preset table has no row for %s", name)
	}
}

// TestOwnTimesPresetWithAnotherAlgorithm: k8s-defaults and consul-defaults
// are their algorithm's own times, which another algorithm would silently
// drop: the file is refused at the preset, naming both algorithms.
func TestOwnTimesPresetWithAnotherAlgorithm(t *testing.T) {
	oneError(t, k8s+"preset = \"consul-defaults\"\n", 4, "lock.preset",
		"consul-defaults is consul's defaults, and this lock's algorithm is k8s-lease: drop one of the two")
	oneError(t, base+"preset = \"k8s-defaults\"\nalgorithm = \"redlock\"\n", 4, "lock.preset",
		"k8s-defaults is k8s-lease's defaults, and this lock's algorithm is redlock: drop one of the two")
	_, err := Parse("ok.toml", []byte(base+"preset = \"redsync\"\nalgorithm = \"single\"\n"))
	assert.NoError(t, err, "a Redis preset goes with another Redis algorithm")
}
