package client

import (
	"fmt"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// phase is where the workload loop is.
type phase uint8

const (
	idle      phase = iota // thinking, or before the first attempt
	acquiring              // a try is in flight
	retrying               // waiting to try again
	fetching               // asking for a fencing token
	reading                // read sent to the resource
	computing              // the critical section between read and write
	writing                // write sent to the resource
	done                   // iterations exhausted
)

// purpose tells replies and timers apart; it sits in bits 8..15 of request
// ids and timer tags, a generation in the bits above.
type purpose uint64

const (
	pLock purpose = 1 + iota
	pRelease
	pExtend
	pWait
	pToken
	pRead
	pWrite
	pGrant
	pKeepAlive
	pCreate
	pRevoke
	// timers only
	tStart
	tRetry
	tValidity
	tComputed
	tThink
	tExtendDue
	tKeepAliveDue
	tOpTimeout
)

func tag(p purpose, gen uint64, idx int) uint64 { return gen<<16 | uint64(p)<<8 | uint64(idx) }
func untag(t uint64) (p purpose, gen uint64, idx int) {
	return purpose(t >> 8 & 0xff), t >> 16, int(t & 0xff)
}

// Client is one lock client. Create it with New.
type Client struct {
	cfg      Config
	nodes    []network.Endpoint
	master   int // index into nodes for single and failover
	resource network.Endpoint
	store    network.Endpoint
	fence    network.Endpoint

	phase   phase
	gen     uint64 // generation of the current try or phase
	extGen  uint64 // generation of the current extension round
	holdGen uint64 // generation of the current hold (validity timer)
	serial  uint64 // makes lock values and elements unique
	iter    int

	// the current try
	value     uint64
	start     time.Duration // on the elapsed clock
	status    []uint8       // per node: 0 waiting, 1 ok, 2 refused or timed out
	round     proto.TimerID // the request timeout of the round in flight
	answered  int
	next      int // sequential: the next node to ask
	triesLeft int

	// the current hold
	holding   bool
	believes  bool
	deadline  time.Duration // on the elapsed clock
	validity  proto.TimerID
	token     uint64
	version   int64
	element   uint64
	opTimer   proto.TimerID
	extends   int
	extStart  time.Duration
	extOK     int
	extAnswer int
	extTimer  proto.TimerID

	// the lease lock
	lease     int64
	kaSentAt  time.Duration
	kaPending int64 // the lease whose keep-alive is in flight, 0 if none
}

// New returns a client; Start resolves endpoint names.
func New(cfg Config) *Client {
	n := len(cfg.Nodes)
	return &Client{cfg: cfg, status: make([]uint8, n)}
}

func mustLookup(env proto.Env, name string) network.Endpoint {
	e, ok := env.Lookup(name)
	if !ok {
		// Config validation guarantees every name exists; reaching this is
		// a broken invariant, not bad input.
		panic(fmt.Sprintf("client %s: unknown endpoint %q", env.Name(), name))
	}
	return e
}

// Start implements proto.Actor.
func (c *Client) Start(env proto.Env) {
	c.nodes = c.nodes[:0]
	for _, n := range c.cfg.Nodes {
		c.nodes = append(c.nodes, mustLookup(env, n))
	}
	if c.cfg.Resource != "" {
		c.resource = mustLookup(env, c.cfg.Resource)
	}
	if c.cfg.Store != "" {
		c.store = mustLookup(env, c.cfg.Store)
	}
	if c.cfg.Work.Tokens == IncrToken {
		c.fence = mustLookup(env, c.cfg.Work.FenceNode)
	}
	env.After(c.cfg.StartIn, tag(tStart, 0, 0))
}

func (c *Client) clock() proto.Clock {
	if c.cfg.Lock.Algorithm == Lease {
		return proto.Mono // leases are timed by the monotonic clock, as etcd's client does
	}
	return c.cfg.Lock.ElapsedClock
}

func (c *Client) fresh() uint64 {
	c.serial++
	return uint64(c.cfg.ID)<<40 | c.serial
}

// OnTimer implements proto.Actor.
func (c *Client) OnTimer(env proto.Env, t uint64) {
	p, gen, idx := untag(t)
	switch p {
	case tStart, tThink:
		c.beginAttempt(env)
	case tRetry:
		if c.phase == retrying && gen == c.gen {
			c.try(env)
		}
	case pLock:
		if c.phase == acquiring && gen == c.gen {
			c.timedOut(env, idx, c.lockAnswer)
		}
	case pWait:
		if c.phase == acquiring && gen == c.gen {
			c.tryFailed(env, func() string { return "WAIT timed out" })
		}
	case tValidity:
		if gen == c.holdGen && c.believes {
			c.endBelief(env, "validity ran out")
		}
	case tComputed:
		if c.phase == computing && gen == c.gen {
			c.write(env)
		}
	case tOpTimeout:
		if gen == c.gen && (c.phase == fetching || c.phase == reading || c.phase == writing) {
			if env.Tracing() {
				env.Trace("gives-up", sim.F("waiting-for", phaseName[c.phase]))
			}
			c.release(env)
		}
	case tExtendDue:
		if gen == c.holdGen && c.holding {
			c.extend(env)
		}
	case pExtend:
		if gen == c.extGen && c.holding {
			c.timedOut(env, idx, c.extendAnswer)
		}
	case tKeepAliveDue:
		if gen == c.holdGen && c.lease != 0 {
			c.keepAlive(env)
		}
	}
}

var phaseName = map[phase]string{fetching: "token", reading: "read", writing: "write"}

// Handle implements proto.Actor.
func (c *Client) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	if m.Kind == proto.MasterChanged {
		if i := slices.Index(c.nodes, network.Endpoint(m.Int)); i >= 0 {
			c.master = i
		}
		return
	}
	p, gen, idx := untag(m.Req)
	switch p {
	case pLock:
		if c.phase == acquiring && gen == c.gen && idx < len(c.status) && c.status[idx] == 0 {
			c.lockAnswer(env, idx, m.OK && m.Err == proto.OK)
		}
	case pWait:
		if c.phase == acquiring && gen == c.gen {
			if int(m.Int) >= c.cfg.Lock.WaitReplicas {
				c.acquired(env)
			} else {
				c.tryFailed(env, func() string { return fmt.Sprintf("WAIT got %d of %d replicas", m.Int, c.cfg.Lock.WaitReplicas) })
			}
		}
	case pExtend:
		if gen == c.extGen && c.holding && idx < len(c.status) && c.status[idx] == 0 {
			c.extendAnswer(env, idx, m.Int == 1)
		}
	case pToken:
		if c.phase == fetching && gen == c.gen {
			c.token = uint64(m.Int)
			c.observe(env, proto.TokenIssued, "")
			if env.Tracing() {
				env.Trace("gets-token", sim.F("token", c.token), sim.F("from", env.NameOf(from)))
			}
			c.read(env)
		}
	case pRead:
		if c.phase == reading && gen == c.gen {
			if !m.OK {
				if env.Tracing() {
					env.Trace("read-refused", sim.F("err", m.Err.String()))
				}
				c.release(env)
				return
			}
			c.version = m.Int
			c.phase = computing
			c.gen++
			env.Cancel(c.opTimer)
			env.After(c.cfg.Work.CriticalSection, tag(tComputed, c.gen, 0))
		}
	case pWrite:
		if c.phase == writing && gen == c.gen {
			env.Cancel(c.opTimer)
			c.release(env)
		}
	case pGrant:
		if c.phase == acquiring && gen == c.gen {
			if !m.OK {
				c.tryFailed(env, func() string { return "lease grant refused: " + m.Err.String() })
				return
			}
			c.lease = m.Int
			c.deadline = c.kaSentAt + c.cfg.Lock.TTL
			c.holdGen++
			env.After(c.cfg.Lock.KeepAlive, tag(tKeepAliveDue, c.holdGen, 0))
			env.Send(c.store, proto.Msg{Kind: proto.LockCreate, Req: tag(pCreate, c.gen, 0), Key: c.cfg.Lock.Key, Int: c.lease, Value: c.value})
		}
	case pCreate:
		if c.phase == acquiring && gen == c.gen {
			if !m.OK {
				c.lease = 0
				c.tryFailed(env, func() string { return "lock refused: " + m.Err.String() })
				return
			}
			c.token = m.Token
			c.acquired(env)
		}
	case pKeepAlive:
		if int64(gen) == c.kaPending {
			c.kaPending = 0
		}
		if c.lease != 0 && int64(gen) == c.lease {
			if !m.OK {
				if env.Tracing() {
					env.Trace("lease-lost", sim.F("lease", c.lease))
				}
				if c.believes {
					c.endBelief(env, "keep-alive found the lease gone")
				}
				c.lease = 0
				return
			}
			c.deadline = c.kaSentAt + c.cfg.Lock.TTL
			if c.believes {
				env.Cancel(c.validity)
				c.validity = env.SetTimer(c.clock(), c.deadline, tag(tValidity, c.holdGen, 0))
			}
		}
	}
}

func (c *Client) beginAttempt(env proto.Env) {
	if c.cfg.Work.Iterations > 0 && c.iter >= c.cfg.Work.Iterations {
		c.phase = done
		return
	}
	c.triesLeft = c.cfg.Lock.Retries + 1
	c.observe(env, proto.AttemptStart, "")
	c.try(env)
}

// try sends one round of lock requests.
func (c *Client) try(env proto.Env) {
	c.triesLeft--
	c.phase = acquiring
	c.gen++
	c.value = c.fresh()
	c.start = env.Read(c.clock())
	c.token = 0
	if c.cfg.Lock.Algorithm == Lease {
		c.kaSentAt = c.start
		env.Send(c.store, proto.Msg{Kind: proto.LeaseGrant, Req: tag(pGrant, c.gen, 0), TTL: c.cfg.Lock.TTL})
		return
	}
	c.answered = 0
	clear(c.status)
	if c.cfg.Lock.Algorithm != Redlock {
		// One node: the (current) master. The others count as not asked.
		for i := range c.status {
			if i != c.master {
				c.status[i] = 2
			}
		}
		c.answered = len(c.status) - 1
		c.ask(env, c.master)
		return
	}
	if c.cfg.Lock.Sequential {
		c.next = 0
		c.ask(env, 0)
		c.next = 1
		return
	}
	for i := range c.nodes {
		env.Send(c.nodes[i], c.setNX(i))
	}
	// The requests leave together, so one timer times them all out.
	c.round = env.After(c.cfg.Lock.RequestTimeout, tag(pLock, c.gen, allNodes))
}

// allNodes in a timer tag means every request of the round still waiting.
const allNodes = 0xff

func (c *Client) setNX(i int) proto.Msg {
	return proto.Msg{Kind: proto.SetNX, Req: tag(pLock, c.gen, i), Key: c.cfg.Lock.Key, Value: c.value, TTL: c.cfg.Lock.TTL}
}

// ask sends one request on its own, with its own timeout.
func (c *Client) ask(env proto.Env, i int) {
	env.Send(c.nodes[i], c.setNX(i))
	c.round = env.After(c.cfg.Lock.RequestTimeout, tag(pLock, c.gen, i))
}

// timedOut counts the requests a timer covers that are still waiting as
// refused.
func (c *Client) timedOut(env proto.Env, idx int, answer func(proto.Env, int, bool)) {
	if idx != allNodes {
		if c.status[idx] == 0 {
			answer(env, idx, false)
		}
		return
	}
	for i, st := range c.status {
		if st == 0 {
			answer(env, i, false)
		}
	}
}

func (c *Client) lockAnswer(env proto.Env, i int, ok bool) {
	if ok {
		c.status[i] = 1
	} else {
		c.status[i] = 2
	}
	c.answered++
	if c.cfg.Lock.Algorithm == Redlock && c.cfg.Lock.Sequential {
		env.Cancel(c.round)
		if c.next < len(c.nodes) {
			c.ask(env, c.next)
			c.next++
			return
		}
	}
	if c.answered < len(c.nodes) {
		return
	}
	env.Cancel(c.round)
	c.decide(env)
}

func (c *Client) oks() int {
	n := 0
	for _, s := range c.status {
		if s == 1 {
			n++
		}
	}
	return n
}

// decide applies steps 3 and 4 of the Redlock algorithm (and their
// one-node special cases).
func (c *Client) decide(env proto.Env) {
	l := c.cfg.Lock
	oks := c.oks()
	need := l.QuorumOf(len(c.nodes))
	now := env.Read(c.clock())
	elapsed := now - c.start
	validity := l.TTL - elapsed - l.Drift()
	if oks < need {
		asked := len(c.nodes)
		if l.Algorithm != Redlock {
			asked = 1
		}
		c.tryFailed(env, func() string { return fmt.Sprintf("%d of %d nodes said OK, need %d", oks, asked, need) })
		return
	}
	if l.ValidityCheck {
		if validity <= 0 {
			c.tryFailed(env, func() string {
				return fmt.Sprintf("quorum reached but validity %v is not positive (elapsed %v on the %v clock)", validity, elapsed, c.clock())
			})
			return
		}
		c.deadline = c.start + l.TTL - l.Drift()
	} else {
		// A client that does not account for elapsed time assumes the whole
		// TTL (less the drift allowance) from when the replies arrived.
		c.deadline = now + l.TTL - l.Drift()
	}
	if l.Algorithm == Failover && l.WaitReplicas > 0 {
		env.Send(c.nodes[c.master], proto.Msg{Kind: proto.Wait, Req: tag(pWait, c.gen, 0), Int: int64(l.WaitReplicas), TTL: l.WaitTimeout})
		// The node answers WAIT at its timeout; this guards a lost reply.
		env.After(l.WaitTimeout+l.RequestTimeout, tag(pWait, c.gen, 0))
		return
	}
	c.acquired(env)
}

// tryFailed ends a try that did not get the lock. why is called only when
// the reason will be read (narration on), so the hot path builds no string.
func (c *Client) tryFailed(env proto.Env, why func() string) {
	text := ""
	if env.Tracing() {
		text = why()
		env.Trace("try-fails", sim.F("why", text))
	}
	c.unlock(env)
	if c.triesLeft <= 0 {
		c.observeEnd(env, false, text)
		c.phase = idle
		env.After(c.cfg.Work.Think, tag(tThink, 0, 0))
		return
	}
	c.phase = retrying
	c.gen++
	d := c.cfg.Lock.RetryDelay
	if j := c.cfg.Lock.RetryJitter; j > 0 {
		d += time.Duration(env.Rand().Int64N(int64(2*j)+1)) - j
	}
	env.After(d, tag(tRetry, c.gen, 0))
}

// unlock gives the lock up: it revokes the lease, or sends the release
// script to every node that may hold the key (all of them: a reply may
// have been lost).
func (c *Client) unlock(env proto.Env) {
	if c.cfg.Lock.Algorithm == Lease {
		if c.lease != 0 {
			env.Send(c.store, proto.Msg{Kind: proto.LeaseRevoke, Req: tag(pRevoke, c.gen, 0), Int: c.lease})
			c.lease = 0
		}
		return
	}
	for i, n := range c.nodes {
		if c.cfg.Lock.Algorithm != Redlock && i != c.master {
			continue
		}
		env.Send(n, proto.Msg{Kind: proto.CompareDel, Req: tag(pRelease, c.gen, i), Key: c.cfg.Lock.Key, Value: c.value})
	}
}

func (c *Client) acquired(env proto.Env) {
	c.iter++ // an iteration is a critical section: failed attempts do not count
	c.observeEnd(env, true, "")
	c.holding, c.believes = true, true
	c.extends = 0
	c.holdGen++
	now := env.Read(c.clock())
	c.observe(env, proto.HoldStart, "")
	if env.Tracing() {
		env.Trace("acquires", sim.F("nodes", c.okNodes(env)), sim.F("validity", c.deadline-now), sim.F("value", fmt.Sprintf("%#x", c.value)))
	}
	c.validity = env.SetTimer(c.clock(), c.deadline, tag(tValidity, c.holdGen, 0))
	if c.cfg.Lock.Algorithm == Lease {
		// The hold's generation is new, so a keep-alive timer of the wait
		// is void. If one is due (a grant and the due timer handled in the
		// same wake), it goes out now, as etcd's client sends a keep-alive
		// as soon as one is due; else a period from now.
		if env.Read(proto.Mono)-c.kaSentAt >= c.cfg.Lock.KeepAlive {
			c.keepAlive(env)
		} else {
			env.After(c.cfg.Lock.KeepAlive, tag(tKeepAliveDue, c.holdGen, 0))
		}
	}
	if c.cfg.Lock.Extend && c.cfg.Lock.MaxExtensions > 0 && c.cfg.Lock.Algorithm != Lease {
		c.scheduleExtend(env, now)
	}
	c.gen++
	switch {
	case c.cfg.Work.Tokens == IncrToken:
		c.phase = fetching
		env.Send(c.fence, proto.Msg{Kind: proto.Incr, Req: tag(pToken, c.gen, 0), Key: c.cfg.Work.FenceKey})
		c.opTimer = env.After(c.cfg.Work.RequestTimeout, tag(tOpTimeout, c.gen, 0))
	default:
		if c.cfg.Work.Tokens == RevisionToken {
			c.observe(env, proto.TokenIssued, "")
		}
		c.read(env)
	}
}

func (c *Client) okNodes(env proto.Env) string {
	if c.cfg.Lock.Algorithm == Lease {
		return env.NameOf(c.store)
	}
	s := ""
	for i, st := range c.status {
		if st == 1 {
			if s != "" {
				s += ","
			}
			s += env.NameOf(c.nodes[i])
		}
	}
	return s
}

func (c *Client) read(env proto.Env) {
	c.phase = reading
	c.gen++
	env.Send(c.resource, proto.Msg{Kind: proto.ResourceRead, Req: tag(pRead, c.gen, 0), Lock: c.value, Token: c.token})
	c.opTimer = env.After(c.cfg.Work.RequestTimeout, tag(tOpTimeout, c.gen, 0))
}

func (c *Client) write(env proto.Env) {
	if c.cfg.Work.RecheckBeforeWrite {
		remaining := c.deadline - env.Read(c.clock())
		if !c.believes || remaining < c.cfg.Work.RecheckMargin {
			if env.Tracing() {
				env.Trace("abandons-write", sim.F("remaining", remaining))
			}
			c.release(env)
			return
		}
	}
	c.phase = writing
	c.gen++
	c.element = c.fresh()
	env.Send(c.resource, proto.Msg{Kind: proto.ResourceWrite, Req: tag(pWrite, c.gen, 0), Int: c.version, Value: c.element, Lock: c.value, Token: c.token})
	c.opTimer = env.After(c.cfg.Work.RequestTimeout, tag(tOpTimeout, c.gen, 0))
	if env.Tracing() {
		env.Trace("writes", sim.F("element", fmt.Sprintf("%#x", c.element)), sim.F("token", c.token), sim.F("read-version", c.version))
	}
}

// release ends the critical section: unlock, stop believing, think.
func (c *Client) release(env proto.Env) {
	c.unlock(env)
	if c.believes {
		c.endBelief(env, "released")
	}
	c.holding = false
	c.holdGen++
	c.phase = idle
	c.gen++
	env.After(c.cfg.Work.Think, tag(tThink, 0, 0))
}

func (c *Client) endBelief(env proto.Env, why string) {
	c.believes = false
	env.Cancel(c.validity)
	c.observe(env, proto.HoldEnd, why)
	if env.Tracing() {
		env.Trace("lets-go", sim.F("why", why))
	}
}

func (c *Client) scheduleExtend(env proto.Env, now time.Duration) {
	at := now + time.Duration(float64(c.deadline-now)*c.cfg.Lock.ExtendAt)
	env.SetTimer(c.clock(), at, tag(tExtendDue, c.holdGen, 0))
}

func (c *Client) extend(env proto.Env) {
	if c.extends >= c.cfg.Lock.MaxExtensions {
		return
	}
	c.extends++
	c.extGen++
	c.extStart = env.Read(c.clock())
	c.extOK, c.extAnswer = 0, 0
	clear(c.status)
	for i, n := range c.nodes {
		if c.cfg.Lock.Algorithm != Redlock && i != c.master {
			c.status[i] = 2
			c.extAnswer++
			continue
		}
		env.Send(n, proto.Msg{Kind: proto.CompareExtend, Req: tag(pExtend, c.extGen, i), Key: c.cfg.Lock.Key, Value: c.value, TTL: c.cfg.Lock.TTL})
	}
	c.extTimer = env.After(c.cfg.Lock.RequestTimeout, tag(pExtend, c.extGen, allNodes))
}

func (c *Client) extendAnswer(env proto.Env, i int, ok bool) {
	if ok {
		c.status[i] = 1
		c.extOK++
	} else {
		c.status[i] = 2
	}
	c.extAnswer++
	if c.extAnswer < len(c.nodes) {
		return
	}
	env.Cancel(c.extTimer)
	l := c.cfg.Lock
	now := env.Read(c.clock())
	newDeadline := c.extStart + l.TTL - l.Drift()
	if c.extOK >= l.QuorumOf(len(c.nodes)) && now < c.deadline && c.believes {
		c.deadline = newDeadline
		env.Cancel(c.validity)
		c.validity = env.SetTimer(c.clock(), c.deadline, tag(tValidity, c.holdGen, 0))
		if env.Tracing() {
			env.Trace("extends", sim.F("validity", c.deadline-now), sim.F("extension", c.extends))
		}
		c.scheduleExtend(env, now)
		return
	}
	if env.Tracing() {
		env.Trace("extend-fails", sim.F("ok", c.extOK))
	}
}

func (c *Client) keepAlive(env proto.Env) {
	if c.kaPending != c.lease {
		c.kaPending = c.lease
		c.kaSentAt = env.Read(proto.Mono)
		env.Send(c.store, proto.Msg{Kind: proto.LeaseKeepAlive, Req: tag(pKeepAlive, uint64(c.lease), 0), Int: c.lease})
	}
	env.After(c.cfg.Lock.KeepAlive, tag(tKeepAliveDue, c.holdGen, 0))
}

func (c *Client) observe(env proto.Env, k proto.ObsKind, text string) {
	env.Observe(proto.Observation{Kind: k, Lock: c.value, Token: c.token, Text: text})
}

func (c *Client) observeEnd(env proto.Env, ok bool, text string) {
	env.Observe(proto.Observation{Kind: proto.AttemptEnd, OK: ok, Lock: c.value, Token: c.token, Text: text})
}
