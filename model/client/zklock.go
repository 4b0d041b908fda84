package client

import (
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// zkLock is Curator's InterProcessMutex on a ZooKeeper ensemble, which the
// consensus store stands for with consensus.Config.Sessions: a session
// (a lease of TTL = session_timeout, kept by pings) for the client's life,
// and per acquisition an ephemeral sequential znode under the lock path
// (the store's LockCreate, whose FIFO of waiters is the chain of watches
// on each predecessor). When its predecessor goes, the waiter lists the
// children again (Curator's internalLockLoop and validateOurIndex) and
// holds the lock if its own node is still there; a node gone with its
// expired session fails the acquisition, and the client tries again with a
// new session. Release deletes the node; the session stays.
//
// The ZooKeeper client pings every third of the session timeout and
// declares the connection lost when it has heard nothing for two thirds
// (ClientCnxn: readTimeout = 2/3 sessionTimeout, a ping after readTimeout/2
// idle). Curator then posts SUSPENDED, and LOST when the server says the
// session expired or, without word from it, a session timeout after
// SUSPENDED (ConnectionStateManager, sessionExpirationPercent 100). The
// application believes it holds the lock until the state its error policy
// names (LockConfig.ErrorPolicy): SUSPENDED by default (the standard
// policy takes SUSPENDED or LOST), LOST with the session policy.
// InterProcessMutex itself interrupts nothing (CURATOR-206): a holder that
// has stopped believing still finishes its critical section, as every lock
// of the model does when its validity runs out.
//
// Curator times SUSPENDED → LOST with System.currentTimeMillis; the model
// times both on the monotonic clock, as the ZooKeeper client's own
// timeouts are (System.nanoTime).
type zkLock struct {
	c *Client
	storeSession
	heard     time.Duration // on the monotonic clock: the last answer in this session
	suspended bool
	silence   proto.TimerID // SUSPENDED, two thirds of the timeout after heard
	lost      proto.TimerID // LOST, a timeout after SUSPENDED
	keyed     bool          // the current try sent its node's create
}

// zkDefaults: a 10 s session timeout on servers with ZooKeeper's default
// tickTime of 2 s (Curator asks for 60 s, which such servers cut to their
// maxSessionTimeout of 40 s; 10 s is what deployments set).
func zkDefaults(l *LockConfig) {
	l.TTL, l.Tick = 10*time.Second, 2*time.Second
}

// zkCheck: ZooKeeper's servers negotiate a session timeout into [2, 20]
// ticks (minSessionTimeout and maxSessionTimeout default to 2 and 20 times
// tickTime, ZooKeeper Administrator's Guide); the model refuses a timeout
// outside rather than clamping it silently.
func zkCheck(l LockConfig, bad func(name, format string, a ...any)) {
	switch {
	case l.Tick <= 0:
		bad("Tick", "must be positive, got %v", l.Tick)
	case l.TTL < 2*l.Tick || l.TTL > 20*l.Tick:
		bad("SessionTimeout", "%v is outside ZooKeeper's bounds of 2 to 20 ticks, [%v, %v] with tick %v (minSessionTimeout and maxSessionTimeout, ZooKeeper Administrator's Guide)",
			l.TTL, 2*l.Tick, 20*l.Tick, l.Tick)
	}
	if l.ErrorPolicy >= maxErrorPolicy {
		bad("ErrorPolicy", "must be one of %v", errorPolicyNames)
	}
}

func (z *zkLock) start(env proto.Env) { z.store = mustLookup(env, z.c.cfg.Store) }

func (z *zkLock) ready(proto.Env) bool { return true }

// try creates the node, once there is a session.
func (z *zkLock) try(env proto.Env) {
	if z.haveSession(env, z.c.cfg.Lock.TTL) {
		z.create(env)
	}
}

func (z *zkLock) create(env proto.Env) {
	c := z.c
	z.keyed = true
	env.Send(z.store, proto.Msg{Kind: proto.LockCreate, Req: tag(pCreate, c.gen, 0), Key: c.cfg.Lock.Key, Int: z.session, Value: c.value})
}

func (z *zkLock) step(env proto.Env, _ network.Endpoint, m proto.Msg, p purpose, gen uint64, _ int) {
	c := z.c
	switch {
	case p == pConnect && gen == z.conn && z.connecting:
		z.connecting = false
		z.session = m.Int
		z.hear(env)
		env.After(z.ping(), tag(tKeepAliveDue, uint64(z.session), 0))
		if c.phase == acquiring {
			z.create(env)
		}
	case p == pKeepAlive:
		if int64(gen) != z.session || z.session == 0 {
			return
		}
		if !m.OK {
			z.lose(env, "the session expired")
			return
		}
		z.hear(env)
	case (p == pCreate || p == pCheck) && c.phase == acquiring && gen == c.gen:
		if !m.OK {
			z.keyed = false
			c.tryFailed(env, func() string { return "the lock node went with its session: " + m.Err.String() })
			return
		}
		z.hear(env)
		if p == pCreate && m.Waited {
			// The predecessor's node is gone: list the children again.
			env.Send(z.store, proto.Msg{Kind: proto.Get, Req: tag(pCheck, c.gen, 0), Key: c.cfg.Lock.Key, Int: z.session})
			return
		}
		c.token = m.Token
		c.deadline = z.beliefEnd()
		c.acquired(env)
	}
}

// ping is the ZooKeeper client's ping period: a third of the timeout.
func (z *zkLock) ping() time.Duration { return z.c.cfg.Lock.TTL / 3 }

// beliefEnd is when, on the monotonic clock, the application stops
// believing it holds the lock if it hears nothing more: at SUSPENDED with
// the standard policy, at LOST with the session one.
func (z *zkLock) beliefEnd() time.Duration {
	end := z.heard + 2*z.c.cfg.Lock.TTL/3
	if !z.c.cfg.Lock.ErrorPolicy.EndsAtSuspended() {
		end += z.c.cfg.Lock.TTL
	}
	return end
}

// hear notes an answer of the session's: the connection is alive, a
// SUSPENDED connection is RECONNECTED, and a holder's belief lasts longer.
func (z *zkLock) hear(env proto.Env) {
	c := z.c
	z.heard = env.Read(proto.Mono)
	env.Cancel(z.silence)
	z.silence = env.SetTimer(proto.Mono, z.heard+2*c.cfg.Lock.TTL/3, tag(tSuspend, uint64(z.session), 0))
	if z.suspended {
		z.suspended = false
		env.Cancel(z.lost)
		if env.Tracing() {
			story.Trace(env, story.Reconnect{Session: story.Text(z.session)})
		}
	}
	if c.believes {
		c.renewed(env, z.beliefEnd())
	}
}

func (z *zkLock) tick(env proto.Env, p purpose, gen uint64, _ int) {
	if int64(gen) != z.session || z.session == 0 {
		return
	}
	switch p {
	case tKeepAliveDue:
		env.Send(z.store, proto.Msg{Kind: proto.LeaseKeepAlive, Req: tag(pKeepAlive, uint64(z.session), 0), Int: z.session})
		env.After(z.ping(), tag(tKeepAliveDue, uint64(z.session), 0))
	case tSuspend:
		z.suspended = true
		z.lost = env.After(z.c.cfg.Lock.TTL, tag(tLost, uint64(z.session), 0))
		if env.Tracing() {
			story.Trace(env, story.Suspend{Session: story.Text(z.session), SilentFor: story.Text(env.Read(proto.Mono) - z.heard)})
		}
	case tLost:
		z.lose(env, "no answer for a session timeout after SUSPENDED")
	}
}

// lose is Curator's LOST: the session is given up (a new one comes with
// the next try), the belief ends, and an acquisition in flight fails.
func (z *zkLock) lose(env proto.Env, why string) {
	c := z.c
	if env.Tracing() {
		story.Trace(env, story.LoseSession{Session: story.Text(z.session), Why: why})
	}
	z.session, z.suspended, z.keyed = 0, false, false
	env.Cancel(z.silence)
	env.Cancel(z.lost)
	if c.believes {
		c.endBelief(env, "LOST: "+why)
	}
	if c.phase == acquiring {
		c.tryFailed(env, func() string { return "LOST while acquiring: " + why })
	}
}

func (z *zkLock) held(proto.Env, time.Duration) {}

// unlock deletes the current try's node, if the session still has it.
func (z *zkLock) unlock(env proto.Env) {
	if z.keyed && z.session != 0 {
		env.Send(z.store, proto.Msg{Kind: proto.Del, Req: tag(pRelease, z.c.gen, 0), Key: z.c.cfg.Lock.Key, Int: z.session})
	}
	z.keyed = false
}

func (z *zkLock) holders(env proto.Env) string { return env.NameOf(z.store) }

// storeSession is a client's session on the consensus store, as
// ZooKeeper's and Consul's locks hold one: the lock lives as long as it.
type storeSession struct {
	store      network.Endpoint
	session    int64  // the session's id on the store; 0 while there is none
	conn       uint64 // counts session requests, to void an old one's answer
	connecting bool   // a session request is in flight
}

// haveSession reports whether there is a session; while there is none, it
// asks the store for one of the given TTL, once until the answer comes.
func (s *storeSession) haveSession(env proto.Env, ttl time.Duration) bool {
	if s.session != 0 {
		return true
	}
	if !s.connecting {
		s.connecting = true
		s.conn++
		env.Send(s.store, proto.Msg{Kind: proto.LeaseGrant, Req: tag(pConnect, s.conn, 0), TTL: ttl})
	}
	return false
}
