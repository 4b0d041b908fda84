package client

import (
	"fmt"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// redisLock is SET NX PX on Redis nodes: Redlock's quorum of independent
// masters, or the one master of single and failover.
type redisLock struct {
	c       *Client
	nodes   []network.Endpoint
	master  int   // index into nodes for single and failover
	acq     round // the try in flight; its generation is the client's
	ext     round // the extension in flight
	extGen  uint64
	extends int  // extensions of the current hold
	all     bool // asks every node (Algorithm.AsksAll), read once

	// redlock-py's start-up: which nodes answered (QuorumOfReached)
	connectedOnce bool
	reached       []bool
	replied       int
	connects      proto.TimerID
}

func (r *redisLock) start(env proto.Env) {
	r.nodes = r.nodes[:0]
	for _, n := range r.c.cfg.Nodes {
		r.nodes = append(r.nodes, mustLookup(env, n))
	}
}

func (r *redisLock) ready(env proto.Env) bool {
	if !r.c.cfg.Lock.QuorumOfReached || r.connectedOnce {
		return true
	}
	if r.reached == nil {
		r.connect(env)
	}
	return false
}

// connect asks every configured node once, when the client starts, as
// redlock-py's constructor connected to its servers. The bug it models: redlock-py kept only the
// servers it reached, and counted its quorum as a majority of those, so
// two clients that reach different halves at start-up both find a
// "majority" (see the preset redlock-py-connected-quorum).
func (r *redisLock) connect(env proto.Env) {
	r.reached = make([]bool, len(r.nodes))
	r.replied = 0
	for i, n := range r.nodes {
		env.Send(n, proto.Msg{Kind: proto.Get, Req: tag(pConnect, 0, i), Key: r.c.cfg.Lock.Key})
	}
	r.connects = env.After(r.c.cfg.Lock.RequestTimeout, tag(pConnect, 0, allNodes))
}

// connected keeps the nodes that answered, and lets the workload begin.
func (r *redisLock) connected(env proto.Env) {
	c := r.c
	env.Cancel(r.connects)
	var kept []network.Endpoint
	for i, ok := range r.reached {
		if ok {
			kept = append(kept, r.nodes[i])
		}
	}
	r.nodes, r.reached = kept, nil
	r.acq, r.ext = newRound(len(kept)), newRound(len(kept))
	if env.Tracing() {
		story.Trace(env, story.Connect{Nodes: story.Text(r.names(env, r.nodes)), Quorum: story.Text(c.cfg.Lock.QuorumOf(len(kept)))})
	}
	r.connectedOnce = true
	env.After(0, tag(tStart, 0, 0))
}

func (r *redisLock) names(env proto.Env, eps []network.Endpoint) string {
	s := ""
	for _, e := range eps {
		if s != "" {
			s += ","
		}
		s += env.NameOf(e)
	}
	return s
}

// asksAll reports whether every node is asked (Redlock) or only the master.
func (r *redisLock) asksAll() bool { return r.all }

func (r *redisLock) try(env proto.Env) {
	c := r.c
	r.acq.begin(c.gen, env.Read(c.clk))
	switch {
	case !r.asksAll():
		r.acq.only(r.master)
		r.ask(env, r.master)
	case c.cfg.Lock.Sequential:
		r.ask(env, 0)
		r.acq.next = 1
	case r.acq.complete():
		r.decide(env) // no node to ask: redlock-py that reached none
	default:
		for i := range r.nodes {
			env.Send(r.nodes[i], r.setNX(i))
		}
		// The requests leave together, so one timer times them all out.
		r.acq.timer = env.After(c.cfg.Lock.RequestTimeout, tag(pLock, c.gen, allNodes))
	}
}

func (r *redisLock) setNX(i int) proto.Msg {
	l := &r.c.cfg.Lock
	return proto.Msg{Kind: proto.SetNX, Req: tag(pLock, r.acq.gen, i), Key: l.Key, Value: r.c.value, TTL: l.TTL}
}

// ask sends one request on its own, with its own timeout.
func (r *redisLock) ask(env proto.Env, i int) {
	env.Send(r.nodes[i], r.setNX(i))
	r.acq.timer = env.After(r.c.cfg.Lock.RequestTimeout, tag(pLock, r.acq.gen, i))
}

func (r *redisLock) step(env proto.Env, from network.Endpoint, m proto.Msg, p purpose, gen uint64, idx int) {
	c := r.c
	switch {
	case m.Kind == proto.MasterChanged:
		if i := slices.Index(r.nodes, network.Endpoint(m.Int)); i >= 0 {
			r.master = i
		}
	case p == pLock && c.phase == acquiring && r.acq.awaits(gen, idx):
		r.lockAnswer(env, idx, m.OK && m.Err == proto.OK)
	case p == pWait && c.phase == acquiring && gen == c.gen:
		if int(m.Int) >= c.cfg.Lock.WaitReplicas {
			c.acquired(env)
		} else {
			c.tryFailed(env, func() string { return fmt.Sprintf("WAIT got %d of %d replicas", m.Int, c.cfg.Lock.WaitReplicas) })
		}
	case p == pExtend && c.holding && r.ext.awaits(gen, idx):
		r.extendAnswer(env, idx, m.Int == 1)
	case p == pConnect && r.reached != nil && idx < len(r.reached) && !r.reached[idx]:
		r.reached[idx] = true
		if r.replied++; r.replied == len(r.reached) {
			r.connected(env)
		}
	}
}

func (r *redisLock) tick(env proto.Env, p purpose, gen uint64, idx int) {
	c := r.c
	switch {
	case p == pLock && c.phase == acquiring:
		r.acq.timedOut(gen, idx, func(i int) { r.lockAnswer(env, i, false) })
	case p == pWait && c.phase == acquiring && gen == c.gen:
		c.tryFailed(env, func() string { return "WAIT timed out" })
	case p == tExtendDue && gen == c.holdGen && c.holding:
		r.extend(env)
	case p == pExtend && c.holding:
		r.ext.timedOut(gen, idx, func(i int) { r.extendAnswer(env, i, false) })
	case p == pConnect && r.reached != nil:
		r.connected(env)
	}
}

func (r *redisLock) lockAnswer(env proto.Env, i int, ok bool) {
	r.acq.record(i, ok)
	l := &r.c.cfg.Lock // not a copy: the config is large, and this runs at every reply
	if need := l.QuorumOf(len(r.nodes)); l.FailFast && (r.acq.oks >= need || r.acq.refusals >= need) {
		// redsync with WithFailFast: return as soon as a quorum has said
		// yes, or a quorum has said taken.
		env.Cancel(r.acq.timer)
		r.decide(env)
		return
	}
	if r.asksAll() && l.Sequential {
		env.Cancel(r.acq.timer)
		if r.acq.next < len(r.nodes) {
			r.ask(env, r.acq.next)
			r.acq.next++
			return
		}
	}
	if !r.acq.complete() {
		return
	}
	env.Cancel(r.acq.timer)
	r.decide(env)
}

// decide applies steps 3 and 4 of the Redlock algorithm (and their
// one-node special cases).
func (r *redisLock) decide(env proto.Env) {
	c := r.c
	l := &c.cfg.Lock
	r.acq.close() // late replies, after a fail-fast decision, count for nothing
	oks := r.acq.oks
	need := l.QuorumOf(len(r.nodes))
	now := env.Read(c.clk)
	elapsed := now - r.acq.start
	drift := l.Drift()
	if l.DriftAdded {
		// redlock-py's sign bug: validity = ttl − (elapsed − drift).
		drift = -drift
	}
	validity := l.TTL - elapsed - drift
	if oks < need {
		asked := len(r.nodes)
		if !r.asksAll() {
			asked = 1
		}
		c.tryFailed(env, func() string { return fmt.Sprintf("%d of %d nodes said OK, need %d", oks, asked, need) })
		return
	}
	switch {
	case l.Renewal == Watchdog:
		// Redisson hands the lock over and renews it; nothing ever tells
		// the application that it is gone.
		c.deadline = forever
	case l.ExpiryFromFirstTry:
		// node-redlock's bug (its issues 296 and 299): the expiration
		// counts from the first try of the acquisition, not the one that
		// succeeded, and nothing checks it before handing the lock out. After
		// retries the lock can be expired on arrival, its keys fresh.
		c.deadline = c.attemptStart + l.TTL - drift
	case l.ValidityCheck:
		if validity <= 0 {
			c.tryFailed(env, func() string {
				return fmt.Sprintf("quorum reached but validity %v is not positive (elapsed %v on the %v clock)", validity, elapsed, c.clk)
			})
			return
		}
		c.deadline = r.acq.start + l.TTL - drift
	default:
		// A client that does not account for elapsed time assumes the whole
		// TTL (less the drift allowance) from when the replies arrived.
		c.deadline = now + l.TTL - drift
	}
	if l.Algorithm.Waits() && l.WaitReplicas > 0 {
		env.Send(r.nodes[r.master], proto.Msg{Kind: proto.Wait, Req: tag(pWait, c.gen, 0), Int: int64(l.WaitReplicas), TTL: l.WaitTimeout})
		// The node answers WAIT at its timeout; this guards a lost reply.
		env.After(l.WaitTimeout+l.RequestTimeout, tag(pWait, c.gen, 0))
		return
	}
	c.acquired(env)
}

func (r *redisLock) held(env proto.Env, now time.Duration) {
	r.extends = 0
	r.ext.close() // a round of an earlier hold must not extend this one
	l := &r.c.cfg.Lock
	switch {
	case l.Renewal == Watchdog:
		env.After(l.TTL/3, tag(tExtendDue, r.c.holdGen, 0))
	case l.Renewal == AutoExtend:
		r.scheduleAutoExtend(env)
	case l.Extend && l.MaxExtensions > 0:
		r.scheduleExtend(env, now)
	}
}

// scheduleAutoExtend sets node-redlock's extension timer: when less than
// the threshold of the validity remains (at once if less remains already).
func (r *redisLock) scheduleAutoExtend(env proto.Env) {
	c := r.c
	env.SetTimer(c.clk, c.deadline-c.cfg.Lock.ExtendThreshold, tag(tExtendDue, c.holdGen, 0))
}

// unlock sends the release script to every node that may hold the key
// (all of them: a reply may have been lost).
func (r *redisLock) unlock(env proto.Env) {
	c := r.c
	for i, n := range r.nodes {
		if !r.asksAll() && i != r.master {
			continue
		}
		env.Send(n, proto.Msg{Kind: proto.CompareDel, Req: tag(pRelease, c.gen, i), Key: c.cfg.Lock.Key, Value: c.value})
	}
}

func (r *redisLock) holders(env proto.Env) string {
	s := ""
	for i, st := range r.acq.replies {
		if st == granted {
			if s != "" {
				s += ","
			}
			s += env.NameOf(r.nodes[i])
		}
	}
	return s
}

func (r *redisLock) scheduleExtend(env proto.Env, now time.Duration) {
	c := r.c
	at := now + time.Duration(float64(c.deadline-now)*c.cfg.Lock.ExtendAt)
	env.SetTimer(c.clk, at, tag(tExtendDue, c.holdGen, 0))
}

func (r *redisLock) extend(env proto.Env) {
	c := r.c
	switch c.cfg.Lock.Renewal {
	case NoRenewal:
		if r.extends >= c.cfg.Lock.MaxExtensions {
			return
		}
	case AutoExtend:
		if env.Read(c.clk) >= c.deadline {
			// node-redlock's Lock.extend throws "Cannot extend an
			// already-expired lock." without asking Redis.
			c.abort(env, "the lock had expired before it could be extended")
			return
		}
	}
	r.extends++
	r.extGen++
	r.ext.begin(r.extGen, env.Read(c.clk))
	for i, n := range r.nodes {
		if !r.asksAll() && i != r.master {
			r.ext.replies[i] = skipped
			r.ext.answered++
			continue
		}
		env.Send(n, proto.Msg{Kind: proto.CompareExtend, Req: tag(pExtend, r.extGen, i), Key: c.cfg.Lock.Key, Value: c.value, TTL: c.cfg.Lock.TTL})
	}
	r.ext.timer = env.After(c.cfg.Lock.RequestTimeout, tag(pExtend, r.extGen, allNodes))
}

func (r *redisLock) extendAnswer(env proto.Env, i int, ok bool) {
	c := r.c
	r.ext.record(i, ok)
	if !r.ext.complete() {
		return
	}
	env.Cancel(r.ext.timer)
	l := &c.cfg.Lock
	now := env.Read(c.clk)
	quorum := r.ext.oks >= l.QuorumOf(len(r.nodes))
	switch l.Renewal {
	case Watchdog:
		if !quorum {
			// Redisson's renewal task stops at the first failure, and
			// tells the application nothing.
			if env.Tracing() {
				story.Trace(env, story.RenewalStop{OK: story.Text(r.ext.oks)})
			}
			return
		}
		if env.Tracing() {
			story.Trace(env, story.Renew{TTL: story.Text(l.TTL)})
		}
		env.After(l.TTL/3, tag(tExtendDue, c.holdGen, 0))
		return
	case AutoExtend:
		if !quorum {
			c.abort(env, fmt.Sprintf("extension failed (%d nodes agreed)", r.ext.oks))
			return
		}
		c.renewed(env, r.ext.start+l.TTL-l.Drift())
		if env.Tracing() {
			story.Trace(env, story.Extend{Validity: story.Text(c.deadline - now), Extension: story.Text(r.extends)})
		}
		r.scheduleAutoExtend(env)
		return
	}
	if quorum && now < c.deadline && c.believes {
		c.renewed(env, r.ext.start+l.TTL-l.Drift())
		if env.Tracing() {
			story.Trace(env, story.Extend{Validity: story.Text(c.deadline - now), Extension: story.Text(r.extends)})
		}
		r.scheduleExtend(env, now)
		return
	}
	if env.Tracing() {
		story.Trace(env, story.ExtendFail{OK: story.Text(r.ext.oks)})
	}
}
