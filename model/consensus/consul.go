package consensus

import (
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// watcher is a blocking query on a key (Consul's GET ?index=): it is
// answered when the key's holding session is no longer seen, or when its
// wait time is up, whichever comes first.
type watcher struct {
	from     network.Endpoint
	req      uint64
	seen     int64         // the holding session the client knows (0: free)
	deadline time.Duration // on the store's monotonic clock
}

// holding is the session holding k, 0 if it is free.
func holding(k *key) int64 {
	if k.held {
		return k.lease
	}
	return 0
}

// acquire is Consul's KV acquire (PUT ?acquire=session): it never queues.
// A free key past its lock-delay is granted to the session; otherwise the
// request is refused at once, Err Conflict with the holding session in
// Int, or Err LockDelayed when the key is free but an invalidated
// session's lock-delay still runs (Consul answers false to both; the
// client tells them apart by reading the key, as api.Lock does).
func (s *Store) acquire(env proto.Env, from network.Endpoint, m proto.Msg) {
	if s.lease(m.Int) == nil {
		s.refuse(env, from, m)
		return
	}
	k := s.keyNamed(m.Key)
	switch {
	case k.held && k.lease == m.Int:
		env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, OK: true, Token: uint64(k.rev), Int: k.lease, Key: k.name})
	case k.held:
		env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, Err: proto.Conflict, Int: k.lease, Key: k.name})
	case env.Read(proto.Mono) < k.delayUntil:
		if env.Tracing() {
			story.Trace(env, story.DelayLock{Key: k.name, By: env.NameOf(from), For: story.Text(k.delayUntil - env.Read(proto.Mono))})
		}
		env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, Err: proto.LockDelayed, Key: k.name})
	default:
		s.grant(env, k, waiter{from: from, req: m.Req, lease: m.Int, value: m.Value}, false)
	}
}

// keyNamed is key name, created free on first use.
func (s *Store) keyNamed(name string) *key {
	return named(&s.keys, s.byName, name, func(name string) key { return key{name: name} })
}

// named is the entry of list called name (its index in byName), appended
// as fresh(name) on first use.
func named[T any](list *[]T, byName map[string]int, name string, fresh func(string) T) *T {
	i, ok := byName[name]
	if !ok {
		i = len(*list)
		*list = append(*list, fresh(name))
		byName[name] = i
	}
	return &(*list)[i]
}

// watch is a blocking query: answered at once if the key's holder is not
// the one m.Int names, else when it changes or after m.TTL.
func (s *Store) watch(env proto.Env, from network.Endpoint, m proto.Msg) {
	k := s.keyNamed(m.Key)
	if holding(k) != m.Int {
		env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, OK: true, Int: holding(k), Key: k.name})
		return
	}
	k.watchers = append(k.watchers, watcher{from: from, req: m.Req, seen: m.Int, deadline: env.Read(proto.Mono) + m.TTL})
	s.armWatch(env)
}

// holderChanged answers k's blocking queries that no longer see its
// holder; a key without watchers costs nothing.
func (s *Store) holderChanged(env proto.Env, k *key) {
	if len(k.watchers) == 0 {
		return
	}
	now := holding(k)
	j := 0
	for _, w := range k.watchers {
		if w.seen == now {
			k.watchers[j] = w
			j++
			continue
		}
		env.Send(w.from, proto.Msg{Kind: proto.StoreReply, Req: w.req, OK: true, Int: now, Key: k.name})
	}
	clear(k.watchers[j:])
	k.watchers = k.watchers[:j]
}

// armWatch sets the timer of the earliest blocking query's wait time.
func (s *Store) armWatch(env proto.Env) {
	env.Cancel(s.watchTimer)
	s.watchTimer = proto.TimerID{}
	first := time.Duration(-1)
	for i := range s.keys {
		for _, w := range s.keys[i].watchers {
			if first < 0 || w.deadline < first {
				first = w.deadline
			}
		}
	}
	if first >= 0 {
		s.watchTimer = env.SetTimer(proto.Mono, first, tagWatch)
	}
}

// watchesDue answers the blocking queries whose wait time is up, with the
// holder unchanged (Consul returns the same index).
func (s *Store) watchesDue(env proto.Env) {
	now := env.Read(proto.Mono)
	for i := range s.keys {
		k := &s.keys[i]
		j := 0
		for _, w := range k.watchers {
			if w.deadline > now {
				k.watchers[j] = w
				j++
				continue
			}
			env.Send(w.from, proto.Msg{Kind: proto.StoreReply, Req: w.req, OK: true, Int: holding(k), Key: k.name})
		}
		clear(k.watchers[j:])
		k.watchers = k.watchers[:j]
	}
	s.armWatch(env)
}
