package model_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// TestRandomPausesAreTheWorldsPauses: the schedule RandomPauses draws as
// data is the one a run makes, pause for pause, for several seeds; the
// real harness plays that schedule, so a seed means the same pauses in
// both.
func TestRandomPausesAreTheWorldsPauses(t *testing.T) {
	cfg := redlockWorld(3)
	cfg.Duration = 30 * s
	client_(&cfg, "c1").Pauses = model.PauseConfig{Every: 2 * s, Length: network.Lognormal(300*ms, 1)}
	client_(&cfg, "c3").Pauses = model.PauseConfig{Every: 5 * s, Length: network.Exponential(time.Second)}
	for seed := uint64(1); seed <= 4; seed++ {
		want := model.RandomPauses(&cfg, seed)
		require.NotEmpty(t, want)
		r, err := model.RunTraced(cfg, seed)
		require.NoError(t, err)
		var got []model.RandomPause
		for _, rec := range r.Trace {
			if rec.Kind != story.Pauses {
				continue
			}
			v, _ := rec.Get("for")
			d, err := time.ParseDuration(v)
			require.NoError(t, err)
			got = append(got, model.RandomPause{Client: rec.Actor, At: rec.At, For: d})
		}
		// The trace is in time order; the schedule is by client, then time.
		assert.ElementsMatch(t, want, got, "seed %d", seed)
		clients := map[string]bool{}
		for _, p := range want {
			clients[p.Client] = true
			assert.Less(t, p.At, cfg.Duration)
		}
		assert.Equal(t, map[string]bool{"c1": true, "c3": true}, clients, "seed %d: only the clients with pauses pause", seed)
	}
}

// TestPauseDrawsOrder pins the draw order a seed's meaning rests on:
// arrival, length, gap, length, ... and no length for the arrival past
// the end, so a shorter run's pauses are a prefix of a longer one's.
func TestPauseDrawsOrder(t *testing.T) {
	cfg := redlockWorld(1)
	client_(&cfg, "c1").Pauses = model.PauseConfig{Every: s, Length: network.Lognormal(100*ms, 0.5)}
	long := model.RandomPauses(&cfg, 7)
	cfg.Duration = 20 * s
	short := model.RandomPauses(&cfg, 7)
	require.NotEmpty(t, short)
	require.Greater(t, len(long), len(short))
	assert.Equal(t, long[:len(short)], short)
	for i := 1; i < len(long); i++ {
		assert.Greater(t, long[i].At, long[i-1].At)
	}
}

// TestPauseLongerThanTimeItselfSaturates: a pause drawn as long as a
// Duration holds (a tail this heavy draws some) ends at the end of time,
// not in the past: the run finishes, and the paused client never wakes in
// it.
func TestPauseLongerThanTimeItselfSaturates(t *testing.T) {
	cfg := redlockWorld(2)
	cfg.Duration = 20 * s
	client_(&cfg, "c1").Pauses = model.PauseConfig{Every: s, Length: network.Lognormal(time.Second, 40)}
	saturated := 0
	for seed := uint64(1); seed <= 20; seed++ {
		for _, p := range model.RandomPauses(&cfg, seed) {
			if p.For > 100*365*24*time.Hour {
				saturated++
			}
		}
		_, err := model.RunTraced(cfg, seed)
		require.NoError(t, err, "seed %d", seed)
	}
	require.Positive(t, saturated, "some pauses are longer than a century (the case under test)")
}
