package client

import (
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// leaseLock is etcd's lock: a lease kept alive every KeepAlive, and a key
// bound to it, created when the key is free or when the store's queue
// reaches this client.
type leaseLock struct {
	c         *Client
	store     network.Endpoint
	lease     int64
	kaSentAt  time.Duration // when the last grant or keep-alive was sent, on the monotonic clock
	kaPending int64         // the lease whose keep-alive is in flight, 0 if none
}

func (l *leaseLock) start(env proto.Env) {
	l.store = mustLookup(env, l.c.cfg.Store)
}

func (l *leaseLock) ready(proto.Env) bool { return true }

func (l *leaseLock) try(env proto.Env) {
	c := l.c
	l.kaSentAt = env.Read(c.clk)
	env.Send(l.store, proto.Msg{Kind: proto.LeaseGrant, Req: tag(pGrant, c.gen, 0), TTL: c.cfg.Lock.TTL})
}

func (l *leaseLock) step(env proto.Env, _ network.Endpoint, m proto.Msg, p purpose, gen uint64, _ int) {
	c := l.c
	switch {
	case p == pGrant && c.phase == acquiring && gen == c.gen:
		if !m.OK {
			c.tryFailed(env, func() string { return "lease grant refused: " + m.Err.String() })
			return
		}
		l.lease = m.Int
		c.deadline = l.kaSentAt + c.cfg.Lock.TTL
		c.holdGen++
		env.After(c.cfg.Lock.KeepAlive, tag(tKeepAliveDue, c.holdGen, 0))
		env.Send(l.store, proto.Msg{Kind: proto.LockCreate, Req: tag(pCreate, c.gen, 0), Key: c.cfg.Lock.Key, Int: l.lease, Value: c.value})
	case p == pCreate && c.phase == acquiring && gen == c.gen:
		if !m.OK {
			l.lease = 0
			c.tryFailed(env, func() string { return "lock refused: " + m.Err.String() })
			return
		}
		c.token = m.Token
		c.acquired(env)
	case p == pKeepAlive:
		l.keptAlive(env, int64(gen), m)
	}
}

// keptAlive takes the answer to a keep-alive of lease id.
func (l *leaseLock) keptAlive(env proto.Env, id int64, m proto.Msg) {
	c := l.c
	if id == l.kaPending {
		l.kaPending = 0
	}
	if l.lease == 0 || id != l.lease {
		return
	}
	if !m.OK {
		if env.Tracing() {
			env.Trace(story.LeaseLost, sim.F("lease", l.lease))
		}
		if c.believes {
			c.endBelief(env, "keep-alive found the lease gone")
		}
		l.lease = 0
		return
	}
	c.deadline = l.kaSentAt + c.cfg.Lock.TTL
	if c.believes {
		c.renewed(env, c.deadline)
	}
}

func (l *leaseLock) tick(env proto.Env, p purpose, gen uint64, _ int) {
	if p == tKeepAliveDue && gen == l.c.holdGen && l.lease != 0 {
		l.keepAlive(env)
	}
}

func (l *leaseLock) held(env proto.Env, _ time.Duration) {
	c := l.c
	// The hold's generation is new, so a keep-alive timer of the wait is
	// void. If one is due (a grant and the due timer handled in the same
	// wake), it goes out now, as etcd's client sends a keep-alive as soon
	// as one is due; else a period from now.
	if env.Read(proto.Mono)-l.kaSentAt >= c.cfg.Lock.KeepAlive {
		l.keepAlive(env)
	} else {
		env.After(c.cfg.Lock.KeepAlive, tag(tKeepAliveDue, c.holdGen, 0))
	}
}

func (l *leaseLock) keepAlive(env proto.Env) {
	c := l.c
	if l.kaPending != l.lease {
		l.kaPending = l.lease
		l.kaSentAt = env.Read(proto.Mono)
		env.Send(l.store, proto.Msg{Kind: proto.LeaseKeepAlive, Req: tag(pKeepAlive, uint64(l.lease), 0), Int: l.lease})
	}
	env.After(c.cfg.Lock.KeepAlive, tag(tKeepAliveDue, c.holdGen, 0))
}

// unlock revokes the lease, which deletes the key with it.
func (l *leaseLock) unlock(env proto.Env) {
	if l.lease != 0 {
		env.Send(l.store, proto.Msg{Kind: proto.LeaseRevoke, Req: tag(pRevoke, l.c.gen, 0), Int: l.lease})
		l.lease = 0
	}
}

func (l *leaseLock) holders(env proto.Env) string { return env.NameOf(l.store) }
