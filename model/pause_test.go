package model_test

import (
	"strconv"
	"strings"
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

// etcd's Mutex.Lock (client/v3/concurrency, v3.5 to v3.7.3) reads its own
// key after its wait, "make sure the session is not expired", and returns
// ErrSessionExpired if the key is gone. The store pauses 3 s with c1
// holding and c2 to c5 queued: every lease expires by the store's clock,
// and at wake the key passes down the queue to c2, c3, c4 and c5 in one
// cascade, each grant's lease already dead. None of those grants may
// become a hold: each waiter reads its key, finds it gone, and tries again.
func TestWaiterWhoseLeaseExpiredInAStorePauseDoesNotHold(t *testing.T) {
	cfg := leaseWorld()
	cfg.Faults = []model.Fault{{At: 500 * ms, Kind: model.Pause, Target: "store", For: 3 * s}}
	cfg.Duration = 10 * s
	r, err := model.RunTraced(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	wake := 3500 * ms
	cascade := map[string]bool{} // revisions granted at wake to leases that expired with them
	expired := map[string]bool{} // leases expired at wake
	expiredFails := 0
	for _, rec := range r.Trace {
		switch {
		case rec.Actor == "store" && rec.At == wake && rec.Kind == "lease-expired":
			lease, _ := rec.Get("lease")
			expired[lease] = true
		case rec.Actor == "store" && rec.At == wake && rec.Kind == "lock":
			lease, _ := rec.Get("lease")
			if rev, _ := rec.Get("rev"); rev != "" {
				cascade[rev+"/"+lease] = true
			}
		case rec.Kind == "try-fails":
			if why, _ := rec.Get("why"); strings.HasPrefix(why, "session is expired") {
				expiredFails++
			}
		}
	}
	dead := 0
	for k := range cascade {
		rev, lease, _ := strings.Cut(k, "/")
		if !expired[lease] {
			continue
		}
		dead++
		for _, h := range r.History.Holds {
			if strconv.FormatUint(h.Token, 10) == rev {
				t.Errorf("%s holds the lock from %v with token %s, granted at wake to lease %s, which expired in the pause", h.Client, h.Start, rev, lease)
			}
		}
	}
	if dead < 4 {
		t.Fatalf("%d grants at wake went to leases that expired in the pause; the scenario should give c2 to c5 one each", dead)
	}
	assert.Equal(t, dead, expiredFails, "each waiter granted a dead lease fails with the session expired")
	assert.Zero(t, r.Report.LostUpdates)
	assert.Positive(t, r.Report.WritesAccepted, "the lock is taken again after the pause")
}
