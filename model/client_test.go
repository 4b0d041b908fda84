package model_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/network"
)

// A critical section longer than the TTL stays safe when the client extends
// the lock while it works, and stops being safe when the extensions run out.
func TestExtensionKeepsALongCriticalSectionSafe(t *testing.T) {
	cfg := redlockWorld(2)
	cfg.Lock.TTL = 2 * s
	cfg.Lock.Retries = 1000
	cfg.Lock.RetryDelay, cfg.Lock.RetryJitter = 50*ms, 25*ms
	cfg.Work.CriticalSection = 5 * s
	cfg.Work.Iterations = 1
	cfg.Duration = 20 * s
	cfg.Lock.Extend, cfg.Lock.ExtendAt, cfg.Lock.MaxExtensions = true, 0.5, 10
	r := expectOutcome(t, cfg, "safe", "safe")
	assert.Equal(t, 2, r.Report.WritesAccepted)
	assert.Equal(t, 2, r.FinalLen, "both updates survive")

	// With too few extensions the holder's belief ends (at its validity)
	// before it writes; the other client takes the lock and the late write
	// is stale.
	cfg.Lock.MaxExtensions = 1
	r = expectOutcome(t, cfg, "safe", "violation")
	assert.Positive(t, r.Report.StaleWritesAccepted)
}

// antirez's advice: check the remaining validity right before writing.
// After a GC pause the check catches the expired lock and the write is
// abandoned; the mutual-exclusion violation (the belief during the pause)
// remains, because nothing can look at a clock while frozen.
func TestRecheckBeforeWriteAbandonsTheStaleWrite(t *testing.T) {
	cfg := gcPause()
	cfg.Work.RecheckBeforeWrite = true
	r := expectOutcome(t, cfg, "violation", "safe")
	assert.Equal(t, 1, r.Report.WritesAccepted, "only c2 writes")
}

// The library presets are valid and safe in the fault-free world, and the
// sequential one (redlock-py asks nodes one by one) takes longer to acquire
// than the parallel ones when nobody contends.
func TestPresets(t *testing.T) {
	p50 := map[string]float64{}
	for _, name := range client.PresetNames() {
		t.Run(name, func(t *testing.T) {
			lock, err := client.Preset(name, 10*s)
			require.NoError(t, err)
			cfg := redlockWorld(3)
			cfg.Lock = lock
			r := expectOutcome(t, cfg, "safe", "safe")
			assert.Greater(t, r.Report.AcquireSuccesses, 50)
			cfg.Clients = cfg.Clients[:1]
			p50[name] = float64(run(t, cfg, 1).Report.AcquireP50)
		})
	}
	assert.Greater(t, p50["redlock-py"], 2.5*p50["redsync"], "one by one is slower than in parallel")
	assert.Greater(t, p50["redlock-py"], 2.5*p50["node-redlock"])
	_, err := client.Preset("redissen", s)
	assert.ErrorContains(t, err, `unknown preset "redissen" (valid: consul-defaults, k8s-defaults, node-redlock, node-redlock-first-attempt-expiry, node-redlock-using, redisson, redisson-wait, redlock-py, redlock-py-connected-quorum, redlock-py-drift-sign, redsync, redsync-fail-fast)`)
}

// The single-instance lock is safe while its one node lives, and loses
// mutual exclusion when the node restarts without persistence.
func TestSingleInstance(t *testing.T) {
	cfg := redlockWorld(2)
	cfg.Nodes = cfg.Nodes[:1]
	cfg.Lock.Algorithm = client.Single
	expectOutcome(t, cfg, "safe", "safe")

	cfg.Work.CriticalSection = 5 * s
	cfg.Work.Iterations = 1
	client_(&cfg, "c2").StartIn = 2 * s
	cfg.Faults = []model.Fault{{At: s, Kind: model.Crash, Target: "n1"}}
	expectOutcome(t, cfg, "violation", "violation")
}

// A leader election stalls the consensus store: requests wait, leases are
// renewed when a leader is back, nobody loses the lock to the election
// itself, and the stall shows as an outage.
func TestLeaseLockAcrossAnElection(t *testing.T) {
	cfg := leaseWorld()
	cfg.Faults = []model.Fault{{At: 5 * s, Kind: model.Election, For: 3 * s}}
	r := expectOutcome(t, cfg, "safe", "safe")
	assert.Greater(t, r.Report.LongestOutage, 2*s, "no one gets the lock while the store has no leader")
	assert.Greater(t, r.Report.AcquireSuccesses, 10)
}

// Random pauses arrive as a Poisson process at the configured mean
// interval, with lengths from the configured distribution, drawn from the
// client's own stream: turning them on for c2 leaves c1's pauses alone.
func TestRandomPauses(t *testing.T) {
	cfg := redlockWorld(2)
	cfg.Duration = 200 * s
	cfg.Clients[0].Pauses = model.PauseConfig{Every: 2 * s, Length: network.Constant(10 * ms)}
	pausesOf := func(r model.Result, who string) []time.Duration {
		var at []time.Duration
		for _, rec := range r.Trace {
			if rec.Actor == who && rec.Kind == "pauses" {
				at = append(at, rec.At)
			}
		}
		return at
	}
	r, err := model.RunTraced(cfg, 1)
	require.NoError(t, err)
	c1 := pausesOf(r, "c1")
	// 100 expected; a Poisson count is within ±30 of it with overwhelming
	// probability, and the seed is fixed.
	assert.InDelta(t, 100, len(c1), 30)
	assert.Empty(t, pausesOf(r, "c2"))

	cfg.Clients[1].Pauses = model.PauseConfig{Every: s, Length: network.Constant(10 * ms)}
	r2, err := model.RunTraced(cfg, 1)
	require.NoError(t, err)
	assert.Equal(t, c1, pausesOf(r2, "c1"), "c2's pauses do not move c1's")
	assert.NotEmpty(t, pausesOf(r2, "c2"))
}

// redsync's WithFailFast returns as soon as a quorum has answered: with one
// of five nodes 40 ms away, an uncontended acquisition takes a round trip to
// the near nodes rather than to the far one, and stays safe.
func TestFailFastDoesNotWaitForTheSlowestNode(t *testing.T) {
	p50 := map[string]time.Duration{}
	for _, name := range []string{"redsync", "redsync-fail-fast"} {
		lock, err := client.Preset(name, 10*s)
		require.NoError(t, err)
		cfg := redlockWorld(1)
		cfg.Lock = lock
		cfg.Network.Links = []model.LinkConfig{
			{From: "c1", To: "n5", Latency: network.Constant(40 * ms)},
			{From: "n5", To: "c1", Latency: network.Constant(40 * ms)},
		}
		r := expectOutcome(t, cfg, "safe", "safe")
		p50[name] = r.Report.AcquireP50
	}
	assert.Greater(t, p50["redsync"], 80*ms, "without fail-fast the far node's round trip counts")
	assert.Less(t, p50["redsync-fail-fast"], 5*ms, "with fail-fast the near quorum decides")
}

// Critical sections drawn from a distribution vary from hold to hold, from
// the client's own stream, and average what the distribution says; a
// distribution that is a constant gives the run the fixed time gives.
func TestCriticalSectionFromADistribution(t *testing.T) {
	cfg := redlockWorld(1)
	cfg.Duration = 120 * s
	cfg.Work.CriticalSectionDist = network.Uniform(0, 2*s)
	r, err := model.RunTraced(cfg, 1) // narrated, for its holds
	require.NoError(t, err)
	var total time.Duration
	lengths := map[time.Duration]bool{}
	for _, h := range r.History.Holds {
		total += h.End - h.Start
		lengths[(h.End-h.Start)/(100*ms)] = true
	}
	n := time.Duration(len(r.History.Holds))
	require.Greater(t, len(r.History.Holds), 30)
	assert.InDelta(t, float64(s), float64(total/n), float64(200*ms), "holds average the uniform 0–2 s section's mean")
	assert.Greater(t, len(lengths), 10, "hold lengths vary")

	fixed := redlockWorld(2)
	fixed.Work.CriticalSection = 300 * ms
	constant := fixed
	constant.Work.CriticalSectionDist = network.Constant(300 * ms)
	assert.Equal(t, run(t, fixed, 3).Report, run(t, constant, 3).Report)
}

// Without faults, both renewals keep a lock through a critical section
// three times its TTL, so the other client waits; without renewal the key
// expires under its holder, which stops believing but writes late.
func TestRenewalKeepsALongCriticalSection(t *testing.T) {
	cfg := redlockWorld(2)
	cfg.Nodes = cfg.Nodes[:1]
	cfg.Lock.Algorithm = client.Single
	cfg.Lock.TTL = 3 * s
	cfg.Lock.Retries = 1000
	cfg.Work.CriticalSection = 9 * s
	cfg.Work.Iterations = 1
	cfg.Duration = 30 * s
	expectOutcome(t, cfg, "safe", "violation")
	for _, renewal := range []client.Renewal{client.Watchdog, client.AutoExtend} {
		cfg.Lock.Renewal, cfg.Lock.ExtendThreshold = renewal, 500*ms
		r := expectOutcome(t, cfg, "safe", "safe")
		assert.Equal(t, 2, r.Report.WritesAccepted, renewal.String())
		assert.Equal(t, 2, r.FinalLen, "%v: both updates survive", renewal)
	}
}

// A holder that crashes for good as it acquires ends its belief as it
// dies, so it overlaps nobody, and its lock stays taken until the store
// expires its lease: the outage after a holder's crash is the lease's
// TTL, give or take a keep-alive, where a holder paused to the end of the
// run would still believe and overlap every later holder.
func TestClientCrashOnAcquireEndsItsBelief(t *testing.T) {
	cfg := leaseWorld()
	cfg.Faults = []model.Fault{{At: 5 * s, Kind: model.Crash, Target: "c1", NoRestart: true, OnAcquire: true}}
	r, err := model.RunTraced(cfg, 1)
	require.NoError(t, err)
	assert.Zero(t, r.Report.MutexViolations, "a crashed holder believes nothing")
	var crashed time.Duration = -1
	for _, rec := range r.Trace {
		if rec.Actor == "c1" && rec.Kind == "crashes" {
			crashed = rec.At
		}
	}
	require.GreaterOrEqual(t, crashed, 5*s, "c1 crashes at its first acquisition after 5 s")
	var next time.Duration = -1
	for _, h := range r.History.Holds {
		if h.Client != "c1" && h.Start >= crashed && (next < 0 || h.Start < next) {
			next = h.Start
		}
		if h.Client == "c1" {
			assert.LessOrEqual(t, h.Start, crashed, "c1 holds nothing after its crash")
		}
	}
	require.Positive(t, next, "another client holds after the lease expires")
	assert.InDelta(t, cfg.Lock.TTL.Seconds(), (next - crashed).Seconds(), cfg.Lock.KeepAlive.Seconds()+0.5)

	cfg.Faults[0].NoRestart = false
	_, err = model.Run(cfg, 1)
	assert.ErrorContains(t, err, "a crashed client does not restart")
}
