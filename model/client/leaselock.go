package client

import (
	"strconv"
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// leaseLock is etcd's lock: a lease kept alive every KeepAlive, and a key
// bound to it, created when the key is free or when the store's queue
// reaches this client.
//
// It follows Mutex.Lock of go.etcd.io/etcd/client/v3/concurrency (v3.5 to
// v3.7.3, the version the real harness runs; checked against v3.7.3's
// mutex.go and key.go). A free key is the lock at once: tryAcquire's
// transaction finds this session's key the oldest, and its header revision
// is the token. Otherwise the client waits (waitDeletes), and when its turn
// comes it reads twice before Lock returns: waitDeletes reads the prefix
// again for any older key, then Lock reads its own key, "make sure the
// session is not expired". If that key is gone (its lease expired while it
// waited, say during a pause of the store), Lock returns ErrSessionExpired
// and the application does not hold the lock: the try fails, the lease is
// revoked, and the client tries again with a new session after the retry
// delay, as the real harness's etcd driver does.
type leaseLock struct {
	c         *Client
	store     network.Endpoint
	lease     int64
	keyLease  int64         // the lease the lock key of the current try is bound to: what Mutex.Lock's own-key read names
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

func (l *leaseLock) step(env proto.Env, _ network.Endpoint, m proto.Msg, p purpose, gen uint64, idx int) {
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
		l.keyLease = l.lease
		env.Send(l.store, proto.Msg{Kind: proto.LockCreate, Req: tag(pCreate, c.gen, 0), Key: c.cfg.Lock.Key, Int: l.lease, Value: c.value})
	case p == pCreate && c.phase == acquiring && gen == c.gen:
		if !m.OK {
			l.lease = 0
			c.tryFailed(env, func() string { return "lock refused: " + m.Err.String() })
			return
		}
		if m.Waited {
			l.check(env, 0)
			return
		}
		c.token = m.Token
		c.acquired(env)
	case p == pCheck && c.phase == acquiring && gen == c.gen && idx == 0:
		// waitDeletes's read of older keys: none is left once the store
		// grants this client, and if this client's own key went meanwhile
		// they are not the ones it finds gone. Its answer only costs time.
		l.check(env, 1)
	case p == pCheck && c.phase == acquiring && gen == c.gen:
		if !m.OK {
			l.lease = 0 // gone with its key
			c.tryFailed(env, func() string {
				return "session is expired: its key went with lease " + strconv.FormatInt(l.keyLease, 10)
			})
			return
		}
		c.token = m.Token
		c.acquired(env)
	case p == pKeepAlive:
		l.keptAlive(env, int64(gen), m)
	}
}

// check sends read i of the two Mutex.Lock makes after its wait.
func (l *leaseLock) check(env proto.Env, i int) {
	c := l.c
	env.Send(l.store, proto.Msg{Kind: proto.Get, Req: tag(pCheck, c.gen, i), Key: c.cfg.Lock.Key, Int: l.keyLease})
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
			story.Trace(env, story.LoseLease{Lease: story.Text(l.lease)})
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
