package redis_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// world is a test-only miniature of the lead's model.World: a kernel, a
// network of proto.Msg, per-process clocks, and crash/restart. Timers live in
// a slab so that the benchmark measures the node, not the harness.
type world struct {
	t      testing.TB
	k      *sim.Kernel
	net    *network.Net[proto.Msg]
	procs  []*proc
	timers []timerRec
	free   []int32
	slotOf map[sim.EventID]int32
	fire   sim.Func
	obs    []obsRec
}

type timerRec struct {
	p   *proc
	inc uint32
	tag uint64
	id  sim.EventID
}

type obsRec struct {
	at    time.Duration
	actor string
	o     proto.Observation
}

type proc struct {
	w     *world
	ep    network.Endpoint
	name  string
	actor proto.Actor
	clk   *clocks.Process
	rng   *rand.Rand
	inc   uint32
	up    bool
}

func newWorld(t testing.TB, trace bool) *world {
	w := &world{t: t, k: sim.New(1), slotOf: make(map[sim.EventID]int32)}
	if trace {
		w.k.SetTrace(sim.NewRecorder())
	}
	w.fire = w.onTimer
	w.net = network.New(w.k, w.deliver)
	t.Cleanup(func() {
		if t.Failed() && w.k.Tracing() {
			var b strings.Builder
			w.k.Trace().WriteTo(&b)
			t.Logf("trace:\n%s", b.String())
		}
	})
	return w
}

// add attaches an actor with the given clock spec (the zero Spec is ideal).
func (w *world) add(name string, a proto.Actor, spec clocks.Spec) *proc {
	w.t.Helper()
	clk, err := clocks.NewProcess(spec)
	if err != nil {
		w.t.Fatalf("clock of %s: %v", name, err)
	}
	p := &proc{w: w, name: name, actor: a, clk: clk, up: true, rng: w.k.Rand("actor:" + name)}
	p.ep = w.net.AddEndpoint(name)
	w.procs = append(w.procs, p)
	return p
}

// start starts every actor at true time 0, in the order they were added.
func (w *world) start() {
	for _, p := range w.procs {
		p.actor.Start(p)
	}
}

func (w *world) deliver(from, to network.Endpoint, m proto.Msg) {
	p := w.procs[to]
	p.actor.Handle(p, from, m)
}

func (w *world) onTimer(arg uint64) {
	rec := w.timers[arg]
	delete(w.slotOf, rec.id)
	w.timers[arg] = timerRec{}
	w.free = append(w.free, int32(arg))
	if rec.p.up && rec.p.inc == rec.inc {
		rec.p.actor.OnTimer(rec.p, rec.tag)
	}
}

// at runs f at true time t.
func (w *world) at(t time.Duration, f func()) {
	w.k.Schedule(t, func(uint64) { f() }, 0)
}

func (w *world) run(until time.Duration) { w.k.RunUntil(until) }

// crash takes p down, as the lead's world does: endpoint down, timers of
// this incarnation dead, then the actor's Crash.
func (w *world) crash(p *proc, powerLoss bool) {
	p.up = false
	p.inc++
	w.net.SetUp(p.ep, false)
	if c, ok := p.actor.(interface{ Crash(bool) }); ok {
		c.Crash(powerLoss)
	}
}

func (w *world) restart(p *proc) {
	p.up = true
	w.net.SetUp(p.ep, true)
	p.actor.Start(p)
}

// observed returns the observations of kind k by actor.
func (w *world) observed(actor string, k proto.ObsKind) []obsRec {
	var out []obsRec
	for _, o := range w.obs {
		if o.actor == actor && o.o.Kind == k {
			out = append(out, o)
		}
	}
	return out
}

// --- proto.Env ---------------------------------------------------------------

func (p *proc) Self() network.Endpoint                      { return p.ep }
func (p *proc) Name() string                                { return p.name }
func (p *proc) Lookup(name string) (network.Endpoint, bool) { return p.w.net.Lookup(name) }
func (p *proc) NameOf(e network.Endpoint) string            { return p.w.net.Name(e) }
func (p *proc) Send(to network.Endpoint, m proto.Msg)       { p.w.net.Send(p.ep, to, m) }
func (p *proc) Rand() *rand.Rand                            { return p.rng }
func (p *proc) Tracing() bool                               { return p.w.k.Tracing() }
func (p *proc) Trace(kind string, fields ...sim.Field)      { p.w.k.Record(p.name, kind, fields...) }

func (p *proc) Observe(o proto.Observation) {
	p.w.obs = append(p.w.obs, obsRec{at: p.w.k.Now(), actor: p.name, o: o})
}

func (p *proc) clock(c proto.Clock) *clocks.Clock {
	switch c {
	case proto.Wall:
		return p.clk.Wall
	case proto.Mono:
		return p.clk.Mono
	}
	panic("bad clock")
}

func (p *proc) Read(c proto.Clock) time.Duration { return p.clock(c).Local(p.w.k.Now()) }

func (p *proc) SetTimer(c proto.Clock, deadline time.Duration, tag uint64) proto.TimerID {
	w := p.w
	at := p.clock(c).When(deadline, w.k.Now())
	var slot int32
	if n := len(w.free); n > 0 {
		slot = w.free[n-1]
		w.free = w.free[:n-1]
	} else {
		w.timers = append(w.timers, timerRec{})
		slot = int32(len(w.timers) - 1)
	}
	w.timers[slot] = timerRec{p: p, inc: p.inc, tag: tag}
	id := w.k.Schedule(at, w.fire, uint64(slot))
	w.slotOf[id] = slot
	w.timers[slot].id = id
	return id
}

func (p *proc) After(d time.Duration, tag uint64) proto.TimerID {
	return p.SetTimer(proto.Mono, p.Read(proto.Mono)+d, tag)
}

func (p *proc) Cancel(id proto.TimerID) bool {
	w := p.w
	if !w.k.Cancel(id) {
		return false
	}
	slot := w.slotOf[id]
	delete(w.slotOf, id)
	w.timers[slot] = timerRec{}
	w.free = append(w.free, slot)
	return true
}

// --- a client that records what it gets ---------------------------------------

type got struct {
	at   time.Duration
	from string
	m    proto.Msg
}

// probe is a client actor: tests make it send, and it records every
// message it receives with the true time.
type probe struct {
	p   *proc
	got []got
}

func (w *world) addProbe(name string) *probe {
	pr := &probe{}
	pr.p = w.add(name, pr, clocks.Spec{})
	return pr
}

func (c *probe) Start(proto.Env)           {}
func (c *probe) OnTimer(proto.Env, uint64) {}
func (c *probe) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	c.got = append(c.got, got{at: c.p.w.k.Now(), from: env.NameOf(from), m: m})
}

// send makes the probe send m to the endpoint called to at true time t.
func (c *probe) send(t time.Duration, to string, m proto.Msg) {
	w := c.p.w
	w.at(t, func() {
		ep, ok := w.net.Lookup(to)
		if !ok {
			w.t.Fatalf("no endpoint %q", to)
		}
		c.p.Send(ep, m)
	})
}

// reply returns the reply with request id req, failing if there is none
// or more than one.
func (c *probe) reply(req uint64) got {
	c.p.w.t.Helper()
	var out []got
	for _, g := range c.got {
		if g.m.Kind == proto.Reply && g.m.Req == req {
			out = append(out, g)
		}
	}
	if len(out) != 1 {
		c.p.w.t.Fatalf("%s: %d replies to request %d, want 1 (got %+v)", c.p.name, len(out), req, c.got)
	}
	return out[0]
}

// replied reports whether some reply to req arrived.
func (c *probe) replied(req uint64) bool {
	for _, g := range c.got {
		if g.m.Kind == proto.Reply && g.m.Req == req {
			return true
		}
	}
	return false
}
