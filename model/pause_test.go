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
