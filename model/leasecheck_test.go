package model_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// handOverSchedule is consensus-lease-pauses with c2 paused just after the
// hand-over from c1 (README, "Where the model and reality part").
const handOverSchedule = `faults=[{at="0.5s",kind="pause",target="c1",for="3s"},{at="5.5s",kind="pause",target="c2",for="3s"},{at="10.5s",kind="pause",target="c3",for="3s"},{at="2.626s",kind="pause",target="c2",for="3.906s"}]`

func handOverConfig(t *testing.T, sets ...string) model.Config {
	t.Helper()
	over, err := scenarios.ParseOverrides(append([]string{handOverSchedule}, sets...))
	require.NoError(t, err)
	sc, err := scenarios.LoadNamedWith("consensus-lease-pauses", over)
	require.NoError(t, err)
	return sc.Config
}

// With store.lease_check_every = 1s (etcd's lessor looks every 500 ms of
// wall time, 1 s of scenario time at the real runs' scale 2), c1's lease,
// c1 frozen at 0.5 s, is acted on at the store's first look after its 2 s
// deadline, at a phase drawn per run: c2 holds before its pause at 2.626 s
// only when that look comes first, so the schedule violates on some seeds
// and not others, as real runs do. Without the key the expiry is at the
// deadline and every seed violates.
func TestLeaseCheckEveryMakesTheHandOverDependOnThePhase(t *testing.T) {
	const seeds = 20
	expiryAfterDeadline := func(cfg model.Config, seed uint64) (time.Duration, bool) {
		r, err := model.RunTraced(cfg, seed)
		require.NoError(t, err)
		grant := find(r.Trace, "store", "lease-grant", "to", "c1")
		require.NotNil(t, grant)
		id, _ := grant.Get("lease")
		expired := find(r.Trace, "store", "lease-expired", "lease", id)
		require.NotNil(t, expired, "seed %d: c1's lease expires", seed)
		return expired.At - (grant.At + 2*time.Second), r.Report.MutexViolations > 0
	}

	checked := handOverConfig(t, "store.lease_check_every=1s")
	violating := 0
	lags := map[time.Duration]bool{}
	for seed := uint64(1); seed <= seeds; seed++ {
		lag, violated := expiryAfterDeadline(checked, seed)
		assert.GreaterOrEqual(t, lag, time.Duration(0), "seed %d: never before the deadline", seed)
		assert.Less(t, lag, time.Second+time.Millisecond, "seed %d: at the first look after it", seed)
		lags[lag] = true
		if violated {
			violating++
		}
		again, _ := expiryAfterDeadline(checked, seed)
		assert.Equal(t, lag, again, "seed %d: the phase is the seed's", seed)
	}
	assert.Greater(t, len(lags), seeds/2, "the phase differs from seed to seed")
	assert.Positive(t, violating, "a look before c2's pause hands it the key in time")
	assert.Less(t, violating, seeds, "a look after c2's pause does not")

	plain := handOverConfig(t)
	for seed := uint64(1); seed <= seeds; seed++ {
		lag, violated := expiryAfterDeadline(plain, seed)
		assert.GreaterOrEqual(t, lag, time.Duration(0), "seed %d", seed)
		assert.Less(t, lag, time.Millisecond, "seed %d: without the key, at the deadline", seed)
		assert.True(t, violated, "seed %d", seed)
	}
}
