package consensus

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
)

const (
	ms = time.Millisecond
	s  = time.Second
)

// rig is a store and three clients on a zero-latency network, so reply
// times are service times.
type rig struct {
	w          *actortest.World
	st         *Store
	env        *actortest.Proc // the store's
	c1, c2, c3 *actortest.Probe
}

func newRig(t *testing.T, cfg Config, spec clocks.Spec) *rig {
	w := actortest.New(t, 1, true)
	r := &rig{w: w, st: New(cfg)}
	r.env = w.Add("store", r.st, spec)
	r.c1, r.c2, r.c3 = w.AddProbe("c1"), w.AddProbe("c2"), w.AddProbe("c3")
	w.Start()
	return r
}

func (r *rig) send(t time.Duration, c *actortest.Probe, m proto.Msg) {
	c.Send(t, r.env.Name(), m)
}

func grant(req uint64, ttl time.Duration) proto.Msg {
	return proto.Msg{Kind: proto.LeaseGrant, Req: req, TTL: ttl}
}

func keepAlive(req uint64, id int64) proto.Msg {
	return proto.Msg{Kind: proto.LeaseKeepAlive, Req: req, Int: id}
}

func revoke(req uint64, id int64) proto.Msg {
	return proto.Msg{Kind: proto.LeaseRevoke, Req: req, Int: id}
}

func lockCreate(req uint64, id int64, value uint64) proto.Msg {
	return proto.Msg{Kind: proto.LockCreate, Req: req, Key: "lock", Int: id, Value: value}
}

func unlock(req uint64, id int64) proto.Msg {
	return proto.Msg{Kind: proto.Del, Req: req, Key: "lock", Int: id}
}

// keyEvents lists KeySet and KeyGone observations as "at kind holder rev lock"; why a key went is in the trace.
func (r *rig) keyEvents() []string {
	var out []string
	for _, o := range r.w.Observations() {
		switch o.Kind {
		case proto.KeySet:
			out = append(out, fmt.Sprintf("%v set %s rev %d lock %d", o.At, r.w.Net().Name(o.Peer), o.Token, o.Lock))
		case proto.KeyGone:
			out = append(out, fmt.Sprintf("%v gone %s rev %d lock %d expired=%v", o.At, r.w.Net().Name(o.Peer), o.Token, o.Lock, o.OK))
		}
	}
	return out
}

// A lease lives TTL on the store's monotonic clock from its grant and from
// each keep-alive: a store whose oscillator is 5% slow expires it late in
// true time, and steps of its wall clock change nothing.
func TestLeaseExpiryFollowsTheMonotonicClock(t *testing.T) {
	spec := clocks.Spec{RatePPM: -50_000, Offset: time.Hour, Steps: []clocks.Step{{At: 500 * ms, By: 10 * s}}}
	r := newRig(t, Config{}, spec)
	mono := r.env.Clocks().Mono
	r.send(0, r.c1, grant(1, 2*s))
	r.send(1*s, r.c1, keepAlive(2, 1))
	r.w.Run(1*s - 1)

	g := r.c1.Reply(1)
	assert.Equal(t, proto.Msg{Kind: proto.StoreReply, Req: 1, OK: true, Int: 1, TTL: 2 * s}, g.Msg)
	info, ok := r.st.Lease(1)
	require.True(t, ok)
	assert.Equal(t, LeaseInfo{TTL: 2 * s, Expiry: 2 * s, Owner: r.c1.Proc().Self()}, info, "expiry is a monotonic reading")

	expiry := mono.When(mono.Local(1*s)+2*s, 1*s)
	assert.Greater(t, expiry, 3*s, "a slow clock expires the lease late in true time")
	r.w.Run(expiry - 1)
	ka := r.c1.Reply(2)
	assert.Equal(t, proto.Msg{Kind: proto.StoreReply, Req: 2, OK: true, Int: 1, TTL: 2 * s}, ka.Msg)
	_, ok = r.st.Lease(1)
	assert.True(t, ok, "alive 1ns before its expiry")
	r.w.Run(expiry)
	_, ok = r.st.Lease(1)
	assert.False(t, ok, "gone at its expiry")
	assert.Contains(t, r.w.TraceLines(), fmt.Sprintf("%s store lease-expired lease=1", fmtTime(expiry)))

	r.send(expiry, r.c1, keepAlive(3, 1))
	r.send(expiry, r.c1, revoke(4, 1))
	r.send(expiry, r.c1, keepAlive(5, 99))
	r.w.RunAll()
	for _, req := range []uint64{3, 4, 5} {
		got := r.c1.Reply(req)
		assert.Equal(t, proto.NoLease, got.Err, "request %d", req)
		assert.False(t, got.OK, "request %d", req)
	}
	assert.Equal(t, Stats{Grants: 1, KeepAlives: 1, Expiries: 1, Refusals: 3}, r.st.Stats())
}

func fmtTime(d time.Duration) string { return fmt.Sprintf("%d.%09ds", d/s, d%s) }

// Jepsen's etcd lock: a holder's lease expires (it paused and sent no
// keep-alive), its key is deleted, and the next waiter is granted at that
// instant with a higher revision; revoking frees the key for the next.
func TestLockWaitersAreGrantedInOrderWithIncreasingRevisions(t *testing.T) {
	r := newRig(t, Config{}, clocks.Spec{})
	r.send(0, r.c1, grant(1, 2*s))
	r.send(0, r.c2, grant(1, 10*s))
	r.send(0, r.c3, grant(1, 10*s))
	r.send(10*ms, r.c1, lockCreate(2, 1, 0xc1))
	r.send(20*ms, r.c2, lockCreate(2, 2, 0xc2))
	r.send(30*ms, r.c3, lockCreate(2, 3, 0xc3))
	r.w.Run(1 * s)

	assert.Equal(t, proto.Msg{Kind: proto.StoreReply, Req: 2, OK: true, Token: 1, Int: 1, Key: "lock"}, r.c1.Reply(2).Msg)
	assert.False(t, r.c2.Replied(2), "c2 waits")
	assert.False(t, r.c3.Replied(2), "c3 waits")
	assert.Equal(t, 2, r.st.Waiting("lock"))

	r.send(3*s, r.c2, revoke(3, 2))
	r.w.Run(5 * s)
	c2 := r.c2.Reply(2)
	assert.Equal(t, 2*s, c2.At, "granted when c1's lease expired")
	assert.Equal(t, uint64(2), c2.Token)
	assert.True(t, c2.OK)
	c3 := r.c3.Reply(2)
	assert.Equal(t, 3*s, c3.At, "granted when c2 revoked")
	assert.Equal(t, uint64(3), c3.Token)
	assert.True(t, r.c2.Reply(3).OK)
	h, ok := r.st.Holder("lock")
	require.True(t, ok)
	assert.Equal(t, Holder{Lease: 3, Rev: 3, Value: 0xc3, Peer: r.c3.Proc().Self()}, h)
	assert.Equal(t, []string{
		"10ms set c1 rev 1 lock 193",
		"2s gone c1 rev 1 lock 193 expired=true",
		"2s set c2 rev 2 lock 194",
		"3s gone c2 rev 2 lock 194 expired=false",
		"3s set c3 rev 3 lock 195",
	}, r.keyEvents())
	assert.Contains(t, r.w.TraceLines(), "2.000000000s store lease-expired lease=1 key=lock rev=1")
	assert.Contains(t, r.w.TraceLines(), "3.000000000s store lease-revoked lease=2 key=lock rev=2", "the key goes because c2 revoked its lease")
	assert.Contains(t, r.w.TraceLines(), "0.020000000s store lock-wait key=lock lease=2 by=c2 position=1 holder=1")
}

// etcd's Unlock deletes the client's own key: another lease's Del leaves
// the holder alone, the holder's frees the key, and a waiter's withdraws
// its request, which is then never answered.
func TestDelReleasesOnlyTheHoldersKey(t *testing.T) {
	r := newRig(t, Config{}, clocks.Spec{})
	for _, c := range []*actortest.Probe{r.c1, r.c2, r.c3} {
		r.send(0, c, grant(1, 10*s))
	}
	r.send(1*ms, r.c1, lockCreate(2, 1, 1))
	r.send(2*ms, r.c2, lockCreate(2, 2, 2))
	r.send(3*ms, r.c3, lockCreate(2, 3, 3))
	r.send(10*ms, r.c2, unlock(3, 2)) // c2 gives up waiting
	r.send(20*ms, r.c3, unlock(3, 3)) // not c3's key either: withdraws c3's wait
	r.send(30*ms, r.c1, unlock(3, 1))
	r.send(40*ms, r.c1, unlock(4, 1)) // again: nothing left
	r.w.Run(1 * s)

	assert.Equal(t, int64(0), r.c2.Reply(3).Int)
	assert.Equal(t, int64(0), r.c3.Reply(3).Int)
	del := r.c1.Reply(3)
	assert.True(t, del.OK)
	assert.Equal(t, int64(1), del.Int)
	assert.Equal(t, int64(0), r.c1.Reply(4).Int)
	assert.False(t, r.c2.Replied(2), "a withdrawn wait is not answered")
	assert.False(t, r.c3.Replied(2), "a withdrawn wait is not answered")
	_, held := r.st.Holder("lock")
	assert.False(t, held)
	assert.Equal(t, []string{"1ms set c1 rev 1 lock 1", "30ms gone c1 rev 1 lock 1 expired=false"}, r.keyEvents())
	assert.Contains(t, r.w.TraceLines(), "0.030000000s store unlock key=lock lease=1 rev=1 by=c1", "the key goes because c1 deleted it")
	assert.Equal(t, uint64(1), r.st.Stats().Deletes)
	assert.Equal(t, 3, r.st.Leases(), "Del leaves leases alone")
}

// A waiter whose lease dies is answered NoLease at once and skipped: the
// key goes to the next live waiter. A lock request on a dead lease is
// refused at once.
func TestWaiterWithDeadLeaseIsSkipped(t *testing.T) {
	r := newRig(t, Config{}, clocks.Spec{})
	r.send(0, r.c1, grant(1, 10*s))
	r.send(0, r.c2, grant(1, 1*s)) // and no keep-alive
	r.send(0, r.c3, grant(1, 10*s))
	r.send(1*ms, r.c1, lockCreate(2, 1, 1))
	r.send(2*ms, r.c2, lockCreate(2, 2, 2))
	r.send(3*ms, r.c3, lockCreate(2, 3, 3))
	r.send(1500*ms, r.c2, lockCreate(3, 2, 2))
	r.send(2*s, r.c1, revoke(3, 1))
	r.w.RunAll()

	c2 := r.c2.Reply(2)
	assert.Equal(t, 1*s, c2.At)
	assert.Equal(t, proto.Msg{Kind: proto.StoreReply, Req: 2, Err: proto.NoLease, Int: 2, Key: "lock"}, c2.Msg)
	late := r.c2.Reply(3)
	assert.Equal(t, 1500*ms, late.At)
	assert.Equal(t, proto.NoLease, late.Err)
	c3 := r.c3.Reply(2)
	assert.Equal(t, 2*s, c3.At)
	assert.True(t, c3.OK)
	assert.Equal(t, uint64(2), c3.Token, "revisions count keys created, not requests")
	assert.Equal(t, 0, r.st.Waiting("lock"))
	assert.Equal(t, uint64(2), r.st.Stats().Refusals)
}

// While the store has no leader, requests wait and leases do not expire;
// when it is back every live lease is renewed to now+TTL and the queue is
// served in order.
func TestUnavailabilityQueuesRequestsAndRenewsLeases(t *testing.T) {
	r := newRig(t, Config{}, clocks.Spec{RatePPM: 20_000})
	mono := r.env.Clocks().Mono
	r.send(0, r.c1, grant(1, 2*s))
	r.send(0, r.c1, lockCreate(2, 1, 1))
	r.w.At(1500*ms, func() { r.st.SetAvailable(r.env, false) })
	r.send(1600*ms, r.c2, grant(1, 5*s))
	r.send(1700*ms, r.c3, grant(1, 5*s))
	r.send(1800*ms, r.c2, lockCreate(2, 2, 2)) // lease 2 does not exist yet; by then it will
	r.w.At(10*s, func() { r.st.SetAvailable(r.env, true) })
	r.w.At(10*s, func() { r.st.SetAvailable(r.env, true) }) // again: no effect
	r.w.Run(10*s - 1)

	assert.False(t, r.st.Available())
	assert.Equal(t, 3, r.st.Queued())
	assert.False(t, r.c2.Replied(1))
	_, ok := r.st.Lease(1)
	assert.True(t, ok, "no lease expires without a leader")
	assert.Equal(t, 1, len(r.keyEvents()))

	renewed := mono.Local(10 * s)
	expiry := mono.When(renewed+2*s, 10*s)
	r.w.Run(expiry)
	assert.Equal(t, 10*s, r.c2.Reply(1).At)
	assert.Equal(t, int64(2), r.c2.Reply(1).Int, "served in arrival order: c2's grant first")
	assert.Equal(t, int64(3), r.c3.Reply(1).Int)
	c2 := r.c2.Reply(2)
	assert.Equal(t, expiry, c2.At, "c1's renewed lease expires TTL after the leader came back")
	assert.Equal(t, uint64(2), c2.Token)
	assert.Equal(t, []string{
		"0s set c1 rev 1 lock 1",
		fmt.Sprintf("%v gone c1 rev 1 lock 1 expired=true", expiry),
		fmt.Sprintf("%v set c2 rev 2 lock 2", expiry),
	}, r.keyEvents())
	lines := strings.Join(r.w.TraceLines(), "\n")
	assert.Contains(t, lines, "1.500000000s store unavailable leases=1 queued=0")
	assert.Contains(t, lines, "10.000000000s store available renewed=1 queued=3")
}

// A keep-alive that waits out an election is served after the renewal and
// extends the lease from then.
func TestKeepAliveDuringUnavailabilityIsServedAfterRenewal(t *testing.T) {
	r := newRig(t, Config{}, clocks.Spec{})
	r.send(0, r.c1, grant(1, 2*s))
	r.w.At(1*s, func() { r.st.SetAvailable(r.env, false) })
	r.send(1500*ms, r.c1, keepAlive(2, 1))
	r.w.At(4*s, func() { r.st.SetAvailable(r.env, true) })
	r.w.RunAll()
	assert.Equal(t, 4*s, r.c1.Reply(2).At)
	assert.True(t, r.c1.Reply(2).OK)
	assert.Contains(t, r.w.TraceLines(), "6.000000000s store lease-expired lease=1")
}

// Requests take ServiceTime each on the monotonic clock, one at a time; a
// request in service when the leader goes is served from scratch later.
func TestServiceTime(t *testing.T) {
	r := newRig(t, Config{ServiceTime: 10 * ms}, clocks.Spec{})
	r.send(0, r.c1, grant(1, 2*s))
	r.send(0, r.c2, grant(1, 2*s))
	r.send(100*ms, r.c3, grant(1, 2*s))
	r.w.At(105*ms, func() { r.st.SetAvailable(r.env, false) })
	r.w.At(200*ms, func() { r.st.SetAvailable(r.env, true) })
	r.w.Run(time.Second)
	assert.Equal(t, 10*ms, r.c1.Reply(1).At)
	assert.Equal(t, 20*ms, r.c2.Reply(1).At)
	assert.Equal(t, 210*ms, r.c3.Reply(1).At)
	info, _ := r.st.Lease(1)
	assert.Equal(t, 200*ms+2*s, info.Expiry, "renewed when the leader came back")
	info, _ = r.st.Lease(3)
	assert.Equal(t, 210*ms+2*s, info.Expiry, "granted at the end of its service")
}

// A LockCreate retried by the holder's lease gets the same revision; the
// same lease queued twice is answered twice with one revision.
func TestLockRetriesAreIdempotent(t *testing.T) {
	r := newRig(t, Config{}, clocks.Spec{})
	r.send(0, r.c1, grant(1, 10*s))
	r.send(0, r.c2, grant(1, 10*s))
	r.send(1*ms, r.c1, lockCreate(2, 1, 1))
	r.send(2*ms, r.c1, lockCreate(3, 1, 1))
	r.send(3*ms, r.c2, lockCreate(2, 2, 2))
	r.send(4*ms, r.c2, lockCreate(3, 2, 2))
	r.send(1*s, r.c1, revoke(4, 1))
	r.w.RunAll()
	assert.Equal(t, uint64(1), r.c1.Reply(2).Token)
	assert.Equal(t, uint64(1), r.c1.Reply(3).Token)
	assert.Equal(t, 2*ms, r.c1.Reply(3).At)
	for _, req := range []uint64{2, 3} {
		got := r.c2.Reply(req)
		assert.Equal(t, uint64(2), got.Token, "request %d", req)
		assert.Equal(t, 1*s, got.At, "request %d", req)
	}
	assert.Equal(t, int64(2), r.st.Revision())
	assert.Equal(t, uint64(2), r.st.Stats().Locks)
}

// Two runs of the same script produce the same trace, line for line.
func TestDeterministicTrace(t *testing.T) {
	run := func() []string {
		r := newRig(t, Config{ServiceTime: 3 * ms}, clocks.Spec{RatePPM: 77})
		for i, c := range []*actortest.Probe{r.c1, r.c2, r.c3} {
			r.send(time.Duration(i)*ms, c, grant(1, time.Duration(i+1)*s))
			r.send(time.Duration(i)*ms+10*ms, c, lockCreate(2, int64(i+1), uint64(i)))
		}
		r.w.At(500*ms, func() { r.st.SetAvailable(r.env, false) })
		r.send(600*ms, r.c3, keepAlive(3, 3))
		r.w.At(900*ms, func() { r.st.SetAvailable(r.env, true) })
		r.w.RunAll()
		return r.w.TraceLines()
	}
	a := run()
	require.NotEmpty(t, a)
	assert.Equal(t, a, run())
}

func TestConfigAndMisuse(t *testing.T) {
	assert.NoError(t, Config{ServiceTime: ms}.Validate())
	err := Config{ServiceTime: -ms}.Validate()
	if assert.Error(t, err) {
		assert.Equal(t, "store service time -1ms is negative", err.Error())
	}
	assert.Panics(t, func() { New(Config{ServiceTime: -1}) })

	r := newRig(t, Config{}, clocks.Spec{})
	assert.PanicsWithValue(t, "consensus: unexpected RESOURCE-READ from c1", func() {
		r.st.Handle(r.env, r.c1.Proc().Self(), proto.Msg{Kind: proto.ResourceRead})
	})
	assert.PanicsWithValue(t, "consensus: c1 asks for a lease with TTL 0s", func() {
		r.st.Handle(r.env, r.c1.Proc().Self(), grant(1, 0))
	})
	assert.Panics(t, func() { r.st.OnTimer(r.env, tagService) })
	assert.Panics(t, func() { r.st.OnTimer(r.env, 7) })
}

func get(req uint64, id int64) proto.Msg {
	return proto.Msg{Kind: proto.Get, Req: req, Key: "lock", Int: id}
}

// etcd's Mutex.Lock answers at once when the key is free, and otherwise
// learns of its turn from a watch event (Waited), then reads its own key:
// the read finds it while the lease holds it, and not once the lease has
// expired with it ("session is expired").
func TestGetFindsTheKeyOnlyWhileTheLeaseHoldsIt(t *testing.T) {
	r := newRig(t, Config{}, clocks.Spec{})
	r.send(0, r.c1, grant(1, 10*s))
	r.send(0, r.c2, grant(1, 2*s))
	r.send(10*ms, r.c1, lockCreate(2, 1, 0xc1))
	r.send(20*ms, r.c2, lockCreate(2, 2, 0xc2))
	r.send(500*ms, r.c1, get(3, 1))
	r.send(500*ms, r.c2, get(3, 2)) // queued, not the holder
	r.send(1*s, r.c1, revoke(4, 1))
	r.send(1100*ms, r.c2, get(4, 2))
	r.send(2500*ms, r.c2, get(5, 2)) // lease 2 expired at 2 s
	r.w.Run(3 * s)

	assert.False(t, r.c1.Reply(2).Waited, "a free key is granted in the answer")
	assert.Equal(t, proto.Msg{Kind: proto.StoreReply, Req: 3, OK: true, Token: 1, Int: 1, Key: "lock"}, r.c1.Reply(3).Msg)
	assert.Equal(t, proto.NoLease, r.c2.Reply(3).Err, "a waiter does not hold the key")
	c2 := r.c2.Reply(2)
	assert.True(t, c2.OK)
	assert.True(t, c2.Waited, "a grant after a wait is marked")
	assert.Equal(t, 1*s, c2.At)
	assert.Equal(t, proto.Msg{Kind: proto.StoreReply, Req: 4, OK: true, Token: 2, Int: 2, Key: "lock"}, r.c2.Reply(4).Msg)
	gone := r.c2.Reply(5)
	assert.False(t, gone.OK)
	assert.Equal(t, proto.NoLease, gone.Err, "the key went with its lease")
	assert.Equal(t, uint64(2), r.st.Stats().Reads)
}

// leaseCheckScript is c1 holding the lock on a 2 s lease it stops keeping
// alive, c2 waiting for it, and c1's late keep-alive and read between the
// lease's expiry and the store's next look for expired leases.
func leaseCheckScript(t *testing.T, cfg Config) *rig {
	r := newRig(t, cfg, clocks.Spec{})
	r.send(0, r.c1, grant(1, 2*s))
	r.send(0, r.c2, grant(1, 10*s))
	r.send(10*ms, r.c1, lockCreate(2, 1, 0xc1))
	r.send(20*ms, r.c2, lockCreate(2, 2, 0xc2))
	r.send(2100*ms, r.c1, get(3, 1))
	r.send(2100*ms, r.c1, keepAlive(4, 1))
	return r
}

// etcd's lessor looks for expired leases every 500 ms (lease/lessor.go,
// runLoop), so the next holder gets the key at the first look at or after
// the holder's deadline, never before; in between the lease is expired as
// etcd sees it: a keep-alive is refused once the revocation is done
// (lessor.Renew waits for it), while a read is served.
func TestLeaseCheckEveryActsOnExpiryAtTheNextLook(t *testing.T) {
	cfg := Config{LeaseCheckEvery: 500 * ms, LeaseCheckPhase: 200 * ms}
	r := leaseCheckScript(t, cfg)
	r.w.Run(2200*ms - 1)
	_, alive := r.st.Lease(1)
	assert.True(t, alive, "expired at 2 s, not yet looked at")
	assert.False(t, r.c2.Replied(2), "no grant before the look")
	assert.Equal(t, proto.Msg{Kind: proto.StoreReply, Req: 3, OK: true, Token: 1, Int: 1, Key: "lock"}, r.c1.Reply(3).Msg,
		"a read of an expired, unrevoked lease's key is served")
	assert.False(t, r.c1.Replied(4), "the keep-alive waits for the revocation")

	r.w.Run(3 * s)
	c2 := r.c2.Reply(2)
	assert.Equal(t, 2200*ms, c2.At, "granted at the first look after 2 s: 200ms + 4×500ms")
	assert.True(t, c2.OK)
	ka := r.c1.Reply(4)
	assert.Equal(t, 2200*ms, ka.At)
	assert.Equal(t, proto.NoLease, ka.Err, "refused at the revocation")
	assert.Equal(t, []string{
		"10ms set c1 rev 1 lock 193",
		"2.2s gone c1 rev 1 lock 193 expired=true",
		"2.2s set c2 rev 2 lock 194",
	}, r.keyEvents())
	assert.Equal(t, Stats{Grants: 2, Expiries: 1, Locks: 2, Waits: 1, Reads: 1, Refusals: 1}, r.st.Stats())

	// c2's lease, granted at 0 with 10 s, is acted on at the look after 10 s.
	r.w.Run(11 * s)
	_, alive = r.st.Lease(2)
	assert.False(t, alive)
	assert.Contains(t, r.w.TraceLines(), "10.200000000s store lease-expired lease=2 key=lock rev=2")
}

// With no interval, the same script is as before: the grant at the
// deadline, the keep-alive refused as it is served.
func TestLeaseCheckEveryZeroActsAtTheDeadline(t *testing.T) {
	r := leaseCheckScript(t, Config{})
	r.w.Run(3 * s)
	assert.Equal(t, 2*s, r.c2.Reply(2).At)
	assert.Equal(t, proto.NoLease, r.c1.Reply(3).Err, "the key went with its lease at 2 s")
	ka := r.c1.Reply(4)
	assert.Equal(t, 2100*ms, ka.At)
	assert.Equal(t, proto.NoLease, ka.Err)
}

// A keep-alive before the deadline moves the next look: the lease lives,
// and a revoke between the deadline and the look answers the waiting
// keep-alive at once. Leader loss stops the looks; the renewal at the
// leader's return arms them again.
func TestLeaseCheckEveryWithKeepAliveRevokeAndUnavailability(t *testing.T) {
	r := newRig(t, Config{LeaseCheckEvery: time.Second, LeaseCheckPhase: 0}, clocks.Spec{})
	r.send(0, r.c1, grant(1, 2*s))
	r.send(1500*ms, r.c1, keepAlive(2, 1)) // expiry 3.5 s: looked at 4 s
	r.send(3700*ms, r.c1, keepAlive(3, 1))
	r.send(3800*ms, r.c1, revoke(4, 1))
	r.w.Run(5 * s)
	assert.True(t, r.c1.Reply(2).OK)
	assert.Equal(t, 3800*ms, r.c1.Reply(3).At, "answered at the revocation")
	assert.Equal(t, proto.NoLease, r.c1.Reply(3).Err)
	assert.True(t, r.c1.Reply(4).OK, "the revoke of an expired, unrevoked lease succeeds")
	assert.Equal(t, Stats{Grants: 1, KeepAlives: 1, Revokes: 1, Refusals: 1}, r.st.Stats())

	r.send(5*s, r.c2, grant(1, 2*s)) // lease 2, expiry 7 s
	r.w.Run(6 * s)
	r.st.SetAvailable(r.env, false)
	r.w.Run(9 * s)
	_, alive := r.st.Lease(2)
	assert.True(t, alive, "no look without a leader")
	r.st.SetAvailable(r.env, true) // renewed to 11 s
	r.w.Run(11*s - 1)
	_, alive = r.st.Lease(2)
	assert.True(t, alive)
	r.w.Run(11 * s)
	_, alive = r.st.Lease(2)
	assert.False(t, alive, "looked at 11 s, on the grid")
}

// A keep-alive waiting for the revocation of its expired lease when the
// leader goes is served by the returning one, after its renewal of every
// lease, as etcd's client sends it again on ErrNotPrimary.
func TestLeaseCheckEveryKeepAliveWaitingThroughLeaderLoss(t *testing.T) {
	r := newRig(t, Config{LeaseCheckEvery: time.Second, LeaseCheckPhase: 500 * ms}, clocks.Spec{})
	r.send(0, r.c1, grant(1, 2*s))
	r.send(2200*ms, r.c1, keepAlive(2, 1)) // expired at 2 s, look at 2.5 s
	r.w.Run(2300 * ms)
	require.False(t, r.c1.Replied(2))
	r.st.SetAvailable(r.env, false)
	r.w.Run(3500 * ms)
	r.st.SetAvailable(r.env, true)
	r.w.Run(4 * s)
	ka := r.c1.Reply(2)
	assert.True(t, ka.OK, "renewed by the new leader, then kept alive")
	assert.Equal(t, 3500*ms, ka.At)
	info, ok := r.st.Lease(1)
	require.True(t, ok)
	assert.Equal(t, 5500*ms, info.Expiry)
}

func TestLeaseCheckConfig(t *testing.T) {
	assert.NoError(t, Config{LeaseCheckEvery: 500 * ms, LeaseCheckPhase: 499 * ms}.Validate())
	for cfg, want := range map[Config]string{
		{LeaseCheckEvery: -ms}: "store lease check interval -1ms is negative",
		{LeaseCheckPhase: ms}:  "store lease check phase 1ms without a lease check interval",
		{LeaseCheckEvery: 500 * ms, LeaseCheckPhase: 500 * ms}: "store lease check phase 500ms is not in [0, 500ms)",
		{LeaseCheckEvery: 500 * ms, LeaseCheckPhase: -1}:       "store lease check phase -1ns is not in [0, 500ms)",
	} {
		err := cfg.Validate()
		if assert.Error(t, err, "%+v", cfg) {
			assert.Equal(t, want, err.Error())
		}
	}
}

// frozen is the store in a GC pause until wake: what reaches it waits, and
// at the wake the store's Wake runs first and the rest follows in arrival
// order, as the model's World does it. The World drops a held timer that
// the actor cancels; the one Wake cancels is the look's, so frozen drops
// a held look once Wake has run one.
type frozen struct {
	st    *Store
	w     *actortest.World
	until time.Duration
	held  []func(skipLook bool)
}

func (f *frozen) Start(env proto.Env) { f.st.Start(env) }

func (f *frozen) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	if f.w.Now() < f.until {
		f.held = append(f.held, func(bool) { f.st.Handle(env, from, m) })
		return
	}
	f.st.Handle(env, from, m)
}

func (f *frozen) OnTimer(env proto.Env, tag uint64) {
	if f.w.Now() < f.until {
		f.held = append(f.held, func(skipLook bool) {
			if !skipLook || tag != tagLeaseCheck {
				f.st.OnTimer(env, tag)
			}
		})
		return
	}
	f.st.OnTimer(env, tag)
}

func (f *frozen) wake(env proto.Env) {
	before := f.st.check
	f.st.Wake(env)
	looked := f.st.check != before // it cancelled the held look
	for _, h := range f.held {
		h(looked)
	}
	f.held = nil
}

// ZooKeeper's session tracker wakes with a paused leader and expires every
// overdue bucket before the server reads the pings that queued during the
// pause (SessionTrackerImpl.run; a real leader logged it, see
// docs/results/reality.md): a session whose bucket's tick passed during
// the pause is gone at the wake and its queued ping is refused, while one
// whose deadline passed but whose tick has not come is renewed by its ping.
func TestSessionsExpireOverdueBucketsAtTheWakeBeforeQueuedPings(t *testing.T) {
	w := actortest.New(t, 1, true)
	st := New(Config{LeaseCheckEvery: 2 * s, Sessions: true})
	f := &frozen{st: st, w: w}
	env := w.Add("store", f, clocks.Spec{})
	c1, c2 := w.AddProbe("c1"), w.AddProbe("c2")
	w.Start()
	c1.Send(100*ms, "store", grant(1, 2*s))          // expiry 2.1 s: the bucket of 4 s
	c2.Send(200*ms, "store", grant(1, 4500*ms))      // expiry 4.7 s: the bucket of 6 s
	c1.Send(300*ms, "store", lockCreate(2, 1, 0xc1)) // holds
	c2.Send(400*ms, "store", lockCreate(2, 2, 0xc2)) // waits
	w.At(time.Second, func() { f.until = 5 * s })
	w.At(5*s, func() { f.wake(env) })
	c1.Send(2*s, "store", keepAlive(3, 1))
	c2.Send(3*s, "store", keepAlive(3, 2))
	w.Run(5 * s)

	ka1, ka2 := c1.Reply(3), c2.Reply(3)
	assert.Equal(t, 5*s, ka1.At)
	assert.Equal(t, proto.NoLease, ka1.Err, "session 1's bucket (4 s) passed in the pause: expired before its ping is read")
	assert.True(t, ka2.OK, "session 2's deadline (4.7 s) passed but its bucket (6 s) has not come: the ping renews it")
	lock := c2.Reply(2)
	assert.Equal(t, 5*s, lock.At)
	assert.True(t, lock.OK, "session 1's node went at the wake: c2 holds")
	h, held := st.Holder("lock")
	require.True(t, held)
	assert.Equal(t, int64(2), h.Lease)
	info, alive := st.Lease(2)
	require.True(t, alive)
	assert.Equal(t, 9500*ms, info.Expiry, "renewed at the wake: 5 s + 4.5 s")

	w.Run(12 * s)
	_, alive = st.Lease(2)
	assert.False(t, alive, "expired at the tick of 10 s")
	assert.Contains(t, w.TraceLines(), "10.000000000s store lease-expired lease=2 key=lock rev=2")
}
