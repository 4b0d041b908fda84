package model_test

// The rows of the table in the domain notes (§8), each tied to the sentence
// of the debate it checks, in the style of raft_paper_test.go. Each scenario
// is built so that its outcome follows from the mechanism for every seed;
// expectOutcome runs 20 seeds.

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/network"
)

// Row 1. "Redlock is safe as long as clocks advance at roughly the same
// rate" (antirez): no faults, clock rate errors well inside the allowance.
func TestBaselineIsSafe(t *testing.T) {
	cfg := redlockWorld(3)
	for i := range cfg.Nodes {
		cfg.Nodes[i].RateSpread = 100
	}
	for i := range cfg.Clients {
		cfg.Clients[i].RateSpread = 100
	}
	r := expectOutcome(t, cfg, "safe", "safe")
	assert.Greater(t, r.Report.AcquireSuccesses, 100, "the clients should take turns many times in a minute")
	assert.Equal(t, r.Report.WritesAccepted, r.FinalLen, "every accepted write survives")
}

// failoverWorld: one master (n1), two asynchronous replicas, a sentinel.
// The master dies before the replication of c1's lock; c2 comes later.
func failoverWorld() model.Config {
	cfg := redlockWorld(2)
	cfg.Nodes = cfg.Nodes[:3]
	cfg.Lock.Algorithm = client.Failover
	cfg.Lock.TTL = 60 * s
	cfg.Lock.WaitTimeout = s
	cfg.Sentinel.DownAfter = 5 * s
	for i := 1; i < 3; i++ {
		cfg.Nodes[i].Redis.ReplicaOf = "n1"
	}
	cfg.Nodes[0].Redis.ReplicationDelay = s // the lock is still unreplicated at 0.5s
	cfg.Work.CriticalSection = 15 * s
	cfg.Work.Iterations = 1
	// c1 starts once the replicas have synced, so that its SET travels the
	// replication stream (with its lag) rather than a full sync.
	client_(&cfg, "c1").StartIn = 100 * ms
	client_(&cfg, "c2").StartIn = 10 * s
	cfg.Faults = []model.Fault{{At: 500 * ms, Kind: model.Crash, Target: "n1", NoRestart: true}}
	return cfg
}

// Row 2. "Client A acquires the lock in the master. The master crashes
// before the write to the key is transmitted to the replica. The replica
// gets promoted to master. Client B acquires the lock ... SAFETY VIOLATION!"
// (the distlock page, on why Redlock exists).
func TestFailoverRace(t *testing.T) {
	r := expectOutcome(t, failoverWorld(), "violation", "violation")
	assert.Equal(t, 1, r.Report.LostUpdates)
}

// Row 2, variant: "WAIT ... does not make Redis a CP system", but a lock
// used only after a replica acknowledged it survives the failover.
func TestFailoverWithWaitIsSafe(t *testing.T) {
	cfg := failoverWorld()
	cfg.Lock.WaitReplicas = 1
	r := expectOutcome(t, cfg, "safe", "safe")
	assert.Positive(t, r.Report.AcquireSuccesses, "after the failover the clients lock on the new master")
}

// Row 2, variant: "safe unless the promoted replica is stale". WAIT 1 is
// satisfied by n3, but the sentinel promotes n2, which the replication
// stream no longer reaches.
func TestFailoverWaitWithStaleReplicaViolates(t *testing.T) {
	cfg := failoverWorld()
	cfg.Lock.WaitReplicas = 1
	cfg.Nodes[0].Redis.ReplicationDelay = 0
	cfg.Faults = []model.Fault{cut(50*ms, "n1", "n2"), {At: s, Kind: model.Crash, Target: "n1", NoRestart: true}}
	expectOutcome(t, cfg, "violation", "violation")
}

// partitionedPair: c1 reaches only n1,n2,n3 and c2 only n3,n4,n5, so that a
// fault on n3 decides whether both can hold a majority.
func partitionedPair() model.Config {
	cfg := redlockWorld(2)
	cfg.Work.CriticalSection = 8 * s
	cfg.Work.Iterations = 1
	client_(&cfg, "c2").StartIn = 3 * s
	cfg.Duration = 30 * s
	cfg.Faults = []model.Fault{cut(0, "c1", "n4"), cut(0, "c1", "n5"), cut(0, "c2", "n1"), cut(0, "c2", "n2")}
	return cfg
}

// Row 3. "Client 1 acquires lock on nodes A, B, C. Due to a network issue,
// D and E cannot be reached. The clock on node C jumps forward, causing the
// lock to expire. Client 2 acquires lock on nodes C, D, E ... Clients 1 and
// 2 now both believe they hold the lock." (Kleppmann)
func TestClockJumpOnANodeOfTheQuorum(t *testing.T) {
	cfg := partitionedPair()
	cfg.Faults = append(cfg.Faults, model.Fault{At: 2 * s, Kind: model.ClockStep, Target: "n3", By: 9 * s})
	expectOutcome(t, cfg, "violation", "violation")
}

// Row 4. "if C crashes before persisting the lock to disk, and immediately
// restarts" (Kleppmann) — without persistence the restarted node forgets.
func TestRestartWithoutPersistence(t *testing.T) {
	cfg := partitionedPair()
	cfg.Faults = append(cfg.Faults, model.Fault{At: 2 * s, Kind: model.Crash, Target: "n3"})
	expectOutcome(t, cfg, "violation", "violation")
}

// Row 4, variant: "we just need to make an instance, after a crash,
// unavailable for at least a bit more than the max TTL" (distlock page):
// safe, at the price of an outage.
func TestDelayedRestartIsSafeButCostsAvailability(t *testing.T) {
	cfg := partitionedPair()
	cfg.Faults = append(cfg.Faults, model.Fault{At: 2 * s, Kind: model.Crash, Target: "n3", For: 11 * s})
	r := expectOutcome(t, cfg, "safe", "safe")
	// c1 released at about 8s; c2 could not get n3 until it came back at 13s.
	assert.Greater(t, r.Report.Unavailable, 4*s)
	assert.Less(t, r.Report.Unavailable, 6*s)
}

// Row 4, variant: AOF with fsync=always survives even a power loss.
func TestAOFAlwaysSurvivesPowerLoss(t *testing.T) {
	cfg := partitionedPair()
	node(&cfg, "n3").Redis.Persistence = redis.AOFAlways
	cfg.Faults = append(cfg.Faults, model.Fault{At: 2 * s, Kind: model.PowerLoss, Target: "n3"})
	expectOutcome(t, cfg, "safe", "safe")
}

// Row 5. "fsync=everysec ... in case of a power outage we may lose up to
// one second of writes" (distlock page). The key was set at about 1ms; the
// first fsync comes at 1s; the power goes at 0.5s.
func TestAOFEverySecPowerLossInTheWindow(t *testing.T) {
	cfg := partitionedPair()
	node(&cfg, "n3").Redis.Persistence = redis.AOFEverySec
	cfg.Faults = append(cfg.Faults, model.Fault{At: 500 * ms, Kind: model.PowerLoss, Target: "n3"})
	expectOutcome(t, cfg, "violation", "violation")
}

// Row 5, variant: a process crash leaves the AOF in the page cache.
func TestAOFEverySecProcessCrashIsSafe(t *testing.T) {
	cfg := partitionedPair()
	node(&cfg, "n3").Redis.Persistence = redis.AOFEverySec
	cfg.Faults = append(cfg.Faults, model.Fault{At: 500 * ms, Kind: model.Crash, Target: "n3"})
	expectOutcome(t, cfg, "safe", "safe")
}

// pauseInFlight: c1 sends its SETs at 1s and freezes 100µs later, before
// any reply can arrive (latency ≥ 500µs), for longer than the TTL. c2 comes
// at 12s, after every key has expired.
func pauseInFlight() model.Config {
	cfg := redlockWorld(2)
	cfg.Work.CriticalSection = 8 * s
	cfg.Work.Iterations = 1
	cfg.Duration = 40 * s
	client_(&cfg, "c1").StartIn = s
	client_(&cfg, "c2").StartIn = 12 * s
	cfg.Faults = []model.Fault{{At: s + 100*time.Microsecond, Kind: model.Pause, Target: "c1", For: 15 * s}}
	return cfg
}

// Row 6. "the algorithm checks the elapsed time after the replies arrive
// ... so the client will realize the lock is no longer valid" (antirez).
func TestPauseWhileRepliesInFlightIsCaughtByTheValidityCheck(t *testing.T) {
	expectOutcome(t, pauseInFlight(), "safe", "safe")
}

// Row 6, variant: without the check, the client trusts stale OKs.
func TestPauseWhileRepliesInFlightWithoutTheCheck(t *testing.T) {
	cfg := pauseInFlight()
	cfg.Lock.ValidityCheck = false
	expectOutcome(t, cfg, "violation", "violation")
}

// gcPause: c1 gets the lock and its token (33), reads, and freezes for 15s
// in the middle of its critical section; its keys expire at 10s; c2 comes
// at 11s, gets token 34, writes; c1 wakes and writes.
func gcPause() model.Config {
	cfg := redlockWorld(2)
	cfg.Work.CriticalSection = 2 * s
	cfg.Work.Iterations = 1
	cfg.Work.Tokens = client.IncrToken
	cfg.Work.FenceNode, cfg.Work.FenceKey = "n1", "fence"
	cfg.Resource.TokenStart = 32
	cfg.Work.CriticalSection = 2 * s
	client_(&cfg, "c2").StartIn = 11 * s
	cfg.Faults = []model.Fault{{At: s, Kind: model.Pause, Target: "c1", For: 15 * s}}
	cfg.Duration = 30 * s
	return cfg
}

// Row 7. "client 1 ... its lease expires ... client 2 acquires the lease,
// gets token 34 ... client 1 ... wakes up and sends its write ... This is
// unsafe" (Kleppmann) without fencing.
func TestGCPauseLosesAnUpdate(t *testing.T) {
	r := expectOutcome(t, gcPause(), "violation", "violation")
	assert.Equal(t, 1, r.Report.StaleWritesAccepted)
	assert.Equal(t, 1, r.Report.LostUpdates)
	// The stale write's holds: c1's under token 33, c2's newer one.
	i := slices.IndexFunc(r.Report.Violations, func(v check.Violation) bool { return v.Kind == check.StaleWriteAccepted })
	require.GreaterOrEqual(t, i, 0)
	v := r.Report.Violations[i]
	assert.Equal(t, []uint64{33, 34}, []uint64{v.A.Token, v.B.Token})
	assert.NotEmpty(t, v.Excerpt, "the run tells the violation's story")
}

// Row 7, variant: "the storage server remembers that it has already
// processed a write with a higher token number (34), and so it rejects the
// request with token 33" (Kleppmann).
func TestGCPauseWithFencingRejectsTheStaleWrite(t *testing.T) {
	rejectsTheStaleWrite(t, gcPause(), resource.Fencing, "violation")
}

// Row 7, variant: "the unique random value ... can be used as a
// compare-and-set token by the resource" (antirez).
func TestGCPauseWithCompareAndSetRejectsTheStaleWrite(t *testing.T) {
	rejectsTheStaleWrite(t, gcPause(), resource.CompareAndSet, "violation")
}

// rejectsTheStaleWrite runs cfg with the resource in mode: whatever the
// lock alone gives (lock), the resource rejects the one stale write, and
// the run is safe.
func rejectsTheStaleWrite(t *testing.T, cfg model.Config, mode resource.Mode, lock string) {
	t.Helper()
	cfg.Resource.Mode = mode
	r := expectOutcome(t, cfg, lock, "safe")
	assert.Equal(t, 1, r.Report.StaleWritesRejected)
}

// Row 8. A client that measures elapsed time on a wall clock that steps
// back during the acquisition under-estimates it (domain §3): c1 freezes
// with its SETs in flight as in row 6, and its wall clock steps back 15s.
func TestClientWallClockStepsBack(t *testing.T) {
	cfg := pauseInFlight()
	cfg.Lock.ElapsedClock = proto.Wall
	cfg.Faults = append(cfg.Faults, model.Fault{At: 5 * s, Kind: model.ClockStep, Target: "c1", By: -15 * s})
	expectOutcome(t, cfg, "violation", "violation")
}

// Row 8, variant: the monotonic clock never steps.
func TestClientMonotonicClockIgnoresTheStep(t *testing.T) {
	cfg := pauseInFlight()
	cfg.Lock.ElapsedClock = proto.Mono
	cfg.Faults = append(cfg.Faults, model.Fault{At: 5 * s, Kind: model.ClockStep, Target: "c1", By: -15 * s})
	expectOutcome(t, cfg, "safe", "safe")
}

// serverDrift: every node's clock runs fast by ppm; three clients contend
// and each holds for nearly its whole validity (critical section 9.5s of a
// 10s TTL), retrying quickly while they wait.
func serverDrift(ppm float64) model.Config {
	cfg := redlockWorld(3)
	cfg.Work.CriticalSection = 9500 * ms
	cfg.Lock.Retries = 1000
	cfg.Lock.RetryDelay, cfg.Lock.RetryJitter = 50*ms, 25*ms
	for i := range cfg.Nodes {
		cfg.Nodes[i].Clock.RatePPM = ppm
	}
	cfg.Duration = 45 * s
	return cfg
}

// Row 9. "Redlock ... assumes ... the clocks of different processes advance
// at the same rate within the drift factor" (antirez): 0.5% fast is inside
// the 1% allowance.
func TestServerDriftInsideTheAllowanceIsSafe(t *testing.T) {
	r := expectOutcome(t, serverDrift(5000), "safe", "safe")
	assert.GreaterOrEqual(t, r.Report.AcquireSuccesses, 4)
}

// Row 9: 10% fast is ten times the allowance; keys expire about 0.9s before
// the holder stops believing, and a waiting client takes them.
func TestServerDriftBeyondTheAllowanceViolates(t *testing.T) {
	expectOutcome(t, serverDrift(100000), "violation", "violation")
}

// delayedWrite: c1's write leaves at about 1s and spends 15s in the
// network (Kleppmann: "packets ... delayed in the network", GitHub's 90s).
// c1 gives up waiting after 1s and releases; c2 locks and writes; the old
// write lands.
func delayedWrite() model.Config {
	cfg := redlockWorld(2)
	cfg.Work.CriticalSection = s
	cfg.Work.Iterations = 1
	cfg.Work.Tokens = client.IncrToken
	cfg.Work.FenceNode, cfg.Work.FenceKey = "n1", "fence"
	client_(&cfg, "c2").StartIn = 1500 * ms
	cfg.Faults = []model.Fault{{At: 500 * ms, Kind: model.Spike, Target: "c1", To: "resource", For: s, By: 15 * s}}
	cfg.Duration = 30 * s
	return cfg
}

// Row 10, without fencing.
func TestDelayedWriteWithoutFencing(t *testing.T) {
	r := expectOutcome(t, delayedWrite(), "safe", "violation")
	assert.Equal(t, 1, r.Report.StaleWritesAccepted)
}

// Row 10, with fencing.
func TestDelayedWriteWithFencing(t *testing.T) {
	rejectsTheStaleWrite(t, delayedWrite(), resource.Fencing, "safe")
}

// Row 11: the holder is cut off from nodes and resource; the others wait
// for its keys to expire. "safe, but an outage of up to a TTL".
func TestPartitionedHolderCostsAnOutage(t *testing.T) {
	cfg := partitionHolder()
	r := expectOutcome(t, cfg, "safe", "safe")
	// c1 wrote (the resource stays reachable) and released at about 2s, its
	// unlocks held on the cut links, and its keys live until about 10s: some
	// 8s with a client waiting and nobody holding.
	assert.Greater(t, r.Report.LongestOutage, 6*s)
	assert.Less(t, r.Report.LongestOutage, 10*s)
}

func partitionHolder() model.Config {
	cfg := redlockWorld(3)
	cfg.Work.CriticalSection = 2 * s
	client_(&cfg, "c2").StartIn = 100 * ms
	client_(&cfg, "c3").StartIn = 100 * ms
	client_(&cfg, "c1").StartIn = 0
	cfg.Faults = []model.Fault{
		{At: 50 * ms, Kind: model.Partition, Partition: network.PartitionIsolate, Target: "c1", Groups: [][]string{{"c1", "n1", "n2", "n3", "n4", "n5"}}},
		{At: 30 * s, Kind: model.Heal},
	}
	return cfg
}

// Row 11: five clients start at the same instant; split votes cost retries
// but never safety.
func TestSplitVote(t *testing.T) {
	cfg := redlockWorld(5)
	r := expectOutcome(t, cfg, "safe", "safe")
	assert.Greater(t, r.Report.AcquireP99, r.Report.AcquireP50)
}

// Row 11: three of five nodes crash; with the restart delayed beyond the
// TTL there is no majority, hence no lock, for that long.
func TestMajorityCrashWithDelayedRestart(t *testing.T) {
	cfg := redlockWorld(3)
	for _, n := range []string{"n1", "n2", "n3"} {
		cfg.Faults = append(cfg.Faults, model.Fault{At: 5 * s, Kind: model.Crash, Target: n, For: 11 * s})
	}
	r := expectOutcome(t, cfg, "safe", "safe")
	assert.Greater(t, r.Report.LongestOutage, 10*s)
}

// leaseWorld: Jepsen's etcd lock workload — lease lock, 2s TTL, five
// processes, read, wait 1s, write; a process pause every 5s.
func leaseWorld() model.Config {
	cfg := redlockWorld(5)
	cfg.Nodes = nil
	cfg.Lock = client.LockConfig{Algorithm: client.Lease, Key: "lock", TTL: 2 * s, KeepAlive: 2 * s / 3,
		RequestTimeout: 50 * ms, ElapsedClock: proto.Mono, Retries: 3, RetryDelay: 200 * ms, RetryJitter: 100 * ms}
	cfg.Work.CriticalSection = s
	for i := range cfg.Clients {
		cfg.Clients[i].StartIn = time.Duration(i) * 10 * ms
	}
	names := []string{"c1", "c2", "c3", "c4", "c5"}
	for i := 0; i < 6; i++ {
		cfg.Faults = append(cfg.Faults, model.Fault{At: time.Duration(i)*5*s + 500*ms, Kind: model.Pause, Target: names[i%5], For: 3 * s})
	}
	cfg.Duration = 30 * s
	return cfg
}

// Row 12. "etcd's locks are not mutual exclusion ... even in healthy
// clusters" (Jepsen, etcd 3.4.3).
func TestLeaseLockWithPausesLosesUpdates(t *testing.T) {
	r := expectOutcome(t, leaseWorld(), "violation", "violation")
	assert.Positive(t, r.Report.LostUpdates)
}

// Row 12, variant: "use the lock key's revision as a fencing token".
func TestLeaseLockWithRevisionFencing(t *testing.T) {
	cfg := leaseWorld()
	cfg.Work.Tokens = client.RevisionToken
	cfg.Resource.Mode = resource.Fencing
	r := expectOutcome(t, cfg, "violation", "safe")
	assert.Positive(t, r.Report.StaleWritesRejected)
}

// "Redlock ... assumes ... clocks advance at the same rate within the drift
// factor" (antirez): without faults, with client and server rate errors
// inside the allowance, no seed of a thousand finds two holders.
func TestRedlockWithoutFaultsIsSafeOverAThousandSeeds(t *testing.T) {
	cfg := redlockWorld(3)
	cfg.Duration = 10 * s
	for i := range cfg.Nodes {
		cfg.Nodes[i].RateSpread = 500 // 0.05%, twenty times less than the 1% allowance
	}
	for i := range cfg.Clients {
		cfg.Clients[i].RateSpread = 500
	}
	acquisitions := 0
	for seed := uint64(1); seed <= 1000; seed++ {
		r, err := model.RunFast(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		if r.Report.MutexViolations != 0 {
			t.Fatalf("seed %d: %d mutual-exclusion violations; replay with model.RunTraced", seed, r.Report.MutexViolations)
		}
		acquisitions += r.Report.AcquireSuccesses
	}
	assert.Greater(t, acquisitions, 1000*20, "the clients must actually contend")
}
