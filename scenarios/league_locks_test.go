package scenarios

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
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
