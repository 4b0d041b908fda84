package consensus_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/sim"
)

// What a real run of etcd 3.4.23 showed (README, "Where the model and
// reality part"): the whole store paused just after it granted c1's lease
// and before c1's lock request reached it, for longer than the lease. c1's
// Put waited out the pause in the socket; at wake etcd applied it before
// the leader's revocation of the expired lease (etcd checks only that a
// lease exists, lessor.Lookup in etcdserver/apply.go, and the lessor ends
// it only when its revocation is applied), so c1 took the free key and its
// Mutex.Lock returned. The revocation then deleted the key, c2 took it
// with a fresh lease, and both read and wrote the resource: an update was
// lost. The store must take c1's lock request on a lease that its clock
// has expired but that is not ended yet; a keep-alive of it is still
// refused (TestStorePausedPastALeaseExpiresItAtWake in package model).
func TestLockRequestHeldThroughAStorePauseTakesTheKeyBeforeTheExpiry(t *testing.T) {
	sc, err := scenarios.LoadLibrary("consensus-lease-pauses")
	require.NoError(t, err)
	cfg := sc.Config
	cfg.Clients = cfg.Clients[:2]
	cfg.Faults = nil
	cfg.Duration = 8 * time.Second
	quiet, err := model.RunTraced(cfg, 1)
	require.NoError(t, err)
	granted := find(quiet.Trace, "store", "lease-grant", "to", "c1")
	require.NotNil(t, granted, "c1 is granted a lease")

	// Pause the store the moment its grant is on the wire: c1's lock
	// request arrives while it is frozen.
	const pause = 3 * time.Second
	cfg.Faults = []model.Fault{{At: granted.At + time.Microsecond, Kind: model.Pause, Target: "store", For: pause}}
	r, err := model.RunTraced(cfg, 1)
	require.NoError(t, err)
	wake := granted.At + time.Microsecond + pause

	lock := find(r.Trace, "store", "lock", "to", "c1")
	require.NotNil(t, lock, "c1's held lock request is served")
	assert.Equal(t, wake, lock.At, "at wake")
	lease, _ := lock.Get("lease")
	assert.Equal(t, "1", lease, "on the lease granted before the pause, 2 s old")
	expired := find(r.Trace, "store", "lease-expired", "lease", "1")
	require.NotNil(t, expired)
	assert.Equal(t, wake, expired.At, "the expiry, handled after the lock request, deletes the key")
	assert.Nil(t, find(r.Trace, "c1", "try-fails", "", ""), "c1's try succeeds, as etcd's Mutex.Lock returned")
	c2 := find(r.Trace, "store", "lock", "to", "c2")
	require.NotNil(t, c2, "c2 takes the key after the expiry")
	assert.Greater(t, c2.At, wake)
	assert.Positive(t, r.Report.LostUpdates, "c1 and c2 both read and wrote: an update is lost")
}

// find returns the first record of actor and kind whose field key is
// value (any, if key is empty), or nil.
func find(trace []sim.Record, actor, kind, key, value string) *sim.Record {
	for i := range trace {
		rec := &trace[i]
		if rec.Actor != actor || rec.Kind != kind {
			continue
		}
		if v, _ := rec.Get(key); key == "" || v == value {
			return rec
		}
	}
	return nil
}
