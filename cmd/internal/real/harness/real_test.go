package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/lazyfs"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/scenarios"
)

// clientBinary is the redlocksim command, built once for the tests: the
// client processes are its hidden real-client subcommand.
var clientBinary string

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "redlocksim-real-test-*")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		clientBinary = filepath.Join(dir, "redlocksim")
		build := exec.Command("go", "build", "-o", clientBinary, "github.com/redlocksim/redlocksim/cmd/redlocksim")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build the client binary: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

func needRedis(t *testing.T) { t.Helper(); proctest.Need(t, "redis-server", "redis-server") }

func load(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.LoadLibrary(name)
	require.NoError(t, err)
	return sc
}

// runReal runs a library scenario for real at the given scale, in a group
// the test closes on failure too. The contract is the outcome in
// at least 4 of 5 runs, and a busy machine (go test ./... runs other
// packages' tests beside these) can push a run's timing out; so when the
// first run misses the contracted verdict it is logged and the scenario
// runs once more, and the second run must show it.
func runReal(t *testing.T, name string, scale float64) (*scenarios.Scenario, *Result) {
	t.Helper()
	needRedis(t)
	sc := load(t, name)
	var res *Result
	for try := 1; try <= 2; try++ {
		g := proc.NewGroup()
		var err error
		res, err = Run(context.Background(), sc.Config, Options{Scale: scale, Seed: uint64(try), Client: []string{clientBinary, "real-client"}, Group: g})
		require.NoError(t, g.Close())
		require.NoError(t, err)
		if contract(sc, res) {
			return sc, res
		}
		t.Logf("run %d of %s missed the contracted outcome:", try, name)
		for _, e := range res.History.Log {
			t.Logf("%12v  %s", e.At, e.Text)
		}
	}
	return sc, res
}

func contract(sc *scenarios.Scenario, res *Result) bool {
	mutex, resource := res.Report.Safe()
	return sc.Expect.Mutex == verdict(mutex) && sc.Expect.Resource == verdict(resource)
}

func verdict(safe bool) string {
	if safe {
		return "safe"
	}
	return "violation"
}

// requireContract asserts the real run's verdict is the scenario's
// contracted outcome, from the checker's counts.
func requireContract(t *testing.T, sc *scenarios.Scenario, res *Result) {
	t.Helper()
	mutex, resource := res.Report.Safe()
	assert.Equal(t, sc.Expect.Mutex, verdict(mutex), "mutex verdict (%d overlaps)", res.Report.MutexViolations)
	assert.Equal(t, sc.Expect.Resource, verdict(resource), "resource verdict (%d lost, %d stale accepted)",
		res.Report.LostUpdates, res.Report.StaleWritesAccepted)
	for _, e := range res.History.Log {
		assert.True(t, story.Told(e.Kind), "the real log's kind %q is not one of model/story's (%s)", e.Kind, e.Text)
	}
}

// The end-to-end runs take about 7 s each of wall time: scaled
// below the default (30 s scenarios in 6 s), they run one after another
// (not in parallel: two real runs on two cores disturb each other's
// timing).

func TestRealGCPause(t *testing.T) {
	sc, res := runReal(t, "gc-pause", 5) // 30 s in 6 s; TTL 2 s, pause 3 s
	requireContract(t, sc, res)
	require.Equal(t, 1, res.Report.MutexViolations)
	// c1 wakes at 3.2 s and writes; c2 held from ~2.2 s and released at
	// ~2.6 s: the overlap is c2's hold, about 0.4 s, give or take the
	// machine's scheduling.
	assert.InDelta(t, 0.4, res.Report.MutexOverlapMax.Seconds(), 0.15)
	assert.Equal(t, 1, res.Report.LostUpdates)
	assert.Contains(t, res.Clients, "redsync")
}

// TestRealKeepRecordsEveryClientsEvents: with Keep, each client's records
// land in NAME.events as it wrote them, so a run's history can be read
// beside its verdict: every hold the checker judged is a hold line there.
func TestRealKeepRecordsEveryClientsEvents(t *testing.T) {
	needRedis(t)
	sc := load(t, "gc-pause")
	keep := t.TempDir()
	g := proc.NewGroup()
	res, err := Run(context.Background(), sc.Config, Options{Scale: 5, Seed: 1, Keep: keep, Client: []string{clientBinary, "real-client"}, Group: g})
	require.NoError(t, g.Close())
	require.NoError(t, err)
	require.NotEmpty(t, res.History.Holds)
	held := map[string]map[uint64]bool{}
	for _, name := range []string{"c1", "c2"} {
		b, err := os.ReadFile(filepath.Join(keep, name+".events"))
		require.NoError(t, err, "client %s's kept events", name)
		held[name] = map[uint64]bool{}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var ev Event
			require.NoError(t, json.Unmarshal([]byte(line), &ev), "line %q of %s.events", line, name)
			if ev.Kind == EvHold {
				held[name][ev.Lock] = true
			}
		}
	}
	for _, h := range res.History.Holds {
		assert.True(t, held[h.Client][h.Lock], "hold %d of %s (lock %d) is not in its kept events", h.ID, h.Client, h.Lock)
	}
}

func TestRealRestartNoPersistence(t *testing.T) {
	sc, res := runReal(t, "restart-no-persistence", 5)
	requireContract(t, sc, res)
}

func TestRealRestartDelayed(t *testing.T) {
	sc, res := runReal(t, "restart-delayed", 5)
	requireContract(t, sc, res)
	// The price of safety: c2 cannot get a majority until n3 returns at
	// 2.6 s (scaled), while c1 released at about 1.6 s: an outage of
	// about a second.
	assert.Greater(t, res.Report.LongestOutage, 600*time.Millisecond)
}

// clock-jump for real: n3's redis-server reads its clock through the clock
// library, which steps it +9 s (scaled: +1.5 s) at 2 s (0.33 s); n3
// expires c1's key at once and c2 locks n3, n4, n5. 30 s in 5 s.
func TestRealClockJump(t *testing.T) {
	sc, res := runReal(t, "clock-jump", 6)
	requireContract(t, sc, res)
	require.Equal(t, 1, res.Report.MutexViolations)
	// c2 starts at 0.5 s and c1 releases when its 8 s critical section
	// (1.33 s) ends, at about 1.35 s: they overlap for about 0.85 s.
	assert.InDelta(t, 0.85, res.Report.MutexOverlapMax.Seconds(), 0.15)
	assert.Contains(t, strings.Join(res.Notes, "\n"), "the clocks of n3 run for real")
}

// server-drift-large for real: every redis-server's clock runs 5% fast, so
// a key dies after 9.52 s of the 9.86 s its holder uses (scaled by 9:
// 1.058 s of 1.096 s), and a waiting client, retrying every 5.6 ms ± 2.8
// ms, locks the expired keys. 45 s in 5 s.
func TestRealServerDriftLarge(t *testing.T) {
	sc, res := runReal(t, "server-drift-large", 9)
	requireContract(t, sc, res)
	assert.Positive(t, res.Report.LostUpdates+res.Report.StaleWritesAccepted)
}

// TestRealAOFEverysecPowerLoss: n3's AOF sits on a lazyfs mount; the power
// loss 0.1 s (scaled) after c1's SET drops the key n3 had not fsynced yet,
// n3 restarts without it, and c2 gets n3, n4, n5 while c1 still holds n1,
// n2 and (it believes) n3.
func TestRealAOFEverysecPowerLoss(t *testing.T) {
	if err := lazyfs.Available(); err != nil {
		proctest.Unavailable(t, err)
	}
	sc, res := runReal(t, "aof-everysec-power-loss", 5) // 30 s in 6 s
	requireContract(t, sc, res)
	require.Equal(t, 1, res.Report.MutexViolations)
	var lost bool
	for _, e := range res.History.Log {
		lost = lost || (strings.Contains(e.Text, "the power loss drops what") && !strings.Contains(e.Text, " 0 file(s)"))
	}
	assert.True(t, lost, "the history should show n3 losing unsynced writes at the power loss")
	assert.Contains(t, strings.Join(res.Notes, "\n"), "lazyfs mount")
	// The run's group is closed: no mount of it is left.
	mps := lazyfs.Mountpoints()
	require.NotEmpty(t, mps, "the run mounted no lazyfs")
	b, err := os.ReadFile("/proc/self/mountinfo")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 {
			assert.NotContains(t, mps, f[4], "still mounted after the run: %s", line)
		}
	}
}

// client-clock-step-back for real: the raw client times its acquisition on
// its own wall clock, read through the scenario's segments, which steps
// back 15 s (scaled: 1.875 s) while c1 is frozen with its SETs on the
// wire; it wakes to an elapsed time near 0 and believes keys that expired
// long ago. 40 s in 5 s.
func TestRealClientClockStepBack(t *testing.T) {
	sc, res := runReal(t, "client-clock-step-back", 8)
	requireContract(t, sc, res)
	assert.Contains(t, res.Clients, "elapsed time on the wall clock")
	assert.Contains(t, strings.Join(res.Notes, "\n"), "the clocks of c1 run for real: the raw client reads them")
}

// watchdog-gc-pause for real: c1's whole process, its renewal timer with
// it, freezes (SIGSTOP) for 15 s (scaled: 3 s) past the 10 s TTL (2 s);
// the key expires, c2 locks, writes and releases, and c1 wakes believing
// it holds the lock (Redisson gives it no validity to watch) and writes
// over c2's update. 30 s in 6 s.
func TestRealWatchdogGCPause(t *testing.T) {
	sc, res := runReal(t, "watchdog-gc-pause", 5)
	requireContract(t, sc, res)
	require.Equal(t, 1, res.Report.MutexViolations)
	assert.Equal(t, 1, res.Report.LostUpdates)
	assert.Equal(t, 1, res.Report.StaleWritesAccepted)
	assert.Contains(t, res.Clients, "watchdog")
}

// runRealConfig is runReal for a scenario changed by the test.
func runRealConfig(t *testing.T, sc *scenarios.Scenario, scale float64) *Result {
	t.Helper()
	needRedis(t)
	g := proc.NewGroup()
	res, err := Run(context.Background(), sc.Config, Options{Scale: scale, Seed: 1, Client: []string{clientBinary, "real-client"}, Group: g})
	require.NoError(t, g.Close())
	require.NoError(t, err)
	return res
}

func countKind(res *Result, kind string) int {
	n := 0
	for _, e := range res.History.Log {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// The renewal keeps the lock for real: watchdog-gc-pause and
// auto-extend-abort without their faults, c1 working 25 s on a 10 s TTL
// while c2 waits from 1 s. Without the renewals c2 would lock at 10 s and
// overlap c1; with them, c1 works alone and c2 locks after c1's release.
// 30 s in 6 s each.
func TestRealRenewalKeepsTheLock(t *testing.T) {
	for _, tc := range []struct {
		name, renewal string
		kind          string
		least         int
	}{
		// every TTL/3 for 25 s: 7 renewals; a busy machine may lose the last
		{"watchdog-gc-pause", "watchdog", story.Renews, 6},
		// when 0.5 s of validity is left: at 9.5 s, 19 s
		{"auto-extend-abort", "auto-extend", story.Extends, 2},
	} {
		t.Run(tc.renewal, func(t *testing.T) {
			sc := load(t, tc.name)
			sc.Config.Faults = nil
			sc.Config.Duration = 30 * time.Second
			sc.Config.Work.CriticalSection = 25 * time.Second
			sc.Config.Work.Iterations = 1
			sc.Config.Lock.Retries, sc.Config.Lock.RetryDelay, sc.Config.Lock.RetryJitter = 1000, 200*time.Millisecond, 100*time.Millisecond
			for i := range sc.Config.Clients {
				if sc.Config.Clients[i].Name == "c2" {
					sc.Config.Clients[i].StartIn = time.Second
				}
			}
			res := runRealConfig(t, sc, 5)
			mutex, resource := res.Report.Safe()
			assert.True(t, mutex, "%d overlaps", res.Report.MutexViolations)
			assert.True(t, resource, "%d lost, %d stale accepted", res.Report.LostUpdates, res.Report.StaleWritesAccepted)
			assert.GreaterOrEqual(t, countKind(res, tc.kind), tc.least, "%s lines in the log", tc.kind)
			assert.Equal(t, 2, res.Report.AcquireSuccesses, "c1 and then c2")
			assert.Contains(t, res.Clients, tc.renewal)
		})
	}
}

// auto-extend-abort for real: c1's extension, due when 0.5 s (0.1 s) of
// its validity is left, times out through the cut, and the work is
// aborted before the key expires: c1 never writes.
func TestRealAutoExtendAbort(t *testing.T) {
	sc, res := runReal(t, "auto-extend-abort", 7) // 40 s in 5.7 s
	requireContract(t, sc, res)
	// c2's own extensions, on a loaded machine, may come too late and
	// abort its work as well (safe, too); c1's abort is the scenario's.
	var aborted, wrote bool
	for _, e := range res.History.Log {
		aborted = aborted || (e.Kind == story.AbortsWork && strings.HasPrefix(e.Text, "c1 aborts its work: extension failed"))
		wrote = wrote || strings.Contains(e.Text, "accepts c1's write")
	}
	assert.True(t, aborted, "c1's failed extension aborts its work")
	assert.False(t, wrote, "c1 never writes")
}

// redlock-py-connected-quorum for real: the raw client reproduces
// redlock-py's start-up, asking every node once through the partition and
// keeping those that answered; each client counts a majority of its three
// and both lock. 20 s in 7 s.
func TestRealRedlockPyConnectedQuorum(t *testing.T) {
	sc, res := runReal(t, "redlock-py-connected-quorum", 0)
	requireContract(t, sc, res)
	require.Equal(t, 1, res.Report.MutexViolations)
	var connects []string
	for _, e := range res.History.Log {
		if e.Kind == story.Connects {
			connects = append(connects, e.Text)
		}
	}
	assert.ElementsMatch(t, []string{
		"c1 connects to n1,n2,n3 and counts its quorum, 2, from them",
		"c2 connects to n3,n4,n5 and counts its quorum, 2, from them",
	}, connects)
	assert.Contains(t, res.Clients, "redlock-py's connected-quorum bug")
}

// Run refuses, before it starts anything, what no process here can do:
// loss on a TCP connection.
func TestRefusesWhatCannotRunForReal(t *testing.T) {
	sc := load(t, "gc-pause")
	sc.Config.Network.Loss = 0.1
	_, err := Run(context.Background(), sc.Config, Options{Client: []string{clientBinary, "real-client"}})
	var refused *RefusedError
	require.True(t, errors.As(err, &refused), "got %v", err)
	assert.Contains(t, err.Error(), "network.loss")
}

func TestScaleBelowResolutionIsRefused(t *testing.T) {
	sc := load(t, "gc-pause")
	_, err := Run(context.Background(), sc.Config, Options{Scale: 100, Client: []string{clientBinary, "real-client"}})
	var refused *RefusedError
	require.True(t, errors.As(err, &refused), "got %v", err)
	assert.Contains(t, err.Error(), "lock.ttl 100ms, below the 250ms")
}

func TestScaleDividesEveryTime(t *testing.T) {
	sc := load(t, "delayed-write")
	s := Scale(sc.Config, 4)
	assert.Equal(t, sc.Config.Duration/4, s.Duration)
	assert.Equal(t, sc.Config.Lock.TTL/4, s.Lock.TTL)
	assert.Equal(t, sc.Config.Clients[1].StartIn/4, s.Clients[1].StartIn)
	assert.Equal(t, sc.Config.Faults[0].At/4, s.Faults[0].At)
	assert.Equal(t, sc.Config.Faults[0].By/4, s.Faults[0].By)
	assert.Equal(t, sc.Config.Network.Latency.Max/4, s.Network.Latency.Max)
	ae := load(t, "auto-extend-abort").Config
	assert.Equal(t, ae.Lock.ExtendThreshold/4, Scale(ae, 4).Lock.ExtendThreshold)
	assert.Equal(t, sc.Config.Lock.TTL, load(t, "delayed-write").Config.Lock.TTL, "Scale must not write the caller's config")
	// Every library scenario's default scale runs it in TargetWall, unless
	// that would drop a time below what a real run resolves or leave a
	// margin too thin for its requests.
	for _, n := range scenarios.LibraryNames() {
		c := load(t, n).Config
		if _, refused := noServer[c.Lock.Algorithm]; refused {
			continue // never runs for real here (TestEveryAlgorithmHasASystem)
		}
		f := DefaultScale(&c)
		require.NoError(t, CheckScale(&c, f), n)
		if c.Lock.Algorithm == client.Lease {
			// etcd's whole-second leases bound the scale instead.
			assert.Zero(t, scaled(c.Lock.TTL, f)%time.Second, n)
			continue
		}
		switch {
		case f == 1:
			assert.LessOrEqual(t, c.Duration, TargetWall, n) // never stretched
		case f == MarginScale(&c):
			// A margin the outcome rests on bounds it (margin_test.go).
			assert.Less(t, f, float64(c.Duration)/float64(TargetWall), n)
		case f < MaxScale(&c):
			assert.InDelta(t, float64(TargetWall), float64(c.Duration)/f, float64(time.Millisecond), n)
		default:
			// Resolution bounds the scale: a longer run, never a finer time.
			assert.Equal(t, MaxScale(&c), f, n)
		}
	}
}

func TestDriverChoice(t *testing.T) {
	l := load(t, "gc-pause").Config.Lock
	assert.Equal(t, DriverRedsync, ChooseDriver(l), "the default Redlock is redsync's")
	l.ValidityCheck = false
	assert.Equal(t, DriverRawRedlock, ChooseDriver(l), "redsync always checks the validity")
	l = load(t, "gc-pause").Config.Lock
	l.Sequential = true
	assert.Equal(t, DriverRawRedlock, ChooseDriver(l), "redsync asks the nodes in parallel")
	l = load(t, "client-clock-step-back").Config.Lock
	assert.Equal(t, DriverRawRedlock, ChooseDriver(l), "redsync times acquisition on the monotonic clock, not the wall")
	l = load(t, "client-clock-step-back-monotonic").Config.Lock
	assert.Equal(t, DriverRedsync, ChooseDriver(l))
	l.Algorithm = client.Single
	assert.Equal(t, DriverRawSingle, ChooseDriver(l))
}

func needSentinel(t *testing.T) { t.Helper(); proctest.Need(t, "redis-sentinel", "redis-sentinel") }

// failover-race for real: redis-server master and replica (its
// replication lagging through a proxy link that dies with the master),
// a real redis-sentinel that promotes the replica, and the single-instance
// lock on whichever node the Sentinel names.
func TestRealFailoverRace(t *testing.T) {
	needSentinel(t)
	// At the default scale (about 4×) c2 must reach the promoted n2
	// within 1.2 s of real time, and a real Sentinel adds up to a second
	// of its own (the failover start's random desync, the INFO period)
	// whatever the scale: in one CI run under load both tries missed it.
	// Scale 2 keeps those fixed delays a smaller share of the race.
	sc, res := runReal(t, "failover-race", 2)
	requireContract(t, sc, res)
	assert.Contains(t, res.Clients, "Sentinel's master")
}

// pause-in-flight-no-check: the client freezes itself once its SETs are on
// the wire, wakes to stale OKs and, without the validity check, believes
// them.
func TestRealPauseInFlightWithoutCheck(t *testing.T) {
	sc, res := runReal(t, "pause-in-flight-no-check", 0)
	requireContract(t, sc, res)
	assert.Contains(t, res.Clients, "no elapsed-time validity check")
	freezes := 0
	for _, e := range res.History.Log {
		if strings.Contains(e.Text, "freezes itself") {
			freezes++
		}
	}
	assert.Equal(t, 1, freezes, "c1 should freeze itself once, with its requests on the wire")
}

// c2AcquiresAfter is when c2 first acquires the lock at or after from, or
// 0 if it never does.
func c2AcquiresAfter(res *Result, from time.Duration) time.Duration {
	for _, e := range res.History.Log {
		if e.Actor == "c2" && e.Kind == story.Acquires && e.At >= from {
			return e.At
		}
	}
	return 0
}

// A pause on acquisition for real: c2 stops itself at its first
// acquisition at or after 12 s (scaled), once its read is answered, and
// stays stopped 12 s from the acquisition, past the 10 s TTL, so another
// client takes the lock and c2 writes after it: mutex breaks whatever the
// turn-taking, as in the model. The log tells the stop after the
// acquisition it answers, and the notes give its delay. 45 s of baseline in 7.5 s: c2's first
// acquisition after 12 s may come as late as 20 s on a busy machine, and
// the run must still hold its 12 s pause, the next holder's takeover and
// c2's write after it wakes (at 30 s, runs whose acquisition came at 17 s
// ended before the overlap).
func TestRealPauseOnAcquire(t *testing.T) {
	needRedis(t)
	sc := load(t, "baseline")
	cfg := sc.Config
	cfg.Duration = 45 * time.Second
	cfg.Faults = []model.Fault{{At: 12 * time.Second, Kind: model.Pause, Target: "c2", For: 12 * time.Second, OnAcquire: true}}
	// c2 must win the lock at least once after 2 s (scaled) of the 5 s
	// for there to be an acquisition to pause on; three clients contend,
	// and on a busy machine (go test ./... runs other packages beside
	// this one) it sometimes does not. Such a run is no test of the pause
	// on acquisition: it is logged, and the seed runs once more, 100 on.
	for seed := uint64(1); seed <= 2; seed++ {
		var res *Result
		var acquired time.Duration
		for try := uint64(0); try < 2; try++ {
			g := proc.NewGroup()
			var err error
			res, err = Run(context.Background(), cfg, Options{Scale: 6, Seed: seed + 100*try, Client: []string{clientBinary, "real-client"}, Group: g})
			require.NoError(t, g.Close())
			require.NoError(t, err)
			// An acquisition after 30 s (5 s scaled) leaves too little run
			// for the pause and the takeover: no test either.
			if acquired = c2AcquiresAfter(res, 2*time.Second); acquired > 0 && acquired <= 5*time.Second {
				break
			}
			t.Logf("seed %d: c2 did not win the lock between 2 s and 5 s (scaled); running seed %d", seed+100*try, seed+100*(try+1))
		}
		mutex, _ := res.Report.Safe()
		assert.False(t, mutex, "seed %d: c2, stopped past the TTL from its acquisition on, overlaps the next holder", seed)
		var paused time.Duration
		for _, e := range res.History.Log {
			if e.Actor == "c2" && e.Kind == story.Pauses {
				assert.Zero(t, paused, "seed %d: one pause of c2", seed)
				paused = e.At
				assert.Contains(t, e.Text, "as it acquires the lock, SIGSTOP")
			}
		}
		require.Positive(t, acquired, "seed %d: c2 acquires after 12 s (2 s scaled)", seed)
		assert.GreaterOrEqual(t, paused, acquired, "seed %d: the stop answers c2's first acquisition at or after 2 s", seed)
		assert.Contains(t, strings.Join(res.Notes, "\n"), "c2's pause on acquisition: SIGSTOP", "seed %d: the reaction delay is noted", seed)
		for _, n := range res.Notes {
			if strings.Contains(n, "on acquisition") {
				t.Logf("seed %d: %s; acquisition at %v, pause record at %v", seed, n, acquired, paused)
			}
		}
	}
}
