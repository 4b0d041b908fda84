package client

import (
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// recordLock is a lock kept in one versioned record written by
// compare-and-set (the store's RecordRead and RecordPut), which nothing
// expires: a waiter takes the record over once it has seen it unchanged
// for the lease duration on its own monotonic clock. Two libraries work so:
//
// client-go's LeaderElector (k8s-lease), following tryAcquireOrRenew of
// tools/leaderelection/leaderelection.go: a leader that still believes its
// lease valid first updates the record it observed last (the fast path);
// otherwise, or when that update conflicts, it reads the record, notes the
// time of any change it sees (observedTime), refuses to act while another
// holder's lease is valid by that time, and updates the record at the
// version it read. Candidates try every retry_period with a jitter factor
// of 1.2 (wait.JitterUntil); the leader renews in cycles (wait.Until with
// retry_period), each retrying every retry_period (PollImmediateUntil) and
// given renew_deadline (context.WithTimeout): it stops leading when a
// cycle's deadline passes. A released lease is written with no holder, as
// ReleaseOnCancel does.
//
// The DynamoDB lock client (dynamodb): acquireLock reads the item; a free
// or released one is taken by a conditional put on its record version
// number; a held one is taken over once the same RVN has been seen for the
// lease duration (measured with System.nanoTime), re-reading every refresh
// period (1 s). The holder's heartbeat thread rewrites the RVN every
// heartbeat_period; the lock is believed until lease_duration after the
// last heartbeat was sent (LockItem.isExpired), and a heartbeat that finds
// the RVN changed ends the belief at once.
//
// The record's version is the store's revision, so the version at which a
// client took the record is a fencing token; client-go's Lease has it (the
// resourceVersion), the DynamoDB item's RVN is a random UUID, not an
// ordered number, so tokens = "rvn" models the remedy proposed in the lock
// client's issues (#1, #62), not the library as it is.
type recordLock struct {
	c      *Client
	store  network.Endpoint
	dynamo bool

	// What the client last saw of the record, and when on its monotonic
	// clock (client-go's observedRecord and observedTime).
	seen       bool
	seenVer    int64
	seenHolder uint64
	seenTTL    time.Duration
	seenAt     time.Duration

	reqGen   uint64        // generation of the request in flight; a reply of another is late
	inFlight bool          // a request is in flight
	fast     bool          // the update in flight is the leader's fast path
	tryAt    time.Duration // when the current tryAcquireOrRenew (or heartbeat) began
	timeout  proto.TimerID
}

// recordPeriod is how long a candidate waits between tries: client-go's
// retry_period with JitterFactor 1.2 (uniform in [1, 2.2] periods), the
// DynamoDB lock client's refresh period of 1 s.
func (r *recordLock) recordPeriod(env proto.Env) time.Duration {
	if r.dynamo {
		return time.Second
	}
	rp := r.c.cfg.Lock.KeepAlive
	return rp + time.Duration(env.Rand().Float64()*1.2*float64(rp))
}

// k8sDefaults: client-go's documented defaults as kube-controller-manager
// and kube-scheduler set them (--leader-elect-lease-duration 15s,
// --leader-elect-renew-deadline 10s, --leader-elect-retry-period 2s).
func k8sDefaults(l *LockConfig) {
	l.TTL, l.RenewDeadline, l.KeepAlive = 15*time.Second, 10*time.Second, 2*time.Second
}

// k8sCheck: NewLeaderElector refuses leaseDuration <= renewDeadline and
// renewDeadline <= JitterFactor × retryPeriod.
func k8sCheck(l LockConfig, bad func(name, format string, a ...any)) {
	switch {
	case l.RenewDeadline <= 0:
		bad("RenewDeadline", "must be positive, got %v", l.RenewDeadline)
	case l.RenewDeadline >= l.TTL:
		bad("RenewDeadline", "%v must be below lease_duration %v (client-go's NewLeaderElector: leaseDuration must be greater than renewDeadline)", l.RenewDeadline, l.TTL)
	case l.KeepAlive <= 0:
		bad("RetryPeriod", "must be positive, got %v", l.KeepAlive)
	case float64(l.RenewDeadline) <= 1.2*float64(l.KeepAlive):
		bad("RenewDeadline", "%v must be above 1.2 × retry_period = %v (client-go's NewLeaderElector: renewDeadline must be greater than retryPeriod*JitterFactor)",
			l.RenewDeadline, time.Duration(1.2*float64(l.KeepAlive)))
	}
}

// dynamoDefaults: the DynamoDB lock client's documented example, a 20 s
// lease with a heartbeat every 5 s.
func dynamoDefaults(l *LockConfig) {
	l.TTL, l.KeepAlive = 20*time.Second, 5*time.Second
}

// dynamoCheck: AmazonDynamoDBLockClient's constructor refuses a lease
// duration below twice the heartbeat period.
func dynamoCheck(l LockConfig, bad func(name, format string, a ...any)) {
	switch {
	case l.KeepAlive <= 0:
		bad("HeartbeatPeriod", "must be positive, got %v", l.KeepAlive)
	case l.KeepAlive > l.TTL/2:
		bad("HeartbeatPeriod", "%v must be at most half of lease_duration %v, %v (AmazonDynamoDBLockClient: \"Heartbeat period must be no more than half the length of the Lease Duration\")",
			l.KeepAlive, l.TTL, l.TTL/2)
	}
}

func (r *recordLock) start(env proto.Env) { r.store = mustLookup(env, r.c.cfg.Store) }

func (r *recordLock) ready(proto.Env) bool { return true }

// leader is client-go's IsLeader: the record last seen names this hold.
func (r *recordLock) leader() bool { return r.seen && r.seenHolder == r.c.value && r.c.value != 0 }

// valid is client-go's isLeaseValid at reading now of the monotonic clock.
func (r *recordLock) valid(now time.Duration) bool { return r.seen && r.seenAt+r.seenTTL > now }

// try is one try of the whole acquisition: it goes on until it holds.
func (r *recordLock) try(env proto.Env) { r.attempt(env) }

// attempt is one tryAcquireOrRenew (or the DynamoDB client's read of the
// item): the fast path for a leader, else a read.
func (r *recordLock) attempt(env proto.Env) {
	r.tryAt = env.Read(proto.Mono)
	if !r.dynamo && r.leader() && r.valid(r.tryAt) {
		r.put(env, r.seenVer, r.c.value, true)
		return
	}
	r.send(env, proto.Msg{Kind: proto.RecordRead, Key: r.c.cfg.Lock.Key}, pRecRead)
}

func (r *recordLock) put(env proto.Env, version int64, holder uint64, fast bool) {
	r.fast = fast
	ttl := r.c.cfg.Lock.TTL
	if holder == 0 {
		ttl = time.Second // client-go's release writes LeaseDurationSeconds 1
	}
	r.send(env, proto.Msg{Kind: proto.RecordPut, Key: r.c.cfg.Lock.Key, Int: version, Value: holder, TTL: ttl}, pRecPut)
}

func (r *recordLock) send(env proto.Env, m proto.Msg, p purpose) {
	r.reqGen++
	r.inFlight = true
	m.Req = tag(p, r.reqGen, 0)
	env.Send(r.store, m)
	env.Cancel(r.timeout)
	r.timeout = env.After(r.c.cfg.Lock.RequestTimeout, tag(tReqTimeout, r.reqGen, 0))
}

// observe is setObservedRecord of what a read or write returned.
func (r *recordLock) observe(env proto.Env, m proto.Msg) {
	if r.seen && m.Int == r.seenVer {
		return
	}
	r.seen, r.seenVer, r.seenHolder, r.seenTTL, r.seenAt = true, m.Int, m.Value, m.TTL, env.Read(proto.Mono)
	if env.Tracing() {
		story.Trace(env, story.Observe{Version: story.Text(m.Int), Holder: story.Text(m.Value)})
	}
}

func (r *recordLock) step(env proto.Env, _ network.Endpoint, m proto.Msg, p purpose, gen uint64, _ int) {
	if gen != r.reqGen || !r.inFlight || (p != pRecRead && p != pRecPut) {
		return
	}
	r.inFlight = false
	env.Cancel(r.timeout)
	c := r.c
	if c.phase != acquiring && !c.believes {
		return // a renewal's answer after the leader stopped: its context is done
	}
	switch {
	case p == pRecRead:
		r.observe(env, m)
		if r.seenHolder != 0 && r.seenHolder != c.value && r.valid(r.tryAt) {
			r.failed(env)
			return
		}
		r.put(env, m.Int, c.value, false)
	case m.OK:
		// setObservedRecord: what it wrote, now.
		r.seen, r.seenVer, r.seenHolder, r.seenTTL, r.seenAt = true, m.Int, m.Value, m.TTL, env.Read(proto.Mono)
		r.succeeded(env)
	case r.fast:
		r.fast = false
		r.send(env, proto.Msg{Kind: proto.RecordRead, Key: c.cfg.Lock.Key}, pRecRead) // the slow path
	default:
		r.observe(env, m)
		if r.dynamo && c.believes {
			// The heartbeat found another RVN: the lock is gone.
			c.endBelief(env, "heartbeat found the record taken")
			return
		}
		r.failed(env)
	}
}

// succeeded ends a try that wrote the record: a hold begins, or goes on.
func (r *recordLock) succeeded(env proto.Env) {
	c := r.c
	now := env.Read(proto.Mono)
	switch {
	case c.phase == acquiring:
		c.token = uint64(r.seenVer)
		c.deadline = r.deadline(now)
		c.acquired(env)
	case c.believes:
		if r.dynamo {
			c.renewed(env, r.tryAt+c.cfg.Lock.TTL)
			env.After(c.cfg.Lock.KeepAlive, tag(tKeepAliveDue, c.holdGen, 0))
			return
		}
		// The cycle is over; the next begins a retry period from now.
		c.renewed(env, now+c.cfg.Lock.KeepAlive+c.cfg.Lock.RenewDeadline)
		env.After(c.cfg.Lock.KeepAlive, tag(tKeepAliveDue, c.holdGen, 0))
	}
}

// deadline is when a hold that begins at now (its try begun at tryAt)
// stops being believed without further word: a renewal cycle's deadline
// for client-go, whose first cycle begins at once; the lease after the
// write for the DynamoDB client.
func (r *recordLock) deadline(now time.Duration) time.Duration {
	if r.dynamo {
		return r.tryAt + r.c.cfg.Lock.TTL
	}
	return now + r.c.cfg.Lock.RenewDeadline
}

// failed ends a try that did not write: a candidate tries again after its
// period, a leader's cycle again after a retry period (until its deadline
// ends the belief), a DynamoDB holder at its next heartbeat.
func (r *recordLock) failed(env proto.Env) {
	c := r.c
	switch {
	case c.phase == acquiring:
		env.After(r.recordPeriod(env), tag(tAttempt, c.gen, 0))
	case c.believes:
		env.After(c.cfg.Lock.KeepAlive, tag(tKeepAliveDue, c.holdGen, 0))
	}
}

func (r *recordLock) tick(env proto.Env, p purpose, gen uint64, _ int) {
	c := r.c
	switch {
	case p == tReqTimeout && gen == r.reqGen && r.inFlight:
		r.inFlight = false
		r.failed(env)
	case p == tAttempt && gen == c.gen && c.phase == acquiring && !r.inFlight:
		r.attempt(env)
	case p == tKeepAliveDue && gen == c.holdGen && c.believes && !r.inFlight && env.Read(proto.Mono) < c.deadline:
		// Past the deadline the cycle's context is done (after a pause,
		// say) and no request goes out; the validity timer ends the hold.
		r.renew(env)
	}
}

// renew is a leader's try of a renewal cycle, or a heartbeat.
func (r *recordLock) renew(env proto.Env) {
	if r.dynamo {
		r.tryAt = env.Read(proto.Mono)
		r.put(env, r.seenVer, r.c.value, false)
		return
	}
	r.attempt(env)
}

// held starts the renewals: client-go's first cycle at once, the DynamoDB
// client's heartbeat a period from now.
func (r *recordLock) held(env proto.Env, _ time.Duration) {
	if r.dynamo {
		env.After(r.c.cfg.Lock.KeepAlive, tag(tKeepAliveDue, r.c.holdGen, 0))
		return
	}
	r.renew(env)
}

// unlock frees the record if this client still holds it, as far as it
// knows: client-go's release, the DynamoDB client's releaseLock.
func (r *recordLock) unlock(env proto.Env) {
	if r.leader() {
		r.put(env, r.seenVer, 0, false)
		r.inFlight = false // its answer is not waited for
	}
}

func (r *recordLock) holders(env proto.Env) string { return env.NameOf(r.store) }
