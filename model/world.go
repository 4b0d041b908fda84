package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/consensus"
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

// proc is one actor in the world and its environment (it implements
// proto.Env for that actor).
type proc struct {
	w      *World
	name   string
	ep     network.Endpoint
	role   role
	actor  proto.Actor
	clk    *clocks.Process
	rng    *rand.Rand
	up     bool
	incarn uint32
	paused bool
	resume time.Duration
	wake   sim.Func // w.resumeFn(p), bound once so a pause does not allocate
	held   []deferred
	// heldNext is the first entry of held not yet handed over; entries
	// before it are being or have been delivered during a wake.
	heldNext int

	// Indexes into the history of this client's open hold, attempt and
	// want; -1 when none is open.
	openHold, openTry, openWant int
}

// timer is a pending actor timer; the kernel event's argument indexes the
// world's timer table.
type timer struct {
	proc   int32
	incarn uint32
	tag    uint64
	id     proto.TimerID // the kernel event, so that a held timer stays cancellable
}

// World is one lock world, built from a Config and a seed.
type World struct {
	cfg    *Config
	plan   *Plan
	k      *sim.Kernel
	net    *network.Net[proto.Msg]
	procs  []*proc // indexed by network endpoint: both are added together
	timers sim.Slots[timer]
	fire   sim.Func

	res   *resource.Resource
	store *consensus.Store
	nodes []*redis.Node

	hist     check.History
	holdIdx  map[uint64]int // lock value → index in hist.Holds
	timeline Timeline
	messages []Message // delivered messages, kept only in a narrated run
	budget   *budget   // nil: no budget (Run); see runWithin
}

// NewWorld builds the world a Plan describes; it checks nothing, as Compile
// did.
func NewWorld(plan *Plan, seed uint64, trace bool) *World {
	cfg := &plan.cfg
	w := &World{
		cfg:     cfg,
		plan:    plan,
		k:       sim.New(seed),
		holdIdx: make(map[uint64]int),
	}
	if trace {
		w.k.SetTrace(sim.NewRecorder())
		w.timeline.on = true
	}
	w.fire = w.onTimer
	w.net = network.New(w.k, w.deliver)
	if trace {
		w.net.SetTap(w.tapMessage)
	}
	w.net.SetDefaultLatency(cfg.Network.Latency)
	w.net.SetDefaultLoss(cfg.Network.Loss)

	nodeNames := make([]string, len(cfg.Nodes))
	for i, n := range cfg.Nodes {
		nodeNames[i] = n.Name
	}
	clientNames := make([]string, len(cfg.Clients))
	for i, c := range cfg.Clients {
		clientNames[i] = c.Name
	}
	store := ""
	if cfg.Lock.Algorithm == client.Lease {
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
			w.store = consensus.New(consensus.Config{ServiceTime: cfg.Store.ServiceTime})
			a = w.store
		case roleSentinel:
			a = sentinel.New(sentinel.Config{
				Master: nodeNames[0], Replicas: nodeNames[1:], Clients: clientNames,
				DownAfter: cfg.Sentinel.DownAfter, PingEvery: cfg.Sentinel.PingEvery,
			})
		case roleClient:
			c := cfg.Clients[pp.index]
			a = client.New(client.Config{
				ID: pp.index + 1, Name: c.Name, StartIn: c.StartIn,
				Lock: cfg.Lock, Work: cfg.Work, Nodes: nodeNames,
				Store: store, Resource: "resource",
			})
		}
		w.add(pp, a)
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
	return w
}

// add adds the process pp with its actor a, as the next endpoint.
func (w *World) add(pp plannedProc, a proto.Actor) {
	spec := pp.clock
	if pp.spread > 0 {
		// A stream of its own per process, so that turning the spread on
		// for one process changes nobody else's draws.
		r := w.k.Rand("clock:" + pp.name)
		spec.RatePPM += (2*r.Float64() - 1) * pp.spread
	}
	clk, err := clocks.NewProcess(spec)
	if err != nil {
		// Compile validated this spec at both extremes of its spread.
		panic(fmt.Sprintf("model: the clock of %s: %v", pp.name, err))
	}
	p := &proc{w: w, name: pp.name, role: pp.role, actor: a, clk: clk, up: true, rng: w.k.Rand("actor:" + pp.name),
		openHold: -1, openTry: -1, openWant: -1}
	p.wake = w.resumeFn(p)
	p.ep = w.net.AddEndpoint(pp.name)
	if int(p.ep) != len(w.procs) {
		panic("model: endpoints are not numbered densely")
	}
	w.procs = append(w.procs, p)
}

// WithClockFault returns s with the clock fault f folded in, and true; or s
// unchanged and false when f is not a clock fault. The entry goes after
// those at or before its time, so folding a spec's faults one by one builds
// exactly the clock the world runs. The caller's lists are never written.
func WithClockFault(s clocks.Spec, f Fault) (clocks.Spec, bool) {
	switch f.Kind {
	case ClockStep:
		s.Steps = insertByTime(s.Steps, clocks.Step{At: f.At, By: f.By}, func(x clocks.Step) time.Duration { return x.At })
	case ClockRate:
		s.RateChanges = insertByTime(s.RateChanges, clocks.RateChange{At: f.At, RatePPM: f.PPM}, func(x clocks.RateChange) time.Duration { return x.At })
	case ClockSlew:
		s.Slews = insertByTime(s.Slews, clocks.Slew{At: f.At, By: f.By, MaxPPM: f.MaxPPM}, func(x clocks.Slew) time.Duration { return x.At })
	default:
		return s, false
	}
	return s, true
}

// insertByTime inserts x after the entries of list at or before its time,
// into a copy (Clip makes Insert reallocate rather than write list's array).
func insertByTime[T any](list []T, x T, at func(T) time.Duration) []T {
	i := len(list)
	for i > 0 && at(list[i-1]) > at(x) {
		i--
	}
	return slices.Insert(slices.Clip(list), i, x)
}

// Run runs the world to its end and returns the result.
func (w *World) Run() Result {
	for _, p := range w.procs {
		p.actor.Start(p)
	}
	w.k.RunUntil(w.cfg.Duration)
	return w.finish()
}

// --- delivery and timers -------------------------------------------------

func (w *World) deliver(from, to network.Endpoint, m proto.Msg) {
	p := w.procs[to]
	if !p.up {
		return
	}
	if p.paused {
		p.held = append(p.held, deferred{from: from, msg: m})
		return
	}
	p.actor.Handle(p, from, m)
}

func (w *World) onTimer(arg uint64) {
	t := w.timers.Take(int32(arg))
	p := w.procs[t.proc]
	if !p.up || p.incarn != t.incarn {
		return
	}
	if p.paused {
		p.held = append(p.held, deferred{timer: true, id: t.id, tag: t.tag})
		return
	}
	p.actor.OnTimer(p, t.tag)
}

// --- proto.Env --------------------------------------------------------------

func (p *proc) Self() network.Endpoint { return p.ep }
func (p *proc) Name() string           { return p.name }
func (p *proc) Lookup(name string) (network.Endpoint, bool) {
	return p.w.net.Lookup(name)
}
func (p *proc) NameOf(e network.Endpoint) string { return p.w.net.Name(e) }
func (p *proc) Send(to network.Endpoint, m proto.Msg) {
	p.w.net.Send(p.ep, to, m)
}

func (p *proc) Read(c proto.Clock) time.Duration {
	return p.clock(c).Local(p.w.k.Now())
}

func (p *proc) clock(c proto.Clock) *clocks.Clock {
	if c == proto.Wall {
		return p.clk.Wall
	}
	return p.clk.Mono
}

func (p *proc) SetTimer(c proto.Clock, deadline time.Duration, tag uint64) proto.TimerID {
	now := p.w.k.Now()
	at := p.clock(c).When(deadline, now)
	return p.w.schedule(p, at, tag)
}

func (p *proc) After(d time.Duration, tag uint64) proto.TimerID {
	return p.SetTimer(proto.Mono, p.Read(proto.Mono)+d, tag)
}

func (w *World) schedule(p *proc, at time.Duration, tag uint64) proto.TimerID {
	slot := w.timers.Put(timer{proc: int32(p.ep), incarn: p.incarn, tag: tag})
	id := w.k.Schedule(at, w.fire, uint64(slot))
	w.timers.At(slot).id = id
	return id
}

// Cancel stops a pending timer. A timer that came due while its actor was
// paused has left the kernel but not reached the actor: it is still
// pending to the actor, and cancelling it drops it from the held events,
// or it would fire at wake into state that no longer expects it.
func (p *proc) Cancel(id proto.TimerID) bool {
	if arg, ok := p.w.k.Arg(id); ok {
		p.w.k.Cancel(id)
		p.w.timers.Take(int32(arg))
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

func (p *proc) Rand() *rand.Rand { return p.rng }
func (p *proc) Tracing() bool    { return p.w.k.Tracing() }
func (p *proc) Trace(kind string, fields ...sim.Field) {
	p.w.k.Record(p.name, kind, fields...)
}

// --- pauses, crashes and faults -----------------------------------------------

func (w *World) pause(p *proc, d time.Duration, why string) {
	end := w.k.Now() + d
	if w.k.Tracing() {
		w.k.Record(p.name, story.Pauses, sim.F("why", why), sim.F("for", d))
	}
	w.timeline.add(p.name, SpanPause, w.k.Now(), end, why)
	if p.paused && end <= p.resume {
		return // a pause already in force lasts longer
	}
	p.paused, p.resume = true, end
	w.k.Schedule(end, p.wake, 0)
}

func (w *World) resumeFn(p *proc) sim.Func {
	return func(uint64) {
		if !p.paused || w.k.Now() < p.resume {
			return // a longer pause superseded this one
		}
		p.paused = false
		if w.k.Tracing() {
			w.k.Record(p.name, story.Resumes, sim.F("held-events", len(p.held)))
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
	p.up = false
	p.incarn++
	clear(p.held)
	p.held, p.heldNext = p.held[:0], 0
	p.paused = false
	w.net.SetUp(p.ep, false)
	what, label := story.Crashes, "crashed"
	if power {
		what, label = story.LosesPower, "power lost"
	}
	if w.k.Tracing() {
		w.k.Record(p.name, what)
	}
	if n, ok := p.actor.(*redis.Node); ok {
		n.Crash(power)
	}
	// A down node serves no key; what survives on disk shows again when it
	// reloads.
	w.keyGone(p.name, w.k.Now())
	if f.NoRestart {
		w.timeline.add(p.name, SpanDown, w.k.Now(), w.cfg.Duration, label)
		return
	}
	delay := f.For
	w.timeline.add(p.name, SpanDown, w.k.Now(), min(w.k.Now()+delay, w.cfg.Duration), label)
	w.k.After(delay, func(uint64) { w.restart(p) }, 0)
}

func (w *World) restart(p *proc) {
	p.up = true
	w.net.SetUp(p.ep, true)
	if w.k.Tracing() {
		w.k.Record(p.name, story.Restarts)
	}
	p.actor.Start(p)
}

func (w *World) scheduleFaults() {
	for i := range w.plan.faults {
		f := &w.plan.faults[i]
		w.k.Schedule(f.At, func(uint64) { w.apply(f) }, 0)
	}
}

func (w *World) apply(f *plannedFault) {
	switch f.Kind {
	case Crash, PowerLoss:
		w.crash(w.procs[f.target], f.Fault)
	case Pause:
		w.pause(w.procs[f.target], f.For, "GC")
	case ClockStep, ClockRate, ClockSlew:
		// Already folded into the clock; narrate it.
		p := w.procs[f.target]
		label := signed(f.By)
		switch f.Kind {
		case ClockRate:
			label = fmt.Sprintf("%+gppm", f.PPM)
		case ClockSlew:
			label = "slew " + label
		}
		w.timeline.mark(p.name, MarkClock, w.k.Now(), label)
		if w.k.Tracing() {
			kind := map[FaultKind]string{ClockStep: story.ClockStep, ClockRate: story.ClockRate, ClockSlew: story.ClockSlew}[f.Kind]
			w.k.Record(p.name, kind, sim.F("by", f.By), sim.F("ppm", f.PPM))
		}
	case Partition:
		g := w.grudge(f)
		w.net.Apply(g)
		w.timeline.mark("net", MarkPartition, w.k.Now(), f.Partition.String()+" "+f.Target)
	case Cut:
		w.net.Apply(network.Cut([]network.Endpoint{f.target}, []network.Endpoint{f.to}))
		w.timeline.mark("net", MarkPartition, w.k.Now(), "cut "+f.Target+"→"+f.To)
	case Heal:
		w.net.Heal()
		w.timeline.mark("net", MarkHeal, w.k.Now(), "heal")
	case Spike:
		w.net.AddSpike(f.target, f.to, f.At, f.At+f.For, f.By)
		if w.k.Tracing() {
			w.k.Record("net", story.Spike, sim.F("from", orAll(f.Target)), sim.F("to", orAll(f.To)), sim.F("for", f.For), sim.F("by", f.By))
		}
	case Loss:
		w.net.SetDefaultLoss(f.Prob)
		if w.k.Tracing() {
			w.k.Record("net", story.Loss, sim.F("prob", f.Prob))
		}
	case Election:
		p := w.procs[w.plan.endpoint("store")]
		w.actOn(p, func() { w.store.SetAvailable(p, false) })
		w.timeline.add("store", SpanDown, w.k.Now(), min(w.k.Now()+f.For, w.cfg.Duration), "election")
		w.k.After(f.For, func(uint64) {
			w.actOn(p, func() { w.store.SetAvailable(p, true) })
		}, 0)
	}
}

// actOn makes a change to p's actor now, or at its wake if it is paused: a
// frozen process notices nothing, and must not start serving.
func (w *World) actOn(p *proc, f func()) {
	if p.paused {
		p.held = append(p.held, deferred{call: f})
		return
	}
	f()
}

// signed prints a duration with its sign: "+9s", "-500ms".
func signed(d time.Duration) string {
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}

func orAll(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

func (w *World) grudge(f *plannedFault) network.Grudge {
	universe := w.plan.nodes
	if len(f.groups) == 1 {
		universe = f.groups[0]
	}
	switch f.Partition {
	case network.PartitionIsolate:
		x := f.target
		if !slices.Contains(universe, x) {
			universe = append(slices.Clone(universe), x)
		}
		return network.Isolate(universe, x)
	case network.PartitionMajorityMinority:
		return network.MajorityMinority(universe)
	case network.PartitionBridge:
		return network.Bridge(universe)
	case network.PartitionRing:
		return network.MajoritiesRing(universe)
	default:
		return network.Groups(f.groups)
	}
}

// schedulePauses draws a client's random pauses from its own stream, so that
// turning pauses on for one client changes no other draw.
func (w *World) schedulePauses(c ClientConfig) {
	if c.Pauses.Every <= 0 {
		return
	}
	r := w.k.Rand("pauses:" + c.Name)
	p := w.procs[w.plan.endpoint(c.Name)]
	var next sim.Func
	next = func(uint64) {
		w.pause(p, c.Pauses.Length.Sample(r), "GC")
		at := w.k.Now() + time.Duration(r.ExpFloat64()*float64(c.Pauses.Every))
		if at < w.cfg.Duration {
			w.k.Schedule(at, next, 0)
		}
	}
	at := time.Duration(r.ExpFloat64() * float64(c.Pauses.Every))
	if at < w.cfg.Duration {
		w.k.Schedule(at, next, 0)
	}
}
