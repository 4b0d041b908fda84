package consensus

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/model/internal/fifo"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// tagService is the timer tag of the end of a request's service. Lease
// expiry timers use the lease id, which is at least 1 and never reaches
// tagLeaseCheck, the tag of the periodic look for expired leases.
const (
	tagService    uint64 = 0
	tagLeaseCheck uint64 = math.MaxUint64
	tagWatch      uint64 = math.MaxUint64 - 1 // the earliest blocking query's wait time is up
)

// Texts of KeyGone observations.
const (
	GoneExpired = "lease expired"
	GoneRevoked = "lease revoked"
	GoneDeleted = "deleted"
)

// Config configures a Store.
type Config struct {
	// ServiceTime is how long the store takes to serve one request (the
	// cluster's commit latency), on its monotonic clock. Requests are served
	// one at a time, in arrival order. Zero serves each at once.
	ServiceTime time.Duration

	// LeaseCheckEvery, if positive, is how often the store looks for
	// expired leases, on its monotonic clock: it acts on a lease's expiry
	// only at the first look at or after it, at readings LeaseCheckPhase +
	// n × LeaseCheckEvery. etcd's lessor does this (lease/lessor.go of 3.4,
	// runLoop: revokeExpiredLeases, then time.After(500 * time.Millisecond)),
	// and the revocation then goes through raft. Zero acts on each expiry
	// exactly at it.
	LeaseCheckEvery time.Duration
	// LeaseCheckPhase, in [0, LeaseCheckEvery), is the reading of the first
	// look; zero when LeaseCheckEvery is.
	LeaseCheckPhase time.Duration
	// Sessions makes leases ZooKeeper's sessions: a lease is alive until
	// the look that expires it, and a keep-alive (a ping) that arrives
	// after its expiry but before that look renews it. ZooKeeper's
	// SessionTrackerImpl keeps each session in the expiry bucket of its
	// last touch, and touchSession refuses only a session already closing,
	// which the expirer marks at the bucket's time. It needs
	// LeaseCheckEvery (the tick).
	Sessions bool
	// LockDelay, if positive, is Consul's lock-delay: a key whose holding
	// session is invalidated (expired or destroyed) cannot be acquired
	// (LockAcquire) for this long after, on the store's monotonic clock.
	LockDelay time.Duration
}

// Validate reports the first thing wrong with c, or nil.
func (c Config) Validate() error {
	switch {
	case c.ServiceTime < 0:
		return fmt.Errorf("store service time %v is negative", c.ServiceTime)
	case c.LeaseCheckEvery < 0:
		return fmt.Errorf("store lease check interval %v is negative", c.LeaseCheckEvery)
	case c.LeaseCheckEvery == 0 && c.LeaseCheckPhase != 0:
		return fmt.Errorf("store lease check phase %v without a lease check interval", c.LeaseCheckPhase)
	case c.LeaseCheckPhase < 0 || c.LeaseCheckEvery > 0 && c.LeaseCheckPhase >= c.LeaseCheckEvery:
		return fmt.Errorf("store lease check phase %v is not in [0, %v)", c.LeaseCheckPhase, c.LeaseCheckEvery)
	case c.Sessions && c.LeaseCheckEvery == 0:
		return fmt.Errorf("store sessions expire in buckets of a tick; they need a lease check interval")
	}
	return nil
}

// Stats counts what the store did.
type Stats struct {
	Grants     uint64 // leases granted
	KeepAlives uint64 // keep-alives of live leases
	Revokes    uint64 // leases revoked
	Expiries   uint64 // leases expired
	Locks      uint64 // lock keys created (immediately or after a wait)
	Waits      uint64 // lock requests queued behind another lease
	Deletes    uint64 // lock keys deleted by their holder (Del)
	Reads      uint64 // reads of a lock key by a lease that holds it (Get)
	Refusals   uint64 // requests answered Err NoLease

	RecordReads uint64 // reads of a lock record
	RecordPuts  uint64 // conditional writes of a lock record that matched its version
	Conflicts   uint64 // conditional writes refused: the version had moved on
}

type lease struct {
	ttl    time.Duration
	expiry time.Duration // on the store's monotonic clock; stale while unavailable
	timer  proto.TimerID // none when the store looks for expiries periodically
	alive  bool
	owner  network.Endpoint // who asked for it, for narration
}

// request is a message waiting for service.
type request struct {
	from network.Endpoint
	m    proto.Msg
}

// waiter is a queued LockCreate.
type waiter struct {
	from  network.Endpoint
	req   uint64
	lease int64
	value uint64
}

type key struct {
	name    string
	held    bool
	lease   int64  // holder's lease
	rev     int64  // revision at which the holder's key was created: its token
	value   uint64 // holder's lock value
	holder  network.Endpoint
	waiters []waiter

	// Consul's lock (consul.go): the end of the key's lock-delay, and the
	// blocking queries waiting for its holder to change.
	delayUntil time.Duration
	watchers   []watcher
}

// Store is the lease-lock store, a proto.Actor. Create one with New.
type Store struct {
	cfg       Config
	available bool
	revision  int64

	leases []lease // lease id i+1 at index i; dead leases stay
	live   int
	keys   []key
	byName map[string]int // key name → index in keys; looked up, never ranged

	watchTimer proto.TimerID // tagWatch, pending while a blocking query waits (consul.go)

	records   []record       // the lock records of records.go
	recByName map[string]int // record name → index in records; looked up, never ranged

	inbox fifo.Queue[request] // requests not yet served
	busy  bool                // inbox's head is in service
	svc   proto.TimerID       // the end of its service

	// With Config.LeaseCheckEvery: the next look for expired leases, armed
	// while the store is available and a lease is alive; the keep-alives
	// of expired leases, answered at their revocation; and the lowest
	// index of leases that may be alive, where scans start.
	check    proto.TimerID
	checkAt  time.Duration
	checking bool
	renewing []request
	oldest   int
	expired  []int64 // scratch of lookForExpired

	stats Stats
}

var _ proto.Actor = (*Store)(nil)

// New returns an available store with no leases and no keys. An invalid
// config is API misuse and panics: validate it first.
func New(cfg Config) *Store {
	if err := cfg.Validate(); err != nil {
		panic("consensus: " + err.Error())
	}
	return &Store{cfg: cfg, available: true, byName: make(map[string]int), recByName: make(map[string]int)}
}

// Start does nothing: the store is one logical service that does not crash;
// leader loss is SetAvailable.
func (s *Store) Start(env proto.Env) {}

// Handle serves one request (see the package documentation), at once or
// when its turn comes. A kind the store does not serve is a bug in the
// sender and panics.
func (s *Store) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	switch m.Kind {
	case proto.LeaseGrant, proto.LeaseKeepAlive, proto.LeaseRevoke, proto.LockCreate, proto.Del, proto.Get, proto.RecordRead, proto.RecordPut,
		proto.LockAcquire, proto.KeyWatch:
	default:
		panic(fmt.Sprintf("consensus: unexpected %v from %s", m.Kind, env.NameOf(from)))
	}
	if s.cfg.ServiceTime == 0 && s.available && s.inbox.Len() == 0 {
		s.serve(env, from, m)
		return
	}
	s.inbox.Push(request{from: from, m: m})
	s.kick(env)
}

// kick starts serving the inbox if the store can.
func (s *Store) kick(env proto.Env) {
	if !s.available || s.busy {
		return
	}
	if s.cfg.ServiceTime == 0 {
		for s.inbox.Len() > 0 {
			q := s.inbox.Pop()
			s.serve(env, q.from, q.m)
		}
		return
	}
	if s.inbox.Len() > 0 {
		s.busy = true
		s.svc = env.After(s.cfg.ServiceTime, tagService)
	}
}

// OnTimer ends a service, expires a lease, or looks for expired ones.
func (s *Store) OnTimer(env proto.Env, tag uint64) {
	if tag == tagService {
		if !s.busy || !s.available {
			panic("consensus: broken invariant: service timer while idle or unavailable")
		}
		s.busy, s.svc = false, proto.TimerID{}
		q := s.inbox.Pop()
		s.serve(env, q.from, q.m)
		s.kick(env)
		return
	}
	if tag == tagWatch {
		s.watchTimer = proto.TimerID{}
		s.watchesDue(env)
		return
	}
	if tag == tagLeaseCheck {
		if !s.checking || !s.available || s.cfg.LeaseCheckEvery == 0 {
			panic("consensus: broken invariant: lease check timer while not armed, unavailable or unconfigured")
		}
		s.checking, s.check = false, proto.TimerID{}
		s.lookForExpired(env, env.Read(proto.Mono))
		return
	}
	id := int64(tag)
	l := s.lease(id)
	if l == nil || !s.available {
		panic(fmt.Sprintf("consensus: broken invariant: expiry timer of lease %d (alive %v, available %v)", id, l != nil, s.available))
	}
	if env.Read(proto.Mono) < l.expiry {
		panic(fmt.Sprintf("consensus: broken invariant: lease %d expiry timer fired at %v, before %v", id, env.Read(proto.Mono), l.expiry))
	}
	l.timer = proto.TimerID{}
	s.stats.Expiries++
	s.kill(env, id, GoneExpired)
}

// SetAvailable takes the store's leader away (false) or gives it back
// (true); the world calls it. Taking it away suspends service and lease
// expiry; giving it back renews every live lease to now + TTL and serves
// what queued meanwhile. Setting the current state again does nothing.
func (s *Store) SetAvailable(env proto.Env, up bool) {
	if up == s.available {
		return
	}
	s.available = up
	if !up {
		if s.busy {
			env.Cancel(s.svc)
			s.busy, s.svc = false, proto.TimerID{}
		}
		for i := range s.leases {
			if l := &s.leases[i]; l.alive {
				env.Cancel(l.timer) // none with LeaseCheckEvery: a no-op
				l.timer = proto.TimerID{}
			}
		}
		if s.checking {
			env.Cancel(s.check)
			s.checking, s.check = false, proto.TimerID{}
		}
		// A keep-alive waiting for a revocation gives up when the leader
		// goes (lessor.Renew returns ErrNotPrimary on demotion) and the
		// client sends it again: it is served after the renewal.
		for _, q := range s.renewing {
			s.inbox.Push(q)
		}
		clear(s.renewing)
		s.renewing = s.renewing[:0]
		if env.Tracing() {
			story.Trace(env, story.LoseLeader{Leases: story.Text(s.live), Queued: story.Text(s.inbox.Len())})
		}
		return
	}
	now := env.Read(proto.Mono)
	for i := range s.leases {
		if l := &s.leases[i]; l.alive {
			l.expiry = now + l.ttl
			s.armExpiry(env, int64(i+1))
		}
	}
	if env.Tracing() {
		story.Trace(env, story.RegainLeader{Renewed: story.Text(s.live), Queued: story.Text(s.inbox.Len())})
	}
	s.kick(env)
}

func (s *Store) serve(env proto.Env, from network.Endpoint, m proto.Msg) {
	if m.Kind == proto.LeaseKeepAlive && s.expireOverdue(env, from, m) {
		return
	}
	switch m.Kind {
	case proto.LeaseGrant:
		s.grantLease(env, from, m)
	case proto.LeaseKeepAlive:
		l := s.lease(m.Int)
		if l == nil {
			s.refuse(env, from, m)
			return
		}
		env.Cancel(l.timer)
		l.expiry = env.Read(proto.Mono) + l.ttl
		s.armExpiry(env, m.Int)
		s.stats.KeepAlives++
		if env.Tracing() {
			story.Trace(env, story.KeepAlive{Lease: story.Text(m.Int)})
		}
		env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, OK: true, Int: m.Int, TTL: l.ttl})
	case proto.LeaseRevoke:
		l := s.lease(m.Int)
		if l == nil {
			s.refuse(env, from, m)
			return
		}
		env.Cancel(l.timer)
		l.timer = proto.TimerID{}
		s.stats.Revokes++
		s.kill(env, m.Int, GoneRevoked)
		env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, OK: true, Int: m.Int})
	case proto.LockCreate:
		s.lock(env, from, m)
	case proto.Del:
		s.unlock(env, from, m)
	case proto.Get:
		s.read(env, from, m)
	case proto.RecordRead:
		s.readRecord(env, from, m)
	case proto.RecordPut:
		s.putRecord(env, from, m)
	case proto.LockAcquire:
		s.acquire(env, from, m)
	case proto.KeyWatch:
		s.watch(env, from, m)
	}
}

// read answers whether lease m.Int holds key m.Key: etcd's Mutex.Lock
// reads its own key after its wait, and a key gone with its lease means
// the session expired. The token is the key's revision, the order the
// recipe's Header().Revision gives (see the package documentation).
func (s *Store) read(env proto.Env, from network.Endpoint, m proto.Msg) {
	i, ok := s.byName[m.Key]
	if !ok || !s.keys[i].held || s.keys[i].lease != m.Int || s.lease(m.Int) == nil {
		s.refuse(env, from, m)
		return
	}
	k := &s.keys[i]
	s.stats.Reads++
	env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, OK: true, Token: uint64(k.rev), Int: k.lease, Key: k.name})
}

// expireOverdue deals with keep-alive m if its lease has expired by the
// store's clock but is not yet revoked, and reports whether it took m.
// etcd's leader refuses such a keep-alive once the revocation is done
// (lessor.Renew, lease/lessor.go of 3.4, waits for it), so a lease is ended
// only by a running leader, by its own clock, and never revived by a late
// keep-alive. The store is in that state between an expiry and the look
// that acts on it: with Config.LeaseCheckEvery, until the next look, and m
// waits for it; without, when a pause of the store let requests that
// queued during it be served before the expiry timers that came due later,
// and the lease expires now and m is refused as it is served.
//
// A lock request (a Put bound to the lease) or a read of the lock key is
// not a keep-alive: etcd checks only that the lease exists (the applier's
// lessor.Lookup in etcdserver/apply.go; a Range looks at no lease), and an
// expired lease exists until the leader's revocation of it is applied
// (lessor.runLoop finds it, EtcdServer.revokeExpiredLeases proposes a
// LeaseRevoke for it). So such a request served before the expiry is its
// key taken or read as if the lease were alive, and the expiry, when it
// comes, deletes the key. A real run showed it
// (docs/results/differential-search.md): a client whose lease was granted before a pause of
// the whole store and whose Put queued during it created its key at wake,
// found it the oldest and held the lock, one revision before the lease's
// revocation deleted the key.
func (s *Store) expireOverdue(env proto.Env, from network.Endpoint, m proto.Msg) bool {
	l := s.lease(m.Int)
	if l == nil || !s.available || env.Read(proto.Mono) < l.expiry || s.cfg.Sessions {
		return false
	}
	if s.cfg.LeaseCheckEvery > 0 {
		s.renewing = append(s.renewing, request{from: from, m: m})
		return true
	}
	env.Cancel(l.timer)
	l.timer = proto.TimerID{}
	s.stats.Expiries++
	s.kill(env, m.Int, GoneExpired)
	return false
}

// armExpiry makes sure lease id's expiry will be acted on: its own timer,
// or a look for expired leases at or after it.
func (s *Store) armExpiry(env proto.Env, id int64) {
	l := &s.leases[id-1]
	if s.cfg.LeaseCheckEvery == 0 {
		l.timer = env.SetTimer(proto.Mono, l.expiry, uint64(id))
		return
	}
	at := s.checkAtOrAfter(l.expiry)
	if s.checking {
		if s.checkAt <= at {
			return
		}
		env.Cancel(s.check)
	}
	s.check, s.checkAt, s.checking = env.SetTimer(proto.Mono, at, tagLeaseCheck), at, true
}

// checkAtOrAfter is the reading of the first look for expired leases at or
// after reading t.
func (s *Store) checkAtOrAfter(t time.Duration) time.Duration {
	every, phase := s.cfg.LeaseCheckEvery, s.cfg.LeaseCheckPhase
	if t <= phase {
		return phase
	}
	return phase + (t-phase+every-1)/every*every
}

// Wake is called by the world when the store resumes from a pause, before
// anything that came for it during the pause (requests, its own timers) is
// handed over. With Config.Sessions, a look for expired sessions that came
// due during the pause runs now, ahead of the queued pings: it expires
// every session whose bucket's tick has passed, so a ping that queued for
// such a session is refused when it is served. ZooKeeper's
// SessionTrackerImpl.run sleeps until its next bucket is due and so wakes
// with the process, then expires every overdue bucket in a row
// (ExpiryQueue.poll hands one bucket per call until it has caught up),
// marking each session closing; touchSession refuses a closing session's
// pings, which the server's connection threads read only after. A real
// ensemble's leader logged it at the wake of a 5 s SIGSTOP: "Expiring
// session 0x..., timeout of 2000ms exceeded", and read that session's
// queued connection 10 ms later (docs/results/reality.md, "Store pauses
// for real"). Sessions whose deadline passed but whose tick has not come
// stay alive, and a queued ping renews them, as touchSession would.
// Without Sessions (etcd's lessor) nothing changes: the look's held timer
// comes in its turn.
func (s *Store) Wake(env proto.Env) {
	if !s.cfg.Sessions || !s.checking || !s.available {
		return
	}
	now := env.Read(proto.Mono)
	if now < s.checkAt {
		return
	}
	env.Cancel(s.check) // came due during the pause: held, not yet handed over
	s.checking, s.check = false, proto.TimerID{}
	s.lookForExpired(env, s.checkAtOrBefore(now))
}

// checkAtOrBefore is the reading of the last look for expired leases at or
// before reading t, which is at least the first look's.
func (s *Store) checkAtOrBefore(t time.Duration) time.Duration {
	every, phase := s.cfg.LeaseCheckEvery, s.cfg.LeaseCheckPhase
	return phase + (t-phase)/every*every
}

// lookForExpired expires every lease whose expiry is at or before reading
// upTo (the store's clock now, or at a wake the last tick it passed),
// earliest expiry first (etcd's lessor takes them from a heap ordered by
// expiry), then arms the look after the next expiry: that of the earliest
// lease the look leaves alive, found in the same scan.
func (s *Store) lookForExpired(env proto.Env, upTo time.Duration) {
	for s.oldest < len(s.leases) && !s.leases[s.oldest].alive {
		s.oldest++
	}
	s.expired = s.expired[:0]
	next := -1
	for i := s.oldest; i < len(s.leases); i++ {
		switch l := &s.leases[i]; {
		case !l.alive:
		case l.expiry <= upTo:
			s.expired = append(s.expired, int64(i+1))
		case next < 0 || l.expiry < s.leases[next].expiry:
			next = i
		}
	}
	slices.SortStableFunc(s.expired, func(a, b int64) int {
		return cmp.Compare(s.leases[a-1].expiry, s.leases[b-1].expiry)
	})
	for _, id := range s.expired {
		if s.lease(id) == nil {
			continue
		}
		s.stats.Expiries++
		s.kill(env, id, GoneExpired)
	}
	if next >= 0 {
		s.armExpiry(env, int64(next+1))
	}
}

func (s *Store) grantLease(env proto.Env, from network.Endpoint, m proto.Msg) {
	if m.TTL <= 0 {
		panic(fmt.Sprintf("consensus: %s asks for a lease with TTL %v", env.NameOf(from), m.TTL))
	}
	s.leases = append(s.leases, lease{ttl: m.TTL, expiry: env.Read(proto.Mono) + m.TTL, alive: true, owner: from})
	id := int64(len(s.leases))
	s.armExpiry(env, id)
	s.live++
	s.stats.Grants++
	if env.Tracing() {
		story.Trace(env, story.GrantLease{Lease: story.Text(id), TTL: story.Text(m.TTL), To: env.NameOf(from)})
	}
	env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, OK: true, Int: id, TTL: m.TTL})
}

// refuse answers a request naming a lease that is not alive.
func (s *Store) refuse(env proto.Env, from network.Endpoint, m proto.Msg) {
	s.stats.Refusals++
	if env.Tracing() {
		story.Trace(env, story.AnswerNoLease{Op: story.Text(m.Kind), Lease: story.Text(m.Int), By: env.NameOf(from)})
	}
	env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, Err: proto.NoLease, Int: m.Int, Key: m.Key})
}

func (s *Store) lock(env proto.Env, from network.Endpoint, m proto.Msg) {
	if s.lease(m.Int) == nil {
		s.refuse(env, from, m)
		return
	}
	i, ok := s.byName[m.Key]
	if !ok {
		i = len(s.keys)
		s.keys = append(s.keys, key{name: m.Key})
		s.byName[m.Key] = i
	}
	k := &s.keys[i]
	w := waiter{from: from, req: m.Req, lease: m.Int, value: m.Value}
	switch {
	case !k.held:
		s.grant(env, k, w, false)
	case k.lease == m.Int: // a retry of the holder
		env.Send(from, proto.Msg{Kind: proto.StoreReply, Req: m.Req, OK: true, Token: uint64(k.rev), Int: k.lease, Key: k.name})
	default:
		k.waiters = append(k.waiters, w)
		s.stats.Waits++
		if env.Tracing() {
			story.Trace(env, story.QueueForKey{Key: k.name, Lease: story.Text(m.Int), By: env.NameOf(from), Position: story.Text(len(k.waiters)), Holder: story.Text(k.lease)})
		}
	}
}

// grant creates k for waiter w, answers it and any other request of the
// same lease queued on k; waited marks the answer as coming after a wait.
func (s *Store) grant(env proto.Env, k *key, w waiter, waited bool) {
	s.revision++
	k.held, k.lease, k.rev, k.value, k.holder = true, w.lease, s.revision, w.value, w.from
	s.stats.Locks++
	s.holderChanged(env, k)
	reply := proto.Msg{Kind: proto.StoreReply, OK: true, Waited: waited, Token: uint64(k.rev), Int: k.lease, Key: k.name}
	if env.Tracing() {
		story.Trace(env, story.GiveKey{Key: k.name, Lease: story.Text(k.lease), Rev: story.Text(k.rev), To: env.NameOf(w.from), Value: story.Text(k.value)})
	}
	env.Observe(proto.Observation{Kind: proto.KeySet, OK: true, Lock: k.value, Token: uint64(k.rev), Peer: k.holder})
	reply.Req = w.req
	env.Send(w.from, reply)
	s.withdraw(env, k, w.lease, reply, true)
}

// withdraw removes the requests of lease id queued on k, answering each
// with reply (its Req filled in) if answer is set. It returns how many it
// removed.
func (s *Store) withdraw(env proto.Env, k *key, id int64, reply proto.Msg, answer bool) int {
	j := 0
	for _, w := range k.waiters {
		if w.lease != id {
			k.waiters[j] = w
			j++
			continue
		}
		if answer {
			reply.Req = w.req
			env.Send(w.from, reply)
		}
	}
	n := len(k.waiters) - j
	clear(k.waiters[j:])
	k.waiters = k.waiters[:j]
	return n
}

// next grants k, just deleted, to its first waiter.
func (s *Store) next(env proto.Env, k *key) {
	if len(k.waiters) == 0 {
		return
	}
	w := k.waiters[0]
	k.waiters = slices.Delete(k.waiters, 0, 1) // clears the vacated slot
	if s.lease(w.lease) == nil {
		panic(fmt.Sprintf("consensus: broken invariant: lease %d waits on %q but is dead", w.lease, k.name))
	}
	s.grant(env, k, w, true)
}

// remove removes k's holder, reporting why.
func (s *Store) remove(env proto.Env, k *key, why string) {
	env.Observe(proto.Observation{Kind: proto.KeyGone, OK: why == GoneExpired, Lock: k.value, Token: uint64(k.rev), Peer: k.holder})
	k.held, k.lease, k.rev, k.value, k.holder = false, 0, 0, 0, 0
	s.holderChanged(env, k)
}

func (s *Store) unlock(env proto.Env, from network.Endpoint, m proto.Msg) {
	reply := proto.Msg{Kind: proto.StoreReply, Req: m.Req, OK: true, Int: 0, Key: m.Key}
	if i, ok := s.byName[m.Key]; ok {
		k := &s.keys[i]
		if k.held && k.lease == m.Int {
			if env.Tracing() {
				story.Trace(env, story.DeleteHeldKey{Key: k.name, Lease: story.Text(k.lease), Rev: story.Text(k.rev), By: env.NameOf(from)})
			}
			s.stats.Deletes++
			s.remove(env, k, GoneDeleted)
			reply.Int = 1
			env.Send(from, reply)
			s.next(env, k)
			return
		}
		s.withdraw(env, k, m.Int, proto.Msg{}, false)
	}
	env.Send(from, reply)
}

// kill ends lease id (its timer already dealt with): its keys go, their
// next waiters are granted, and its own waiters are answered NoLease.
func (s *Store) kill(env proto.Env, id int64, why string) {
	l := &s.leases[id-1]
	l.alive = false
	s.live--
	deleted := false
	for i := range s.keys {
		k := &s.keys[i]
		n := s.withdraw(env, k, id, proto.Msg{Kind: proto.StoreReply, Err: proto.NoLease, Int: id, Key: k.name}, true)
		s.stats.Refusals += uint64(n)
		if !k.held || k.lease != id {
			continue
		}
		deleted = true
		if env.Tracing() {
			story.Trace(env, leaseGone(why, story.Text(id), k.name, story.Text(k.rev)))
		}
		s.remove(env, k, why)
		if s.cfg.LockDelay > 0 {
			k.delayUntil = env.Read(proto.Mono) + s.cfg.LockDelay
		}
		s.next(env, k)
	}
	if !deleted && env.Tracing() {
		story.Trace(env, leaseGone(why, story.Text(id), "", ""))
	}
	s.refuseRenewals(env, id) // after the revocation, as lessor.Renew answers
}

// leaseGone is the record of a lease's end, why: revoked or expired, with
// the key it deleted (and the revision) if it held one.
func leaseGone(why, lease, key, rev string) story.Fact {
	if why == GoneRevoked {
		return story.RevokeLease{Lease: lease, Key: key, Rev: rev}
	}
	return story.ExpireLease{Lease: lease, Key: key, Rev: rev}
}

// refuseRenewals answers NoLease to the keep-alives of lease id that
// waited for its revocation.
func (s *Store) refuseRenewals(env proto.Env, id int64) {
	j := 0
	for _, q := range s.renewing {
		if q.m.Int != id {
			s.renewing[j] = q
			j++
			continue
		}
		s.refuse(env, q.from, q.m)
	}
	clear(s.renewing[j:])
	s.renewing = s.renewing[:j]
}

// lease returns lease id if it is alive, else nil.
func (s *Store) lease(id int64) *lease {
	if id < 1 || id > int64(len(s.leases)) || !s.leases[id-1].alive {
		return nil
	}
	return &s.leases[id-1]
}

// LeaseInfo describes a live lease.
type LeaseInfo struct {
	TTL    time.Duration
	Expiry time.Duration // on the store's monotonic clock; while unavailable, moot until the renewal
	Owner  network.Endpoint
}

// Lease describes lease id if it is alive.
func (s *Store) Lease(id int64) (LeaseInfo, bool) {
	l := s.lease(id)
	if l == nil {
		return LeaseInfo{}, false
	}
	return LeaseInfo{TTL: l.ttl, Expiry: l.expiry, Owner: l.owner}, true
}

// Leases is the number of live leases.
func (s *Store) Leases() int { return s.live }

// Holder describes who holds a lock key.
type Holder struct {
	Lease int64
	Rev   int64 // the revision the key was created at: the holder's fencing token
	Value uint64
	Peer  network.Endpoint
}

// Holder reports who holds key name, if anyone.
func (s *Store) Holder(name string) (Holder, bool) {
	i, ok := s.byName[name]
	if !ok || !s.keys[i].held {
		return Holder{}, false
	}
	k := &s.keys[i]
	return Holder{Lease: k.lease, Rev: k.rev, Value: k.value, Peer: k.holder}, true
}

// Waiting is the number of lock requests queued on key name.
func (s *Store) Waiting(name string) int {
	if i, ok := s.byName[name]; ok {
		return len(s.keys[i].waiters)
	}
	return 0
}

// Available reports whether the store has a leader.
func (s *Store) Available() bool { return s.available }

// Revision is the store's revision: the number of keys created so far.
func (s *Store) Revision() int64 { return s.revision }

// Queued is the number of requests not yet served (waiting for service,
// for a leader, or in service); lock requests waiting for a key are not
// counted (see Waiting).
func (s *Store) Queued() int { return s.inbox.Len() }

// Stats returns the counters.
func (s *Store) Stats() Stats { return s.stats }
