package model

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/consensus"
	"github.com/redlocksim/redlocksim/model/internal/procenv"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/model/sentinel"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// role tells what an actor is, for faults and timelines.
type role uint8

const (
	roleNode role = 1 + iota
	roleClient
	roleResource
	roleStore
	roleSentinel
)

// deferred is an event held back while its actor is paused. A held timer
// keeps its ID: to the actor it has not fired yet, so Cancel still stops it.
type deferred struct {
	timer     bool
	cancelled bool
	call      func() // a change the world makes to the actor (an election's end)
	id        proto.TimerID
	tag       uint64
	from      network.Endpoint
	msg       proto.Msg
}

// proc is one actor in the world and its environment: the shared
// procenv.Proc, with the world's pauses and its Observe.
type proc struct {
	procenv.Proc
	w      *World
	role   role
	actor  proto.Actor
	up     bool
	paused bool
	resume time.Duration
	wake   sim.Func // w.resumeFn(p), bound once so a pause does not allocate
	held   []deferred
	// heldNext is the first entry of held not yet handed over; entries
	// before it are being or have been delivered during a wake.
	heldNext int

	// rec is this client's handle in the world's recorder (0 until its
	// first observation).
	rec check.ClientID
	// A fast run's open hold, attempt and want instead.
	on onlineProc
	// onAcquire are the lengths of the pauses due at this client's next
	// acquisition (pause faults with OnAcquire whose time has come).
	onAcquire []time.Duration
	// fixedResume is the latest end of the pauses in force that are not
	// random (faults, on-acquire), kept only in a sampled run: a branch
	// that redraws a random pause's end (redraw.go) must not cut these.
	fixedResume time.Duration
	// frozeAt is when the pause in force began (the danger score reads
	// how long a holder has been frozen).
	frozeAt time.Duration
	// crashOnAcquire: this client crashes for good at its next
	// acquisition (a crash fault with OnAcquire whose time has come).
	crashOnAcquire bool
}

// World is one lock world, built from a Plan and a seed. It holds the Plan
// and no Config beside it: what it reads of the Config it reads through
// the Plan, as given (plan.cfg) or compiled.
type World struct {
	plan  *Plan
	k     *sim.Kernel
	net   *network.Net[proto.Msg]
	procs []*proc // indexed by network endpoint: both are added together
	host  *procenv.Host

	res   *resource.Resource
	store *consensus.Store
	nodes []*redis.Node

	rec      *check.Recorder // what the observations go to: a History (narrated), the Judge (fast)
	on       *online         // a fast run's judge (nil in a narrated run)
	messages []Message       // delivered messages, kept only in a narrated run
	budget   *budget         // nil: no budget (Run); see runWithin
	story    *storyteller    // a story replay's (see stories.go), else nil

	// A sampled run's random pauses by client, kept so that a branch can
	// redraw what they drew ahead (redraw.go) and a splitting particle
	// can name the pauses it made; nil in any other run.
	pauses  []*pauseState
	sampled bool
	scorer  *scorer // the danger score of a scored run (scored.go), else nil
}

// NewWorld builds the world a Plan describes; it checks nothing, as Compile
// did.
func NewWorld(plan *Plan, seed uint64, trace bool) *World {
	return newWorld(plan, seed, trace, nil, nil)
}

// newStoryWorld builds a fast world that tells the stories of the
// violations vs, which the same plan and seed gave (see stories.go).
func newStoryWorld(plan *Plan, seed uint64, vs []check.Violation) *World {
	return newWorld(plan, seed, false, vs, nil)
}

func newWorld(plan *Plan, seed uint64, trace bool, stories []check.Violation, smp *sim.Sampling) *World {
	cfg := &plan.cfg
	w := &World{plan: plan, k: sim.New(seed)}
	if smp != nil {
		w.k.SetSampling(smp)
		w.sampled = true
	}
	if trace {
		w.k.SetTrace(sim.NewRecorder())
		w.rec = &check.Recorder{}
	} else {
		w.on = &online{judge: check.NewJudge(plan.healed), live: make(map[uint64]*liveHold)}
		w.rec = check.NewJudged(w.on.judge)
		if stories != nil {
			var spans []sim.Span
			w.story, spans = newStoryteller(stories)
			w.k.SetTrace(sim.NewSpanRecorder(spans, w.story.record))
		}
	}
	w.net = network.NewTo[proto.Msg](w.k, hooks{w})
	w.host = procenv.NewHost(w.k, w.net, hooks{w})
	if trace {
		w.net.SetTap(w.tapMessage)
	} else {
		w.net.SetDropTap(w.lost)
	}
	w.net.SetDefaultLatency(cfg.Network.Latency)
	w.net.SetDefaultLoss(cfg.Network.Loss)
	limit := cfg.Network.RetransmitLimit
	if limit == 0 {
		limit = network.DefaultRetransmitLimit
	}
	w.net.SetPartitionMode(cfg.Network.PartitionMode, limit)
	for i := range plan.faults {
		if f := &plan.faults[i]; faultKinds[f.Kind].atStart {
			w.apply(f)
		}
	}

	store := ""
	if cfg.Lock.Algorithm.Store() {
		store = "store"
	}
	for _, pp := range plan.procs {
		var a proto.Actor
		switch pp.role {
		case roleNode:
			node := redis.New(cfg.Nodes[pp.index].Redis)
			if cfg.Work.Tokens == client.IncrToken && pp.name == cfg.Work.FenceNode {
				node.Preload(cfg.Work.FenceKey, cfg.Resource.TokenStart)
			}
			w.nodes = append(w.nodes, node)
			a = node
		case roleResource:
			w.res = resource.New(resource.Config{Mode: cfg.Resource.Mode, ServiceTime: cfg.Resource.ServiceTime})
			a = w.res
		case roleStore:
			sc := consensus.Config{ServiceTime: cfg.Store.ServiceTime, LeaseCheckEvery: cfg.Store.LeaseCheckEvery}
			if cfg.Lock.Algorithm.Sessions() {
				// ZooKeeper's session tracker expires sessions in buckets
				// of a tick.
				sc.LeaseCheckEvery, sc.Sessions = cfg.Lock.Tick, true
			}
			if cfg.Lock.Algorithm.Takes("lock_delay") {
				sc.LockDelay = cfg.Lock.LockDelay // Consul's
			}
			if sc.LeaseCheckEvery > 0 {
				// A stream of its own, taken only with the knob on, so that
				// every other draw stays as it was.
				sc.LeaseCheckPhase = time.Duration(w.k.Rand("store:lease-check").Int64N(int64(sc.LeaseCheckEvery)))
			}
			w.store = consensus.New(sc)
			a = w.store
		case roleSentinel:
			a = sentinel.New(sentinel.Config{
				Master: plan.nodeNames[0], Replicas: plan.nodeNames[1:], Clients: plan.clientNames,
				DownAfter: cfg.Sentinel.DownAfter, PingEvery: cfg.Sentinel.PingEvery,
			})
		case roleClient:
			c := cfg.Clients[pp.index]
			a = client.New(client.Config{
				ID: pp.index + 1, Name: c.Name, StartIn: c.StartIn,
				Lock: cfg.Lock, Work: cfg.Work, Nodes: plan.nodeNames,
				Store: store, Resource: "resource",
			})
		}
		w.add(pp, a)
		if pp.role == roleResource && w.on != nil {
			w.on.res = w.procs[len(w.procs)-1].Self()
		}
	}
	for _, l := range plan.links {
		if l.Latency.Kind != 0 {
			w.net.SetLatency(l.from, l.to, l.Latency)
		}
		if l.Loss != nil {
			w.net.SetLoss(l.from, l.to, *l.Loss)
		}
	}
	w.scheduleFaults()
	for _, c := range cfg.Clients {
		w.schedulePauses(c)
	}
	if smp != nil && smp.Branching() {
		smp.AtBranch(w.redrawPauses)
	}
	return w
}

// add adds the process pp with its actor a, as the next endpoint.
func (w *World) add(pp plannedProc, a proto.Actor) {
	spec := pp.clock
	if pp.spread > 0 {
		// A stream of its own per process, so that turning the spread on
		// for one process changes nobody else's draws.
		// The draw is site "rate", tiltable by importance sampling; untilted
		// it is the stream's first Float64, as it always was.
		spec.RatePPM = drawRate(w.k.Stream(ClockStream(pp.name)), spec.RatePPM, pp.spread)
	}
	clk, err := clocks.NewProcess(spec)
	if err != nil {
		// Compile validated this spec at both extremes of its spread.
		panic(fmt.Sprintf("model: the clock of %s: %v", pp.name, err))
	}
	p := &proc{Proc: procenv.NewProc(w.host, pp.name, clk), w: w, role: pp.role, actor: a, up: true}
	p.wake = w.resumeFn(p)
	if int(p.Self()) != len(w.procs) {
		panic("model: endpoints are not numbered densely")
	}
	w.procs = append(w.procs, p)
}

// Run runs the world to its end and returns the result.
func (w *World) Run() Result {
	for _, p := range w.procs {
		p.actor.Start(p)
	}
	w.k.RunUntil(w.plan.cfg.Duration)
	return w.finish()
}

// --- delivery and timers -------------------------------------------------

// hooks is the World as its network's receiver (Deliver) and its host's
// handler of due timers (Due): an interface call per event, where the
// method values w.deliver and w.due each went through a wrapper, which
// copied every message once more.
type hooks struct{ w *World }

// Deliver hands a message that arrived to its actor, or holds it while
// the actor is paused.
func (h hooks) Deliver(from, to network.Endpoint, m proto.Msg) {
	w := h.w
	p := w.procs[to]
	if !p.up {
		// The network drops what reaches a down endpoint, so this is a
		// guard; were the resource ever down here, its hold is counted
		// down all the same.
		if w.on != nil {
			w.lost(from, to, m)
		}
		return
	}
	if p.paused {
		p.held = append(p.held, deferred{from: from, msg: m})
		return
	}
	p.actor.Handle(p, from, m)
}

// Due takes a timer that came due: dropped if its process crashed since,
// held if it is paused, else handed to the actor.
func (h hooks) Due(owner network.Endpoint, incarn uint32, id proto.TimerID, tag uint64) {
	p := h.w.procs[owner]
	if !p.up || p.Incarnation() != incarn {
		return
	}
	if p.paused {
		p.held = append(p.held, deferred{timer: true, id: id, tag: tag})
		return
	}
	p.actor.OnTimer(p, tag)
}

// Cancel stops a pending timer. A timer that came due while its actor was
// paused has left the kernel but not reached the actor: it is still
// pending to the actor, and cancelling it drops it from the held events,
// or it would fire at wake into state that no longer expects it.
func (p *proc) Cancel(id proto.TimerID) bool {
	if p.Proc.Cancel(id) {
		return true
	}
	if id == (proto.TimerID{}) {
		return false
	}
	for i := p.heldNext; i < len(p.held); i++ {
		if d := &p.held[i]; d.timer && !d.cancelled && d.id == id {
			d.cancelled = true
			return true
		}
	}
	return false
}

// --- pauses, crashes and faults -----------------------------------------------

func (w *World) pause(p *proc, d time.Duration, why string) {
	// A drawn length can be as long as a Duration holds (a heavy tail,
	// or a tilted draw far out in it): the end saturates, and such a
	// process does not wake within the run, rather than wrapping into
	// the past.
	end := w.k.Now() + min(d, math.MaxInt64-w.k.Now())
	if w.sampled {
		p.fixedResume = max(p.fixedResume, end)
	}
	w.pauseUntil(p, d, end, why)
}

// pauseUntil freezes p until end (d after now), unless a pause already in
// force lasts longer.
func (w *World) pauseUntil(p *proc, d, end time.Duration, why string) {
	if w.k.Tracing() {
		w.tell(p.Name(), story.Pause{Why: why, For: story.Text(d)})
	}
	if p.paused && end <= p.resume {
		return // a pause already in force lasts longer
	}
	if !p.paused {
		p.frozeAt = w.k.Now()
	}
	p.paused, p.resume = true, end
	w.k.Schedule(end, p.wake, 0)
}

// acquired starts the pauses due at p's acquisition, once the step in
// which p learnt that it holds the lock is over: the client has sent what
// it sends on acquiring (its read of the resource) and set its validity
// timer. A real client stops itself at the same point (the harness's
// AcquireStop), once the reply to that request is in.
func (w *World) acquired(p *proc) {
	if p.crashOnAcquire {
		p.crashOnAcquire = false
		w.k.Schedule(w.k.Now(), func(uint64) { w.crash(p, Fault{Kind: Crash, NoRestart: true}) }, 0)
	}
	if len(p.onAcquire) == 0 {
		return
	}
	due := p.onAcquire
	p.onAcquire = nil
	w.k.Schedule(w.k.Now(), func(uint64) {
		for _, d := range due {
			w.pause(p, d, "GC, as it acquires the lock")
		}
	}, 0)
}

// tell records fact f under actor's name.
func (w *World) tell(actor string, f story.Fact) { w.k.Record(actor, f.Kind(), story.Fields(f)...) }

// waker is an actor with work of its own at its wake, done before what
// came while it was frozen is handed over: a thread that slept until a
// deadline the pause overran runs as the process resumes, ahead of the
// reads of its sockets (consensus.Store.Wake, ZooKeeper's session tracker).
type waker interface{ Wake(env proto.Env) }

func (w *World) resumeFn(p *proc) sim.Func {
	return func(uint64) {
		if !p.paused || w.k.Now() < p.resume {
			return // a longer pause superseded this one
		}
		p.paused = false
		if w.k.Tracing() {
			w.tell(p.Name(), story.Resume{HeldEvents: story.Text(len(p.held))})
		}
		if wk, ok := p.actor.(waker); ok {
			wk.Wake(p)
		}
		// Hand over what arrived while frozen, in arrival order. Events the
		// actor causes now go behind them in the kernel queue. The list
		// stays on p while it is handed over, so that the actor can cancel
		// a held timer it has not been given yet.
		for p.heldNext < len(p.held) {
			if !p.up || p.paused {
				p.held = slices.Delete(p.held, 0, p.heldNext)
				p.heldNext = 0
				return
			}
			d := p.held[p.heldNext]
			p.held[p.heldNext] = deferred{}
			p.heldNext++
			switch {
			case d.cancelled:
			case d.call != nil:
				d.call()
			case d.timer:
				p.actor.OnTimer(p, d.tag)
			default:
				p.actor.Handle(p, d.from, d.msg)
			}
		}
		p.held, p.heldNext = p.held[:0], 0
	}
}

func (w *World) crash(p *proc, f Fault) {
	if !p.up {
		return
	}
	power := f.Kind == PowerLoss
	if c, ok := p.actor.(*client.Client); ok {
		// A crashed process believes nothing: the holder's belief ends
		// as it dies, and nothing it would have done happens.
		c.Crash(p)
	}
	p.up = false
	p.Crashed()
	// The messages held here are lost without a word to a fast run's
	// world (lost): they are messages to p, and a read or write of the
	// resource is only ever sent to the resource.
	clear(p.held)
	p.held, p.heldNext = p.held[:0], 0
	p.paused = false
	w.net.SetUp(p.Self(), false)
	if w.k.Tracing() {
		if f.NoRestart {
			w.tell(p.Name(), story.Down(power, "never", ""))
		} else {
			w.tell(p.Name(), story.Down(power, "", story.Text(f.For)))
		}
	}
	if n, ok := p.actor.(*redis.Node); ok {
		n.Crash(power)
	}
	if f.NoRestart {
		return
	}
	w.k.After(f.For, func(uint64) { w.restart(p) }, 0)
}

func (w *World) restart(p *proc) {
	p.up = true
	w.net.SetUp(p.Self(), true)
	if w.k.Tracing() {
		w.tell(p.Name(), story.Restart{})
	}
	p.actor.Start(p)
}

func (w *World) scheduleFaults() {
	for i := range w.plan.faults {
		f := &w.plan.faults[i]
		if faultKinds[f.Kind].atStart {
			continue // applied as the world was built
		}
		if f.Random() {
			f = w.drawFault(i, f)
		}
		w.k.Schedule(f.At, func(uint64) { w.apply(f) }, 0)
	}
}

// drawFault is fault i of this run, its time and length drawn (see
// Fault.draw) on a copy, since the plan is shared by every run.
func (w *World) drawFault(i int, f *plannedFault) *plannedFault {
	g := *f
	g.draw(w.k.Stream(FaultStream(i)))
	return &g
}

// apply performs f by its kind (see faultKinds), through the World's
// faultScope.
func (w *World) apply(f *plannedFault) { faultKinds[f.Kind].apply(worldFaults{w}, f) }

// actOn makes a change to p's actor now, or at its wake if it is paused: a
// frozen process notices nothing, and must not start serving.
func (w *World) actOn(p *proc, f func()) {
	if p.paused {
		p.held = append(p.held, deferred{call: f})
		return
	}
	f()
}

// schedulePauses plays a client's random pauses as PauseDraws yields them
// from the client's own stream, so that turning pauses on for one client
// changes no other draw. Each pause is scheduled when the one before it
// fires, not all at the start, which keeps the kernel's queue short.
func (w *World) schedulePauses(c ClientConfig) {
	if c.Pauses.Every <= 0 {
		return
	}
	ps := &pauseState{
		d: NewPauseDraws(w.k.Stream(PauseStream(c.Name)), c.Pauses, w.plan.cfg.Duration),
		p: w.procs[w.plan.endpoint(c.Name)], cfg: c.Pauses,
	}
	if w.sampled {
		w.pauses = append(w.pauses, ps)
	}
	ps.fire = func(uint64) {
		w.randomPause(ps, ps.length)
		ps.next(w)
	}
	ps.next(w)
}

// next draws and schedules the client's next random pause, if the run has
// one.
func (ps *pauseState) next(w *World) {
	if ps.at, ps.length, ps.ok = ps.d.Next(); ps.ok {
		ps.ev = w.k.Schedule(ps.at, ps.fire, 0)
	}
}
