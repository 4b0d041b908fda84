package model_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redlocksim/redlocksim/model"
)

// Bug 1 of the fault-model issue: a store paused 3 s holds the expiry timer
// of a lease that came due while it was frozen; at wake, a keep-alive or a
// revoke queued before it cancels that timer, and the held timer must not
// fire afterwards. It used to, and the store panicked on a broken
// invariant ("expiry timer of lease 1").
func TestStorePauseDropsTimersCancelledBeforeWake(t *testing.T) {
	cfg := leaseWorld()
	for i := range cfg.Faults {
		cfg.Faults[i].Target = "store"
	}
	for seed := uint64(1); seed <= 20; seed++ {
		r, err := model.RunFast(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		assert.Positive(t, r.Report.AcquireSuccesses, "seed %d: the lock is still taken between the store's pauses", seed)
	}
}

// Bug 2 of the fault-model issue: c2 waits in the store's queue for the lock
// and pauses 1.2 s, less than the TTL less the keep-alive period. Its grant
// arrives while it is frozen, before its next keep-alive is due; at wake
// the grant and the overdue keep-alive are handled together, and the
// keep-alive must go out at once, as etcd's client sends one as soon as it
// is due. It used to go out a full period later, after the lease had
// expired and c3 had been granted the lock: an update was lost.
func TestOverdueKeepAliveGoesOutAtWake(t *testing.T) {
	cfg := leaseWorld()
	cfg.Faults = []model.Fault{{At: 900 * ms, Kind: model.Pause, Target: "c2", For: 1200 * ms}}
	cfg.Duration = 10 * s
	r := expectOutcome(t, cfg, "safe", "safe")
	assert.Zero(t, r.Report.LostUpdates)
	assert.Positive(t, r.Report.WritesAccepted)
}
