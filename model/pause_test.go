package model_test

import (
	"testing"
	"time"

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

// "A lease is revoked only by a running leader, by its own clock": the
// store pauses 3 s, longer than c1's 2 s lease. c1's keep-alive queues at
// the store's socket before the lease's expiry comes due; at wake the store
// serves it first, and must find the lease expired by its clock and refuse
// it, as etcd's lessor.Renew does, rather than revive it.
func TestStorePausedPastALeaseExpiresItAtWake(t *testing.T) {
	cfg := leaseWorld()
	cfg.Clients = cfg.Clients[:1]
	cfg.Work.CriticalSection = 6 * s
	cfg.Work.Iterations = 1
	cfg.Faults = []model.Fault{{At: s, Kind: model.Pause, Target: "store", For: 3 * s}}
	cfg.Duration = 10 * s
	r, err := model.RunTraced(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	var expired, lost, keptAlive time.Duration
	for _, rec := range r.Trace {
		switch {
		case rec.Actor == "store" && rec.Kind == "lease-expired" && expired == 0:
			expired = rec.At
		case rec.Actor == "store" && rec.Kind == "keepalive" && rec.At > s:
			keptAlive = rec.At
		case rec.Actor == "c1" && rec.Kind == "lease-lost":
			lost = rec.At
		}
	}
	assert.Equal(t, 4*s, expired, "the lease expires when the store wakes")
	assert.Zero(t, keptAlive, "no keep-alive revives the lease after the pause")
	assert.Positive(t, lost, "c1 learns that its lease is gone")
}
