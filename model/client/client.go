package client

import (
	"fmt"
	"math"
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
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

// algorithm is what one lock algorithm does inside the workload loop, as
// raft's step is stepLeader or stepFollower: the loop is the same for all.
type algorithm interface {
	// start resolves the endpoints the algorithm talks to.
	start(env proto.Env)
	// ready runs at the client's start time and reports whether the first
	// attempt may begin; if not, the algorithm fires the start timer again
	// when it is ready.
	ready(env proto.Env) bool
	// try sends one try's requests; the client has begun the try.
	try(env proto.Env)
	// step handles a reply (or a notice) the workload does not own.
	step(env proto.Env, from network.Endpoint, m proto.Msg, p purpose, gen uint64, idx int)
	// tick handles a timer the workload does not own.
	tick(env proto.Env, p purpose, gen uint64, idx int)
	// held runs once a hold has begun, its validity timer set: it starts
	// the keep-alives or extensions.
	held(env proto.Env, now time.Duration)
	// unlock gives up the lock, or what a failed try may have taken.
	unlock(env proto.Env)
	// holders names the nodes or store the hold was granted by.
	holders(env proto.Env) string
}

// Client is one lock client. Create it with New.
type Client struct {
	cfg      Config
	alg      algorithm
	clk      proto.Clock // measures elapsed time and validity
	resource network.Endpoint
	fence    network.Endpoint

	phase     phase
	gen       uint64 // generation of the current try or phase
	holdGen   uint64 // generation of the current hold (validity timer)
	serial    uint64 // makes lock values and elements unique
	iter      int
	triesLeft int

	// the current attempt and try, and the hold it becomes
	attemptStart time.Duration // on the elapsed clock, when the attempt's first try began
	value        uint64
	token        uint64
	holding      bool
	believes     bool
	deadline     time.Duration // on the elapsed clock
	validity     proto.TimerID
	version      int64
	element      uint64
	opTimer      proto.TimerID
}

// New returns a client; Start resolves endpoint names. More than MaxNodes
// nodes do not fit in a request id and panic: scenario files allow far
// fewer.
func New(cfg Config) *Client {
	if len(cfg.Nodes) > MaxNodes {
		panic(fmt.Sprintf("client: %d nodes, at most %d fit in a request id", len(cfg.Nodes), MaxNodes))
	}
	c := &Client{cfg: cfg, clk: cfg.Lock.ElapsedClock}
	if !cfg.Lock.Algorithm.Elapsed() {
		c.clk = proto.Mono // leases are timed by the monotonic clock, as etcd's client does
	}
	if !cfg.Lock.Algorithm.Valid() {
		panic(fmt.Sprintf("client: %v: validate the lock config first", cfg.Lock.Algorithm))
	}
	s := &algorithms[cfg.Lock.Algorithm]
	c.alg = s.new(c, s)
	return c
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
	if c.cfg.Resource != "" {
		c.resource = mustLookup(env, c.cfg.Resource)
	}
	if c.cfg.Work.Tokens == IncrToken {
		c.fence = mustLookup(env, c.cfg.Work.FenceNode)
	}
	c.alg.start(env)
	env.After(c.cfg.StartIn, tag(tStart, 0, 0))
}

// forever is the deadline of a hold whose library never tells the
// application that the lock is lost (Redisson's watchdog).
const forever = time.Duration(math.MaxInt64)

// draw is a critical section or think time: fixed, or from its
// distribution when one is set. Only a distribution draws from the
// client's stream, so fixed times leave every other draw where it was.
func (c *Client) draw(env proto.Env, fixed time.Duration, dist network.Latency, site string) time.Duration {
	if dist.Kind == 0 {
		return fixed
	}
	return dist.Draw(env.Rand(), site)
}

func (c *Client) fresh() uint64 {
	c.serial++
	return uint64(c.cfg.ID)<<40 | c.serial
}

// Handle implements proto.Actor: the workload's own replies here, the lock
// algorithm's in its step.
func (c *Client) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	p, gen, idx := untag(m.Req)
	switch {
	case p == pToken && c.phase == fetching && gen == c.gen:
		c.token = uint64(m.Int)
		c.observe(env, proto.TokenIssued)
		if env.Tracing() {
			story.Trace(env, story.GetToken{Token: story.Text(c.token), From: env.NameOf(from)})
		}
		c.read(env)
	case p == pRead && c.phase == reading && gen == c.gen:
		if !m.OK {
			if env.Tracing() {
				story.Trace(env, story.RefuseRead{Err: m.Err.String()})
			}
			c.release(env)
			return
		}
		c.version = m.Int
		c.phase = computing
		c.gen++
		env.Cancel(c.opTimer)
		env.After(c.draw(env, c.cfg.Work.CriticalSection, c.cfg.Work.CriticalSectionDist, "section"), tag(tComputed, c.gen, 0))
	case p == pWrite && c.phase == writing && gen == c.gen:
		env.Cancel(c.opTimer)
		c.release(env)
	case p == pToken || p == pRead || p == pWrite:
		// a reply to an earlier phase
	default:
		c.alg.step(env, from, m, p, gen, idx)
	}
}

// OnTimer implements proto.Actor: the workload's own timers here, the lock
// algorithm's in its tick.
func (c *Client) OnTimer(env proto.Env, t uint64) {
	p, gen, idx := untag(t)
	switch p {
	case tStart:
		if c.alg.ready(env) {
			c.beginAttempt(env)
		}
	case tThink:
		c.beginAttempt(env)
	case tRetry:
		if c.phase == retrying && gen == c.gen {
			c.try(env)
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
				story.Trace(env, story.GiveUp{WaitingFor: story.Text(phaseName[c.phase])})
			}
			c.release(env)
		}
	default:
		c.alg.tick(env, p, gen, idx)
	}
}

var phaseName = map[phase]string{fetching: "token", reading: "read", writing: "write"}

func (c *Client) beginAttempt(env proto.Env) {
	if c.cfg.Work.Iterations > 0 && c.iter >= c.cfg.Work.Iterations {
		if c.phase != done {
			c.phase = done
			// Said once: the world forgets the last hold, which no new
			// attempt will ever supersede.
			c.observe(env, proto.Finished)
		}
		return
	}
	c.triesLeft = c.cfg.Lock.Retries + 1
	c.attemptStart = env.Read(c.clk)
	c.observe(env, proto.AttemptStart)
	c.try(env)
}

// try begins one try: a fresh lock value, then the algorithm's requests.
func (c *Client) try(env proto.Env) {
	c.triesLeft--
	c.phase = acquiring
	c.gen++
	c.value = c.fresh()
	c.token = 0
	c.alg.try(env)
}

// tryFailed ends a try that did not get the lock. why is called only when
// the reason will be read (narration on), so the hot path builds no string.
func (c *Client) tryFailed(env proto.Env, why func() string) {
	if env.Tracing() {
		story.Trace(env, story.TryFail{Why: why()})
	}
	c.alg.unlock(env)
	if c.triesLeft <= 0 {
		c.observeEnd(env, false)
		c.phase = idle
		env.After(c.draw(env, c.cfg.Work.Think, c.cfg.Work.ThinkDist, "think"), tag(tThink, 0, 0))
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

// acquired begins a hold whose validity ends at c.deadline, then the
// critical section.
func (c *Client) acquired(env proto.Env) {
	c.iter++ // an iteration is a critical section: failed attempts do not count
	c.observeEnd(env, true)
	c.holding, c.believes = true, true
	c.holdGen++
	now := env.Read(c.clk)
	c.observe(env, proto.HoldStart)
	if env.Tracing() {
		var validity any = c.deadline - now
		if c.deadline == forever {
			validity = "until it unlocks"
		}
		story.Trace(env, story.Acquire{Nodes: story.Text(c.alg.holders(env)), Validity: story.Text(validity), Value: fmt.Sprintf("%#x", c.value), Token: story.Text(c.token)})
	}
	if c.deadline != forever {
		c.validity = env.SetTimer(c.clk, c.deadline, tag(tValidity, c.holdGen, 0))
	}
	c.alg.held(env, now)
	c.gen++
	switch {
	case c.cfg.Work.Tokens == IncrToken:
		c.phase = fetching
		env.Send(c.fence, proto.Msg{Kind: proto.Incr, Req: tag(pToken, c.gen, 0), Key: c.cfg.Work.FenceKey})
		c.opTimer = env.After(c.cfg.Work.RequestTimeout, tag(tOpTimeout, c.gen, 0))
	default:
		if c.cfg.Work.Tokens == RevisionToken {
			c.observe(env, proto.TokenIssued)
		}
		c.read(env)
	}
}

// renewed moves the validity of the hold to deadline.
func (c *Client) renewed(env proto.Env, deadline time.Duration) {
	c.deadline = deadline
	env.Cancel(c.validity)
	c.validity = env.SetTimer(c.clk, c.deadline, tag(tValidity, c.holdGen, 0))
}

func (c *Client) read(env proto.Env) {
	c.phase = reading
	c.gen++
	env.Send(c.resource, proto.Msg{Kind: proto.ResourceRead, Req: tag(pRead, c.gen, 0), Lock: c.value, Token: c.token})
	c.opTimer = env.After(c.cfg.Work.RequestTimeout, tag(tOpTimeout, c.gen, 0))
}

func (c *Client) write(env proto.Env) {
	if c.cfg.Work.RecheckBeforeWrite {
		remaining := c.deadline - env.Read(c.clk)
		if !c.believes || remaining < c.cfg.Work.RecheckMargin {
			if env.Tracing() {
				story.Trace(env, story.AbandonWrite{Remaining: story.Text(remaining)})
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
		story.Trace(env, story.SendWrite{Element: fmt.Sprintf("%#x", c.element), Token: story.Text(c.token), ReadVersion: story.Text(c.version)})
	}
}

// abort gives the work up because the lock library said so (node-redlock's
// AbortSignal): nothing more is written, and the lock is released.
func (c *Client) abort(env proto.Env, why string) {
	if env.Tracing() {
		story.Trace(env, story.AbortWork{Why: why})
	}
	if c.believes {
		c.endBelief(env, "work aborted: "+why)
	}
	c.release(env)
}

// release ends the critical section: unlock, stop believing, think.
func (c *Client) release(env proto.Env) {
	c.alg.unlock(env)
	if c.believes {
		c.endBelief(env, "released")
	}
	c.holding = false
	c.holdGen++
	c.phase = idle
	c.gen++
	env.After(c.draw(env, c.cfg.Work.Think, c.cfg.Work.ThinkDist, "think"), tag(tThink, 0, 0))
}

// Crash is the client's process ending for good (the world drops its
// timers and messages): a belief it held ends now.
func (c *Client) Crash(env proto.Env) {
	if c.believes {
		c.endBelief(env, "crashed")
	}
}

func (c *Client) endBelief(env proto.Env, why string) {
	c.believes = false
	env.Cancel(c.validity)
	c.observe(env, proto.HoldEnd)
	if env.Tracing() {
		story.Trace(env, story.LetGo{Why: why})
	}
}

func (c *Client) observe(env proto.Env, k proto.ObsKind) {
	env.Observe(proto.Observation{Kind: k, Lock: c.value, Token: c.token})
}

func (c *Client) observeEnd(env proto.Env, ok bool) {
	env.Observe(proto.Observation{Kind: proto.AttemptEnd, OK: ok, Lock: c.value, Token: c.token})
}
