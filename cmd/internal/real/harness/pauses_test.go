package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// TestRealRandomPausesAreTheSimulators: a scenario with random client
// pauses, run for real, SIGSTOPs its client at the simulator's pauses for
// the same seed: the same count, each for the simulated length scaled, at
// the simulated time scaled (give or take the machine's scheduling).
func TestRealRandomPausesAreTheSimulators(t *testing.T) {
	needRedis(t)
	sc := load(t, "gc-pause")
	cfg := sc.Config
	cfg.Clients = append([]model.ClientConfig(nil), cfg.Clients...)
	cfg.Clients[1].Pauses = model.PauseConfig{Every: 4 * time.Second, Length: network.Lognormal(100*time.Millisecond, 0.5)}
	const seed, scale = 3, 5
	sim := model.RandomPauses(&cfg, seed)
	require.GreaterOrEqual(t, len(sim), 3, "the seed gives c2 a few pauses")
	for i := 1; i < len(sim); i++ {
		require.Greater(t, sim[i].At, sim[i-1].At+sim[i-1].For, "no pause overlaps the next (each one is then recorded)")
	}
	g := proc.NewGroup()
	res, err := Run(context.Background(), cfg, Options{Scale: scale, Seed: seed, Client: []string{clientBinary, "real-client"}, Group: g})
	require.NoError(t, g.Close())
	require.NoError(t, err)
	var real []string
	var at []time.Duration
	for _, e := range res.History.Log {
		if e.Kind == story.Pauses && e.Actor == "c2" {
			real = append(real, e.Text)
			at = append(at, e.At)
		}
	}
	require.Len(t, real, len(sim), "c2's pauses for real: %q", real)
	for i, p := range sim {
		assert.True(t, strings.HasSuffix(real[i], " for "+scaled(p.For, scale).String()), "pause %d: %q, want the simulated %v scaled", i, real[i], p.For)
		assert.InDelta(t, scaled(p.At, scale).Seconds(), at[i].Seconds(), 0.3, "pause %d's start (the machine's scheduling moves it a little)", i)
	}
}

// TestScaledPausesAreTheModelsScaled: the harness's schedule is the
// model's, every time divided by the scale.
func TestScaledPausesAreTheModelsScaled(t *testing.T) {
	cfg := load(t, "gc-pause").Config
	cfg.Clients = append([]model.ClientConfig(nil), cfg.Clients...)
	cfg.Clients[0].Pauses = model.PauseConfig{Every: time.Second, Length: network.Exponential(50 * time.Millisecond)}
	want := model.RandomPauses(&cfg, 9)
	got := scaledPauses(&cfg, 9, 4)
	require.Len(t, got, len(want))
	require.NotEmpty(t, got)
	for i := range want {
		assert.Equal(t, want[i].Client, got[i].Client)
		assert.Equal(t, scaled(want[i].At, 4), got[i].At)
		assert.Equal(t, scaled(want[i].For, 4), got[i].For)
	}
}

// A client takes its pauses on acquisition at the first acquisition at
// or after each one's from, the longest of those due at once, each once,
// and none once the run is over; the harness lists them from the
// scenario's faults in the order of their from.
func TestPausesOnAcquireAreDueOnceFromTheirTime(t *testing.T) {
	cfg := load(t, "zookeeper-session-pause").Config
	cfg.Faults = []model.Fault{
		{At: 5 * time.Second, Kind: model.Pause, Target: "c1", For: 2 * time.Second, OnAcquire: true},
		{At: time.Second, Kind: model.Pause, Target: "c1", For: 3 * time.Second, OnAcquire: true},
		{At: 2 * time.Second, Kind: model.Pause, Target: "c1", For: time.Second, OnAcquire: true},
		{At: 2 * time.Second, Kind: model.Pause, Target: "c2", For: time.Second, OnAcquire: true},
		{At: 9 * time.Second, Kind: model.Pause, Target: "c1", For: time.Second, OnAcquire: true},
		{At: 3 * time.Second, Kind: model.Pause, Target: "c1", For: time.Second},
	}
	r := &run{cfg: &cfg}
	stops := r.acquireStops("c1")
	assert.Equal(t, []AcquireStop{{time.Second, 3 * time.Second}, {2 * time.Second, time.Second}, {5 * time.Second, 2 * time.Second}, {9 * time.Second, time.Second}}, stops)
	w := &workload{spec: ClientSpec{End: 10 * time.Second}, stops: stops}
	assert.Zero(t, w.dueStop(500*time.Millisecond), "before the first is armed")
	assert.Equal(t, 3*time.Second, w.dueStop(2500*time.Millisecond), "two armed at once: the longer")
	assert.Zero(t, w.dueStop(4*time.Second), "each is taken once")
	assert.Equal(t, 2*time.Second, w.dueStop(6*time.Second))
	assert.Zero(t, w.dueStop(10*time.Second), "an acquisition at the run's end pauses nothing")
	assert.Empty(t, w.stops, "but takes its pause all the same")
}
