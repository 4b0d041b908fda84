package model_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
)

// A pause with OnAcquire is Kleppmann's: it strikes the client as it
// acquires, whatever the turn-taking before. Three clients take turns at
// random; c2's pause of 10.5 s, above the 10 s TTL, starts at c2's first
// acquisition at or after 12 s on every seed and breaks mutual exclusion
// on every one, while the same pause at 12 s sharp breaks it only on the
// seeds whose turn-taking has c2 holding then.
func TestPauseOnAcquireStrikesTheNextHold(t *testing.T) {
	cfg := redlockWorld(3)
	cfg.Duration = 40 * s
	cfg.Faults = []model.Fault{{At: 12 * s, Kind: model.Pause, Target: "c2", For: 10500 * ms, OnAcquire: true}}
	timed := cfg
	timed.Faults = []model.Fault{{At: 12 * s, Kind: model.Pause, Target: "c2", For: 10500 * ms}}
	var timedBroke int
	for seed := uint64(1); seed <= 20; seed++ {
		r, err := model.RunTraced(cfg, seed)
		require.NoError(t, err)
		var acquired, paused time.Duration
		for _, rec := range r.Trace {
			switch {
			case rec.Actor == "c2" && rec.Kind == "acquires" && rec.At >= 12*s && acquired == 0:
				acquired = rec.At
			case rec.Actor == "c2" && rec.Kind == "pauses":
				assert.Zero(t, paused, "seed %d: one pause, at c2's next acquisition only", seed)
				paused = rec.At
			}
		}
		require.Positive(t, acquired, "seed %d: c2 acquires after 12s", seed)
		assert.Equal(t, acquired, paused, "seed %d: the pause starts at c2's first acquisition at or after 12s", seed)
		assert.False(t, r.MutexSafe(), "seed %d: a pause longer than the TTL from the acquisition on breaks mutex", seed)
		if !run(t, timed, seed).MutexSafe() {
			timedBroke++
		}
	}
	assert.Less(t, timedBroke, 20, "a pause at a fixed time strikes a hold of c2 only on some seeds")
	t.Logf("the pause at 12s sharp broke mutex on %d of 20 seeds", timedBroke)
}

// A client that never acquires again after At is never paused.
func TestPauseOnAcquireWithoutAnAcquisitionDoesNothing(t *testing.T) {
	cfg := redlockWorld(2)
	cfg.Duration = 20 * s
	cfg.Work.Iterations = 1
	cfg.Faults = []model.Fault{{At: 15 * s, Kind: model.Pause, Target: "c1", For: 2 * s, OnAcquire: true}}
	r, err := model.RunTraced(cfg, 1)
	require.NoError(t, err)
	for _, rec := range r.Trace {
		assert.NotEqual(t, "pauses", rec.Kind, "%v: nobody acquires after 15s, so nobody pauses", rec)
	}
}

func TestPauseOnAcquireNeedsAClient(t *testing.T) {
	cfg := redlockWorld(2)
	cfg.Faults = []model.Fault{{At: s, Kind: model.Pause, Target: "n1", For: s, OnAcquire: true}}
	_, err := model.Run(cfg, 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `only a client acquires the lock, and "n1" is not one (clients: c1, c2)`)
}
