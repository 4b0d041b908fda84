package client

import (
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
)

// consulLock is Consul's api.Lock (Lock and monitorLock of api/lock.go):
// a session for each acquisition (a lease the store invalidates after
// twice session_ttl without renewal, as Consul's session timers do,
// renewed every session_ttl/2 by RenewPeriodic), and the lock key acquired
// by it (PUT ?acquire), which never queues. A waiter blocks on the key
// (a blocking query, answered when its holder changes or after the 15 s
// wait time) and tries again when it is free; a free key in its lock-delay
// is refused, and the waiter tries again after DefaultLockRetryTime, 5 s.
// The holder learns of a loss only from its own blocking query on the key
// (monitorLock), not from its renewals and not from any clock: a holder
// cut off from the servers learns when the cut heals, or never if the
// query was lost. Unlock releases the key, then destroys the session.
type consulLock struct {
	c *Client
	storeSession
	watchGen   uint64 // the blocking query in flight; older answers are late
	watchTimer proto.TimerID
}

// Consul's api.Lock defaults: DefaultLockWaitTime and DefaultLockRetryTime.
const (
	consulWaitTime  = 15 * time.Second
	consulRetryTime = 5 * time.Second
)

// consulDefaults: api.Lock's DefaultLockSessionTTL of 15 s and the
// session's default LockDelay of 15 s.
func consulDefaults(l *LockConfig) {
	l.TTL, l.LockDelay = 15*time.Second, 15*time.Second
}

// consulCheck: Consul refuses a session TTL outside [10s, 24h]
// (structs.SessionTTLMin, SessionTTLMax) and caps the lock-delay at 60 s
// (structs.MaxLockDelay).
func consulCheck(l LockConfig, bad func(name, format string, a ...any)) {
	if l.TTL < 10*time.Second || l.TTL > 24*time.Hour {
		bad("SessionTTL", "%v is outside Consul's bounds of 10s to 24h (session TTL min and max, Consul's /v1/session/create)", l.TTL)
	}
	if l.LockDelay < 0 || l.LockDelay > time.Minute {
		bad("LockDelay", "%v is outside Consul's bounds of 0s to 60s (the session's LockDelay is capped at 60s)", l.LockDelay)
	}
}

func (l *consulLock) start(env proto.Env) { l.store = mustLookup(env, l.c.cfg.Store) }

func (l *consulLock) ready(proto.Env) bool { return true }

// try creates the session if there is none, then acquires.
func (l *consulLock) try(env proto.Env) {
	// The servers invalidate a session twice its TTL after its last
	// renewal (SessionTTLMultiplier).
	if l.haveSession(env, 2*l.c.cfg.Lock.TTL) {
		l.acquire(env)
	}
}

func (l *consulLock) acquire(env proto.Env) {
	c := l.c
	env.Send(l.store, proto.Msg{Kind: proto.LockAcquire, Req: tag(pCreate, c.gen, 0), Key: c.cfg.Lock.Key, Int: l.session, Value: c.value})
}

// watch sends a blocking query on the key, seeing holder seen (0: free).
// A waiter whose query gets no answer within the wait time tries to
// acquire again, which either takes the key or tells it the holder to
// block on (a query sent again seeing "free" would block while the key is
// free); a holder's query has no timeout, as monitorLock's HTTP request
// has none of its own.
func (l *consulLock) watch(env proto.Env, seen int64) {
	l.watchGen++
	env.Send(l.store, proto.Msg{Kind: proto.KeyWatch, Req: tag(pCheck, l.watchGen, 0), Key: l.c.cfg.Lock.Key, Int: seen, TTL: consulWaitTime})
	env.Cancel(l.watchTimer)
	l.watchTimer = proto.TimerID{}
	if !l.c.believes {
		l.watchTimer = env.After(consulWaitTime+time.Second, tag(tReqTimeout, l.watchGen, 0))
	}
}

func (l *consulLock) step(env proto.Env, _ network.Endpoint, m proto.Msg, p purpose, gen uint64, _ int) {
	c := l.c
	switch {
	case p == pConnect && gen == l.conn && l.connecting:
		l.connecting = false
		l.session = m.Int
		env.After(c.cfg.Lock.TTL/2, tag(tKeepAliveDue, uint64(l.session), 0))
		if c.phase == acquiring {
			l.acquire(env)
		}
	case p == pKeepAlive && int64(gen) == l.session && !m.OK:
		l.session = 0 // invalidated: RenewPeriodic stops; the holder learns from its query
	case p == pCreate && c.phase == acquiring && gen == c.gen:
		switch {
		case m.OK:
			c.token = m.Token
			c.deadline = forever
			c.acquired(env)
		case m.Err == proto.Conflict:
			l.watch(env, m.Int)
		case m.Err == proto.LockDelayed:
			env.After(consulRetryTime, tag(tAttempt, c.gen, 0))
		default: // the session is gone: a new one
			l.session = 0
			l.try(env)
		}
	case p == pCheck && gen == l.watchGen:
		env.Cancel(l.watchTimer)
		switch {
		case c.believes && m.Int != l.session:
			c.endBelief(env, "the blocking query shows the lock key lost")
		case c.believes:
			l.watch(env, l.session)
		case c.phase == acquiring && m.Int == 0:
			l.acquire(env)
		case c.phase == acquiring:
			l.watch(env, m.Int)
		}
	}
}

func (l *consulLock) tick(env proto.Env, p purpose, gen uint64, _ int) {
	c := l.c
	switch {
	case p == tKeepAliveDue && int64(gen) == l.session && l.session != 0:
		env.Send(l.store, proto.Msg{Kind: proto.LeaseKeepAlive, Req: tag(pKeepAlive, uint64(l.session), 0), Int: l.session})
		env.After(c.cfg.Lock.TTL/2, tag(tKeepAliveDue, uint64(l.session), 0))
	case p == tAttempt && gen == c.gen && c.phase == acquiring:
		l.acquire(env)
	case p == tReqTimeout && gen == l.watchGen && c.phase == acquiring:
		l.acquire(env)
	}
}

// held starts monitorLock's blocking query.
func (l *consulLock) held(env proto.Env, _ time.Duration) { l.watch(env, l.session) }

// unlock releases the key and destroys the session, as Unlock does for a
// session Lock created.
func (l *consulLock) unlock(env proto.Env) {
	if l.session == 0 {
		return
	}
	c := l.c
	env.Send(l.store, proto.Msg{Kind: proto.Del, Req: tag(pRelease, c.gen, 0), Key: c.cfg.Lock.Key, Int: l.session})
	env.Send(l.store, proto.Msg{Kind: proto.LeaseRevoke, Req: tag(pRevoke, c.gen, 0), Int: l.session})
	l.session = 0
	l.watchGen++ // the monitor's query is void
}

func (l *consulLock) holders(env proto.Env) string { return env.NameOf(l.store) }
