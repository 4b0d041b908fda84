package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/proto"
)

// A real run of seed s gives every process the clock the simulated run of
// seed s does: the rate spread drawn from the same stream, the clock
// faults folded in the same way.
func TestProcessClockIsTheModels(t *testing.T) {
	cfg := load(t, "baseline").Config // rate_spread_ppm 100 on nodes and clients
	cfg.Faults = append(cfg.Faults, model.Fault{At: 3 * time.Second, Kind: model.ClockStep, Target: "n2", By: 2 * time.Second})
	for _, seed := range []uint64{1, 7} {
		res, err := model.Run(cfg, seed)
		require.NoError(t, err)
		check := func(name string, spec clocks.Spec, spread float64) {
			got, ok := processClock(&cfg, name, spec, spread, seed)
			require.True(t, ok, name)
			c, err := clocks.New(got)
			require.NoError(t, err)
			for _, at := range []time.Duration{0, time.Second, 3 * time.Second, 17*time.Second + 3} {
				assert.Equal(t, res.Clocks[name].Wall.Local(at), c.Local(at), "%s at %v, seed %d", name, at, seed)
			}
		}
		for _, n := range cfg.Nodes {
			check(n.Name, n.Clock, n.RateSpread)
		}
		for _, c := range cfg.Clients {
			check(c.Name, c.Clock, c.RateSpread)
		}
	}
	_, ok := processClock(&cfg, "n1", clocks.Spec{}, 0, 1)
	assert.False(t, ok, "no spread, no spec, no fault: the machine's clock")
}

func TestScaleDividesClocks(t *testing.T) {
	cfg := load(t, "clock-jump").Config
	cfg.Nodes[0].Clock = clocks.Spec{Offset: 40 * time.Millisecond, RatePPM: 300,
		Steps:       []clocks.Step{{At: time.Second, By: -8 * time.Second}},
		Slews:       []clocks.Slew{{At: 2 * time.Second, By: 4 * time.Millisecond, MaxPPM: 800}},
		RateChanges: []clocks.RateChange{{At: 6 * time.Second, RatePPM: -5}}}
	s := Scale(cfg, 4)
	c := s.Nodes[0].Clock
	assert.Equal(t, 10*time.Millisecond, c.Offset)
	assert.Equal(t, 300.0, c.RatePPM, "rates stay")
	assert.Equal(t, clocks.Step{At: 250 * time.Millisecond, By: -2 * time.Second}, c.Steps[0])
	assert.Equal(t, clocks.Slew{At: 500 * time.Millisecond, By: time.Millisecond, MaxPPM: 800}, c.Slews[0])
	assert.Equal(t, 1500*time.Millisecond, c.RateChanges[0].At)
	step := s.Faults[len(s.Faults)-1]
	require.Equal(t, model.ClockStep, step.Kind)
	assert.Equal(t, 9*time.Second/4, step.By, "the clock step's size scales with its time")
	assert.Equal(t, -8*time.Second, cfg.Nodes[0].Clock.Steps[0].By, "Scale must not write the caller's clocks")
}

func notesOf(t *testing.T, name string) string {
	t.Helper()
	cfg := load(t, name).Config
	refused, notes := Refusals(&cfg)
	require.Empty(t, refused, name)
	return strings.Join(notes, "\n")
}

func TestClocksRunForRealWithNotes(t *testing.T) {
	assert.Contains(t, notesOf(t, "clock-jump"), "the clocks of n3 run for real: each redis-server reads its node's clock through the clock library")
	assert.Contains(t, notesOf(t, "server-drift-large"), "the clocks of n1, n2, n3, n4, n5 run for real")
	assert.Contains(t, notesOf(t, "client-clock-step-back"), "the clocks of c1 run for real: the raw client reads them through their segments")
	assert.Contains(t, notesOf(t, "client-clock-step-back-monotonic"),
		"c1's wall clock is not moved, and need not be: its lock client times validity on Go's monotonic clock")
	baseline := notesOf(t, "baseline")
	assert.Contains(t, baseline, "c1's monotonic clock runs at the machine's rate")
	assert.Contains(t, baseline, "the clocks of n1, n2, n3, n4, n5 run for real")

	cfg := load(t, "clock-jump").Config
	cfg.Faults[len(cfg.Faults)-1].By = -9 * time.Second
	_, notes := Refusals(&cfg)
	assert.Contains(t, strings.Join(notes, "\n"), "n3's wall clock goes back: Redis takes that, and its keys live longer")
}

func TestClockWithoutAClockFileIsRefused(t *testing.T) {
	cfg := load(t, "consensus-lease-fencing").Config
	cfg.Store.Clock = clocks.Spec{RatePPM: 20}
	cfg.Faults = append(cfg.Faults, model.Fault{At: time.Second, Kind: model.ClockStep, Target: "store", By: time.Second})
	refused, _ := Refusals(&cfg)
	var whats []string
	for _, r := range refused {
		whats = append(whats, r.What)
		assert.Contains(t, r.Reason, "etcd is a Go program")
	}
	assert.ElementsMatch(t, []string{"store.clock", "clock-step fault on store"}, whats)
}

// A clock change the scale brings below a millisecond cannot show on a
// real redis-server (whole-millisecond expiry): refused, naming it.
func TestClockBelowResolutionIsRefused(t *testing.T) {
	cfg := load(t, "clock-jump").Config
	cfg.Faults[len(cfg.Faults)-1].By = 3 * time.Millisecond
	cfg.Nodes[1].Clock.Offset = -2 * time.Millisecond
	err := CheckScale(&cfg, 4)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--scale 4 makes faults[4].by (clock-step on n3) 750µs, below the 1ms a real redis-server resolves (Redis keeps expiry in whole milliseconds; largest scale: 3)")
	assert.Contains(t, err.Error(), "--scale 4 makes nodes.n2.clock.offset -500µs")
	assert.NoError(t, CheckScale(&cfg, 2))
}

// The raw client's own clocks read the scenario's segments from
// CLOCK_MONOTONIC - T0, and a timer set on the wall clock waits out a
// backward step.
func TestOwnClockReadsTheSegments(t *testing.T) {
	spec := clocks.Spec{Steps: []clocks.Step{{At: time.Second, By: -time.Hour}}, RatePPM: 1000}
	c, err := newOwnClock(&spec)
	require.NoError(t, err)
	t0 := monoNow() - int64(2*time.Second)
	c.t0.Store(t0)
	wall, mono := c.read(proto.Wall), c.read(proto.Mono)
	assert.InDelta(t, float64(2*time.Second*1001/1000-time.Hour), float64(wall), float64(50*time.Millisecond))
	assert.InDelta(t, float64(2*time.Second*1001/1000), float64(mono), float64(50*time.Millisecond))
	// The wall clock read 1.001 s just before the step; it reads that
	// again an hour (less a thousandth) of true time later.
	at := c.when(proto.Wall, 1001*time.Millisecond)
	assert.InDelta(t, float64(time.Hour)/1.001+float64(time.Second), float64(at-t0), float64(time.Millisecond))
	ideal, err := newOwnClock(nil)
	require.NoError(t, err)
	ideal.t0.Store(t0)
	assert.InDelta(t, float64(2*time.Second), float64(ideal.read(proto.Wall)), float64(50*time.Millisecond))
	_, err = newOwnClock(&clocks.Spec{RatePPM: 1e9})
	assert.Error(t, err, "a clock outside the rate bound is an error")
}
