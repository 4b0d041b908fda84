package model_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/network"
)

func budgetErr(t *testing.T, err error) *model.BudgetError {
	t.Helper()
	var be *model.BudgetError
	require.True(t, errors.As(err, &be), "want a *BudgetError, got %v", err)
	return be
}

// refusedUpFront runs cfg's fast world on seed 1, requires it refused
// with a *BudgetError before it ran, and returns that error and the bytes
// allocated on the way.
func refusedUpFront(t *testing.T, cfg model.Config) (*model.BudgetError, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := model.RunFast(cfg, 1)
	runtime.ReadMemStats(&after)
	be := budgetErr(t, err)
	assert.False(t, be.Running, "refused up front")
	return be, after.TotalAlloc - before.TotalAlloc
}

// TestTenThousandHoursIsRefusedWithTheEstimate: the 10000 h run
// (about 180 GB before budgets) is refused before it runs, with the
// estimate, the key that drives it, and how to raise the budget.
func TestTenThousandHoursIsRefusedWithTheEstimate(t *testing.T) {
	cfg := redlockWorld(3)
	cfg.Duration = 10000 * time.Hour
	be, allocated := refusedUpFront(t, cfg)
	assert.Greater(t, be.Events, uint64(model.DefaultMaxEvents))
	assert.Equal(t, "duration", be.Key)
	msg := be.Error()
	assert.Contains(t, msg, "at least ")
	assert.Contains(t, msg, "duration = 10000h0m0s")
	assert.Contains(t, msg, `The key that drives it is duration = "10000h0m0s"`)
	assert.Contains(t, msg, "--max-events N")
	assert.Less(t, allocated, uint64(10<<20), "refused without building the world")
}

// TestEstimateFromTheRunsRate: where the Config alone does not bound the
// events (pauses here), the run estimates its cost from its first share of
// the budget and stops there, long before the budget is used.
func TestEstimateFromTheRunsRate(t *testing.T) {
	cfg := redlockWorld(3)
	cfg.Duration = 10000 * time.Hour
	for i := range cfg.Clients {
		cfg.Clients[i].Pauses = model.PauseConfig{Every: 10 * time.Second, Length: network.Constant(time.Millisecond)}
	}
	_, err := fastWithin(t, cfg, 1, 5_000_000)
	be := budgetErr(t, err)
	assert.False(t, be.Running, "refused on its estimate")
	assert.LessOrEqual(t, be.Fired, uint64(5_000_000/50+1<<16), "stopped after the pilot share of the budget")
	assert.Greater(t, be.Measured, time.Duration(0))
	// The estimate is the measured rate times the duration: within a few
	// percent of the true count, which the 2 h version of the run shows.
	short := cfg
	short.Duration = 2 * time.Hour
	r, err := fastWithin(t, short, 1, 100_000_000)
	require.NoError(t, err)
	ratio := float64(be.Events) / (float64(r.Events) * 5000)
	assert.InDelta(t, 1, ratio, 0.1, "estimate %d against 5000 × %d", be.Events, r.Events)
	assert.Contains(t, err2s(be), "measured over the first")
	assert.Zero(t, be.HistoryBytes, "a fast run keeps no history")
	assert.NotContains(t, err2s(be), "of history")
}

func err2s(e error) string { return e.Error() }

// TestRunStoppedAtItsBudget: a run whose first part is quiet passes the
// estimate and is stopped when it reaches its budget, with the same kind
// of message.
func TestRunStoppedAtItsBudget(t *testing.T) {
	cfg := redlockWorld(3)
	cfg.Duration = 2 * time.Hour
	for i := range cfg.Clients {
		cfg.Clients[i].StartIn = 110 * time.Minute // quiet until then
	}
	_, err := fastWithin(t, cfg, 1, 200_000)
	be := budgetErr(t, err)
	assert.True(t, be.Running, "stopped while running")
	assert.Greater(t, be.Fired, uint64(200_000))
	assert.Less(t, be.Fired, uint64(200_000+1<<16+1))
	assert.True(t, strings.HasPrefix(be.Error(), "the run exceeded its budget after "), be.Error())
	assert.Contains(t, be.Error(), "--max-events N")
}

// TestBudgetDoesNotChangeARun: a run within its budget is the run without
// one, event for event.
func TestBudgetDoesNotChangeARun(t *testing.T) {
	cfg := redlockWorld(3)
	cfg.Duration = 10 * time.Minute
	plan, err := model.Compile(&cfg)
	require.NoError(t, err)
	free := plan.RunFast(7)
	got, err := plan.RunFastWithin(7, free.Events+1) // just enough
	require.NoError(t, err)
	assert.Equal(t, free.Events, got.Events)
	assert.Equal(t, free.Report, got.Report)
	_, err = plan.RunFastWithin(7, free.Events/2)
	budgetErr(t, err)
}

// TestThousandByThousand: 1000 nodes × 1000 clients is refused before the
// world is built, from the Config alone, with the memory its network
// would hold and the count that drives it: with faults and pauses (the
// issue's gc-pause, whose events no floor is sure of) as without.
func TestThousandByThousand(t *testing.T) {
	for _, pause := range []bool{false, true} {
		cfg := redlockWorld(0)
		cfg.Nodes = nil
		for i := range 1000 {
			cfg.Nodes = append(cfg.Nodes, model.NodeConfig{Name: fmt.Sprintf("n%d", i+1)})
			cfg.Clients = append(cfg.Clients, model.ClientConfig{Name: fmt.Sprintf("c%d", i+1)})
		}
		cfg.Lock.Quorum = 501
		if pause {
			cfg.Faults = []model.Fault{{At: time.Second, Kind: model.Pause, Target: "c1", For: 15 * time.Second}}
		}
		be, allocated := refusedUpFront(t, cfg)
		assert.Equal(t, "clients.count", be.Key)
		assert.Equal(t, network.LinkBytes(2001), be.WorldBytes)
		assert.Contains(t, be.Error(), "the run would exceed its budget: its world alone would hold 577MB before the first event (the network keeps a link for each ordered pair of its 2001 processes: 2001 × 2001), against a budget of 400MB")
		assert.Contains(t, be.Error(), "The key that drives it is clients.count = 1000; lower it, or raise the budget with --max-events N (N ≥ 80000000 for this run)")
		assert.Less(t, allocated, uint64(50<<20), "refused without building the world")
	}
}

// TestNarratedRunCountsItsTrace: a narrated run keeps a trace record per
// event or so, far more than its history; the budget counts it, so that a
// long --trace is stopped instead of taking the machine.
func TestNarratedRunCountsItsTrace(t *testing.T) {
	cfg := redlockWorld(3)
	cfg.Duration = 2 * time.Hour
	plan, err := model.Compile(&cfg)
	require.NoError(t, err)
	_, err = plan.RunFastWithin(1, 4_000_000) // the fast run's 3.6 M events fit
	require.NoError(t, err)
	_, err = plan.RunTracedWithin(1, 4_000_000)
	be := budgetErr(t, err)
	assert.Greater(t, be.HistoryBytes, be.MaxHistoryBytes, "the trace is what exceeds")
	assert.Contains(t, be.Error(), "of history (and trace, when narrated)")
}

// BenchmarkBudgetWatch runs the reference world with its budget watched
// (model.RunFast) and without (Plan.RunFast), for the watch's cost.
func BenchmarkBudgetWatch(b *testing.B) {
	cfg := benchWorld()
	plan, err := model.Compile(&cfg)
	require.NoError(b, err)
	b.Run("off", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			plan.RunFast(uint64(i + 1))
		}
	})
	b.Run("on", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := model.RunFast(cfg, uint64(i+1)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// fastWithin compiles cfg and runs it fast within maxEvents.
func fastWithin(t *testing.T, cfg model.Config, seed, maxEvents uint64) (model.Result, error) {
	t.Helper()
	plan, err := model.Compile(&cfg)
	require.NoError(t, err)
	return plan.RunFastWithin(seed, maxEvents)
}

// contendedWorld is nodes nodes and clients clients that each want one
// critical section of 3 s in 30 s, c1 paused for 15 s: the issue's
// gc-pause, grown.
func contendedWorld(nodes, clients int) model.Config {
	cfg := redlockWorld(0)
	cfg.Nodes = nil
	for i := range nodes {
		cfg.Nodes = append(cfg.Nodes, model.NodeConfig{Name: fmt.Sprintf("n%d", i+1)})
	}
	for i := range clients {
		cfg.Clients = append(cfg.Clients, model.ClientConfig{Name: fmt.Sprintf("c%d", i+1)})
	}
	cfg.Duration = 30 * time.Second
	cfg.Work.CriticalSection, cfg.Work.Iterations, cfg.Work.RequestTimeout = 3*time.Second, 1, 5*time.Second
	cfg.Faults = []model.Fault{{At: time.Second, Kind: model.Pause, Target: "c1", For: 15 * time.Second}}
	return cfg
}

// TestMediumWorldIsRefusedFromItsConfig: 700 nodes × 700 clients that
// contend for the lock took 12 s and 868 MB to be refused by the pilot's
// estimate. Only so many of them can finish their one critical section
// (the nodes hold each granted key for a while), so the rest keep
// trying, and the Config alone says the run is over its budget.
func TestMediumWorldIsRefusedFromItsConfig(t *testing.T) {
	cfg := contendedWorld(700, 700)
	be, allocated := refusedUpFront(t, cfg)
	assert.Zero(t, be.Measured, "refused from the Config, before any event")
	assert.Positive(t, be.FloorSuccesses)
	assert.Less(t, be.FloorSuccesses, uint64(700))
	assert.Contains(t, be.Error(), fmt.Sprintf("at most %d acquisitions can succeed in the run", be.FloorSuccesses))
	assert.Contains(t, be.Error(), "the 700 clients spend the rest of their time awake failing, asking 700 nodes (a request delivered, served and answered each)")
	assert.Contains(t, be.Error(), "The key that drives it is clients.count = 700")
	assert.Less(t, allocated, uint64(20<<20), "refused without building the world")
}

// TestFloorIsBelowTheRun: the floor the Config gives is a lower bound on
// what the run does, and not a vacuous one, in worlds where contention
// makes it (one or two iterations, the single lock and Redlock, with and
// without a pause), and a lower bound in one without iterations.
func TestFloorIsBelowTheRun(t *testing.T) {
	for _, c := range []struct {
		name      string
		change    func(*model.Config)
		contended bool
	}{
		{"redlock, one iteration, paused", func(*model.Config) {}, true},
		{"redlock, two iterations", func(c *model.Config) { c.Work.Iterations = 2; c.Faults = nil }, true},
		{"single", func(c *model.Config) { c.Lock.Algorithm = client.Single }, true},
		{"no iterations", func(c *model.Config) { c.Work.Iterations = 0 }, false},
		// Nodes too slow to answer every try: a backlog, replies after the
		// end; only the requests are sure.
		{"slow nodes", func(c *model.Config) {
			for i := range c.Nodes {
				c.Nodes[i].Redis.ServiceTime = 5 * time.Second
			}
			c.Lock.RetryJitter = 0
		}, false},
	} {
		cfg := contendedWorld(5, 60)
		c.change(&cfg)
		plan, err := model.Compile(&cfg)
		require.NoError(t, err, c.name)
		floor := plan.FloorEvents()
		for seed := uint64(1); seed <= 3; seed++ {
			r := plan.RunFast(seed)
			assert.LessOrEqual(t, floor, r.Events, "%s, seed %d", c.name, seed)
			if c.contended {
				assert.Greater(t, floor, r.Events/10, "%s, seed %d: a floor that says something", c.name, seed)
			}
		}
	}
}

// TestFloorIsBelowTheRunOverAGrid: the floor stays a lower bound on
// what the run does over a grid of small contended worlds (one to five
// nodes, two to forty clients, unbounded or one or three iterations, the
// single lock and Redlock, short and long critical sections), where it
// counts each request's service and reply, the unlocks of a failed try,
// and the time the clients must spend failing while others hold the
// lock.
func TestFloorIsBelowTheRunOverAGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a grid of worlds")
	}
	for _, nodes := range []int{1, 3, 5} {
		for _, clients := range []int{2, 12, 40} {
			for _, iterations := range []int{0, 1, 3} {
				for _, alg := range []client.Algorithm{client.Redlock, client.Single} {
					for _, cs := range []time.Duration{100 * time.Millisecond, 3 * time.Second} {
						cfg := contendedWorld(nodes, clients)
						cfg.Duration = 20 * time.Second
						cfg.Lock.Algorithm, cfg.Work.Iterations, cfg.Work.CriticalSection = alg, iterations, cs
						name := fmt.Sprintf("%d nodes, %d clients, %d iterations, %v, %v", nodes, clients, iterations, alg, cs)
						plan, err := model.Compile(&cfg)
						require.NoError(t, err, name)
						floor := plan.FloorEvents()
						r := plan.RunFast(1)
						assert.LessOrEqual(t, floor, r.Events, name)
					}
				}
			}
		}
	}
}

// TestSteadyRunIsRefusedBeforeThePilotsEnd: a run whose rate is steady,
// or rises (half its clients start late, as a failover or a late client
// makes the first seconds quieter), and is far over its budget is
// refused at a mark of its rate, before the pilot's end, with the
// estimate: a thousand clients for an hour took 1M events (4.5 s) to be
// refused, now 131k; failover-race with 1000 clients for 10000 h, whose
// rate rises, was refused only at the pilot's end (1M events, 4.5 s; 25 s
// narrated in the lab), now at 131k events too. A latency without a
// longest delay keeps the Config's floor out of it.
func TestSteadyRunIsRefusedBeforeThePilotsEnd(t *testing.T) {
	for _, lateFrom := range []int{300, 150} { // none late: steady; half: rising
		cfg := redlockWorld(300)
		cfg.Duration = time.Hour
		cfg.Network.Latency = network.Exponential(time.Millisecond)
		for i := lateFrom; i < len(cfg.Clients); i++ {
			cfg.Clients[i].StartIn = 3 * time.Second
		}
		const maxEvents = 50_000_000
		plan, err := model.Compile(&cfg)
		require.NoError(t, err)
		require.NoError(t, plan.CheckBudget(maxEvents), "not refused from the Config")
		_, err = plan.RunFastWithin(1, maxEvents)
		be := budgetErr(t, err)
		assert.False(t, be.Running, "refused on its estimate")
		assert.Positive(t, be.Measured)
		assert.Less(t, be.Fired, uint64(maxEvents/50/4), "clients late from %d: refused well before the pilot's end", lateFrom)
		assert.Greater(t, float64(be.Events), 1.5*maxEvents)
		assert.Contains(t, be.Error(), "events per virtual second, measured over the first")
		// The same run refuses at the same event: a matter of events and
		// virtual time, not of the machine's clock.
		_, again := plan.RunFastWithin(1, maxEvents)
		assert.Equal(t, be, budgetErr(t, again))
	}
}

// TestFloorIsNotSureOfDrawnOrStretchedWaits: the floor counts cycles by
// the Config's waits, so it claims nothing where the waits may last
// longer: a critical section or think drawn from a distribution (the
// Config holds their means), or a client clock that runs far slow or
// steps (its retry delays then last longer in true time).
func TestFloorIsNotSureOfDrawnOrStretchedWaits(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*model.Config)
	}{
		{"drawn think", func(c *model.Config) { c.Work.ThinkDist = network.Uniform(0, 2*time.Second) }},
		{"drawn critical section", func(c *model.Config) { c.Work.CriticalSectionDist = network.Uniform(0, 6*time.Second) }},
		{"slow client clock", func(c *model.Config) { c.Clients[3].Clock.RatePPM = -50_000 }},
		{"client clock step", func(c *model.Config) {
			c.Clients[3].Clock.Steps = []clocks.Step{{At: time.Second, By: time.Second}}
		}},
	} {
		cfg := contendedWorld(5, 60)
		plan, err := model.Compile(&cfg)
		require.NoError(t, err)
		require.Positive(t, plan.FloorEvents(), "the world unchanged has a floor")
		c.change(&cfg)
		plan, err = model.Compile(&cfg)
		require.NoError(t, err, c.name)
		assert.Zero(t, plan.FloorEvents(), c.name)
	}
}

// TestRunStopsAtItsMemoryBudget: nodes far slower than their clients'
// requests keep a backlog that grows by a request per delivery, which the
// event budget alone allowed into gigabytes. The run stops when what it
// holds at once passes its memory budget, with the message saying so,
// long before its events would have stopped it.
func TestRunStopsAtItsMemoryBudget(t *testing.T) {
	cfg := redlockWorld(200)
	cfg.Duration = 300 * time.Second
	for i := range cfg.Nodes {
		cfg.Nodes[i].Redis.ServiceTime = 5 * time.Second
	}
	const maxEvents = 10_000_000
	_, err := fastWithin(t, cfg, 1, maxEvents)
	be := budgetErr(t, err)
	assert.True(t, be.Running, "stopped while running")
	assert.Greater(t, be.LiveBytes, be.MaxHistoryBytes)
	assert.Less(t, be.Fired, uint64(maxEvents/2), "stopped by its memory, not its events")
	assert.Equal(t, "clients.count", be.Key)
	assert.Contains(t, be.Error(), "requests waiting at its nodes")
	assert.Contains(t, be.Error(), "against a budget of 80MB")
	assert.Contains(t, be.Error(), "The key that drives it is clients.count = 200")
	// The same world with nodes that keep up holds little, and runs.
	for i := range cfg.Nodes {
		cfg.Nodes[i].Redis.ServiceTime = 0
	}
	cfg.Duration = 30 * time.Second
	_, err = fastWithin(t, cfg, 1, maxEvents)
	require.NoError(t, err)
}

// TestFloorIsBelowTheRunWithLossWatchdogAndSlowLinks: the floor stays a
// lower bound over a grid of contended worlds with network loss (whose
// requests and replies it counts only in part, less their deviation),
// Redisson's watchdog (whose renewals keep a held key longer), per-link
// loss, and links slow enough that a request sent near the end arrives
// after it (a constant 8 s in a 20 s run: the floor counted those
// deliveries, 2025 events against the run's 1900 in baseline with 59 s
// of latency). With loss or the watchdog it still says something.
func TestFloorIsBelowTheRunWithLossWatchdogAndSlowLinks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a grid of worlds")
	}
	lossy := 0.4
	for _, nodes := range []int{1, 5} {
		for _, clients := range []int{2, 12, 40} {
			for _, loss := range []float64{0, 0.02, 0.3} {
				for _, renewal := range []client.Renewal{client.NoRenewal, client.Watchdog} {
					for _, net := range []string{"default", "slow", "lossy link"} {
						cfg := contendedWorld(nodes, clients)
						cfg.Duration = 20 * time.Second
						cfg.Network.Loss, cfg.Lock.Renewal = loss, renewal
						switch net {
						case "slow":
							cfg.Network.Latency = network.Constant(8 * time.Second)
						case "lossy link":
							cfg.Network.Links = []model.LinkConfig{{From: "c2", To: "n1", Loss: &lossy}}
						}
						name := fmt.Sprintf("%d nodes, %d clients, loss %v, %v, %s", nodes, clients, loss, renewal, net)
						plan, err := model.Compile(&cfg)
						require.NoError(t, err, name)
						floor := plan.FloorEvents()
						if net == "default" && clients == 40 {
							require.Positive(t, floor, name)
						}
						for seed := uint64(1); seed <= 2; seed++ {
							r := plan.RunFast(seed)
							assert.LessOrEqual(t, floor, r.Events, "%s, seed %d", name, seed)
							if net == "default" && clients == 40 && loss < 0.1 {
								assert.Greater(t, floor, r.Events/10, "%s, seed %d: a floor that says something", name, seed)
							}
						}
					}
				}
			}
		}
	}
}

// TestFloorIsNotSureOfUnboundedDelays: a latency without a longest delay
// may carry a message past the run's end, so the floor claims nothing.
func TestFloorIsNotSureOfUnboundedDelays(t *testing.T) {
	cfg := contendedWorld(5, 60)
	cfg.Network.Latency = network.Exponential(time.Millisecond)
	plan, err := model.Compile(&cfg)
	require.NoError(t, err)
	assert.Zero(t, plan.FloorEvents())
	cfg.Network.Latency = network.Constant(time.Millisecond)
	cfg.Network.Links = []model.LinkConfig{{From: "c1", To: "n1", Latency: network.Lognormal(time.Millisecond, 1)}}
	plan, err = model.Compile(&cfg)
	require.NoError(t, err)
	assert.Zero(t, plan.FloorEvents())
}

// TestMarksRefuseARateThatIsNotFalling: at each mark of its rate (the
// events doubling), a run of an hour on 50M events is refused when its
// rate since the start and since the last mark would both exceed the
// budget 1.5 times over, and the recent rate has not fallen by more than a
// tenth: steady or rising, not falling (clients finishing their
// iterations), and never under the limit.
func TestMarksRefuseARateThatIsNotFalling(t *testing.T) {
	const maxEvents = 50_000_000
	// 1.5 × 50M events over an hour: 20.8k events per virtual second.
	for _, c := range []struct {
		name string
		now  []time.Duration // at 65,536 and 131,072 events
		want bool
	}{
		{"steady at 30k/s", []time.Duration{2185 * ms, 4369 * ms}, true},
		{"rising from 15k/s to 45k/s", []time.Duration{4369 * ms, 5825 * ms}, true},
		{"falling from 60k/s to 40k/s", []time.Duration{1092 * ms, 2730 * ms}, false},
		{"steady at 18k/s, under the limit", []time.Duration{3641 * ms, 7282 * ms}, false},
		{"rising, but under the limit since the start", []time.Duration{6000 * ms, 7000 * ms}, false},
	} {
		over := model.MarksOver(maxEvents, time.Hour, []uint64{65536, 131072}, c.now)
		assert.False(t, over[0], "%s: the first mark only marks", c.name)
		assert.Equal(t, c.want, over[1], c.name)
	}
}
