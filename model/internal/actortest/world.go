package actortest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// World is a kernel, a network and the actors on it. Create one with New.
type World struct {
	t       testing.TB
	k       *sim.Kernel
	net     *network.Net[proto.Msg]
	procs   []*Proc
	started int // procs[:started] have been started

	timers sim.Slots[timer] // a slot is live from SetTimer to its firing or Cancel
	fire   sim.Func

	obs      []Observation
	observed int // observations ever made, forgotten or not
}

// timer is a pending timer of one incarnation of an actor.
type timer struct {
	p   *Proc
	inc uint32
	tag uint64
}

// Observation is a proto.Observation stamped with the true time and the
// name of the actor that made it.
type Observation struct {
	At    time.Duration
	Actor string
	proto.Observation
}

// New returns an empty world at true time 0 whose random streams derive
// from seed. With trace on, actors' narration is recorded (TraceLines) and
// logged if t fails.
func New(t testing.TB, seed uint64, trace bool) *World {
	w := &World{t: t, k: sim.New(seed)}
	if trace {
		w.k.SetTrace(sim.NewRecorder())
	}
	w.fire = w.onTimer
	w.net = network.New(w.k, w.deliver)
	t.Cleanup(func() {
		if t.Failed() && w.k.Tracing() {
			t.Logf("trace:\n%s", strings.Join(w.TraceLines(), "\n"))
		}
	})
	return w
}

// Kernel is the world's event kernel.
func (w *World) Kernel() *sim.Kernel { return w.k }

// Net is the world's network: latencies, partitions, endpoint names.
func (w *World) Net() *network.Net[proto.Msg] { return w.net }

// Now is the current true time.
func (w *World) Now() time.Duration { return w.k.Now() }

// Add attaches actor a under name, with clocks following spec (the zero
// Spec is an ideal clock). It does not start it: see Start.
func (w *World) Add(name string, a proto.Actor, spec clocks.Spec) *Proc {
	w.t.Helper()
	clk, err := clocks.NewProcess(spec)
	if err != nil {
		w.t.Fatalf("clocks of %s: %v", name, err)
	}
	p := &Proc{w: w, name: name, actor: a, clk: clk, rng: w.k.Rand("actor:" + name), up: true}
	p.ep = w.net.AddEndpoint(name)
	if int(p.ep) != len(w.procs) {
		w.t.Fatalf("endpoint %d for %s, want %d", p.ep, name, len(w.procs))
	}
	w.procs = append(w.procs, p)
	return p
}

// Start starts the actors added since the last Start, in the order they
// were added.
func (w *World) Start() {
	for _, p := range w.procs[w.started:] {
		p.actor.Start(p)
	}
	w.started = len(w.procs)
}

// At runs f at true time t.
func (w *World) At(t time.Duration, f func()) {
	w.k.Schedule(t, func(uint64) { f() }, 0)
}

// Run runs every event up to and including true time until.
func (w *World) Run(until time.Duration) { w.k.RunUntil(until) }

// RunAll runs until no event is left.
func (w *World) RunAll() { w.k.Run() }

// Crash takes p down, as model.World does: its endpoint goes down, the
// timers of this incarnation die, then the actor's Crash(powerLoss) runs
// if it has one.
func (w *World) Crash(p *Proc, powerLoss bool) {
	p.up = false
	p.inc++
	w.net.SetUp(p.ep, false)
	if c, ok := p.actor.(interface{ Crash(powerLoss bool) }); ok {
		c.Crash(powerLoss)
	}
}

// Restart brings p back up and starts its actor again.
func (w *World) Restart(p *Proc) {
	p.up = true
	w.net.SetUp(p.ep, true)
	p.actor.Start(p)
}

// Observations returns every observation kept, in the order they were made.
func (w *World) Observations() []Observation { return w.obs }

// Observed returns the observations of kind k made by actor.
func (w *World) Observed(actor string, k proto.ObsKind) []Observation {
	var out []Observation
	for _, o := range w.obs {
		if o.Actor == actor && o.Kind == k {
			out = append(out, o)
		}
	}
	return out
}

// NumObserved is the number of observations made since the start,
// including forgotten ones.
func (w *World) NumObserved() int { return w.observed }

// ForgetObservations drops the observations kept so far, keeping their
// storage; NumObserved still counts them. Benchmarks call it every round.
func (w *World) ForgetObservations() { w.obs = w.obs[:0] }

// Timers is the number of actor timers pending.
func (w *World) Timers() int { return w.timers.Len() }

// TraceLines returns the narration so far, one line per record.
func (w *World) TraceLines() []string {
	var out []string
	for _, r := range w.k.Trace().Records() {
		out = append(out, r.String())
	}
	return out
}

func (w *World) deliver(from, to network.Endpoint, m proto.Msg) {
	p := w.procs[to]
	p.actor.Handle(p, from, m)
}

func (w *World) onTimer(slot uint64) {
	t := w.timers.Take(int32(slot))
	if t.p.up && t.p.inc == t.inc {
		t.p.actor.OnTimer(t.p, t.tag)
	}
}

// Proc is one actor's place in the world and its proto.Env.
type Proc struct {
	w     *World
	ep    network.Endpoint
	name  string
	actor proto.Actor
	clk   *clocks.Process
	rng   *rand.Rand
	inc   uint32 // incarnation: counts crashes
	up    bool
}

var _ proto.Env = (*Proc)(nil)

// Clocks are the actor's clocks.
func (p *Proc) Clocks() *clocks.Process { return p.clk }

func (p *Proc) Self() network.Endpoint                      { return p.ep }
func (p *Proc) Name() string                                { return p.name }
func (p *Proc) Lookup(name string) (network.Endpoint, bool) { return p.w.net.Lookup(name) }
func (p *Proc) NameOf(e network.Endpoint) string            { return p.w.net.Name(e) }
func (p *Proc) Send(to network.Endpoint, m proto.Msg)       { p.w.net.Send(p.ep, to, m) }
func (p *Proc) Rand() *rand.Rand                            { return p.rng }
func (p *Proc) Tracing() bool                               { return p.w.k.Tracing() }
func (p *Proc) Trace(kind string, fields ...sim.Field)      { p.w.k.Record(p.name, kind, fields...) }

func (p *Proc) Observe(o proto.Observation) {
	p.w.observed++
	p.w.obs = append(p.w.obs, Observation{At: p.w.k.Now(), Actor: p.name, Observation: o})
}

func (p *Proc) clock(c proto.Clock) *clocks.Clock {
	switch c {
	case proto.Wall:
		return p.clk.Wall
	case proto.Mono:
		return p.clk.Mono
	}
	panic(fmt.Sprintf("actortest: %s reads clock %v", p.name, c))
}

func (p *Proc) Read(c proto.Clock) time.Duration { return p.clock(c).Local(p.w.k.Now()) }

func (p *Proc) SetTimer(c proto.Clock, deadline time.Duration, tag uint64) proto.TimerID {
	w := p.w
	at := p.clock(c).When(deadline, w.k.Now())
	if at == clocks.Never {
		panic(fmt.Sprintf("actortest: %s sets a %v timer for %v that never fires", p.name, c, deadline))
	}
	slot := w.timers.Put(timer{p: p, inc: p.inc, tag: tag})
	return w.k.Schedule(at, w.fire, uint64(slot))
}

func (p *Proc) After(d time.Duration, tag uint64) proto.TimerID {
	return p.SetTimer(proto.Mono, p.Read(proto.Mono)+d, tag)
}

func (p *Proc) Cancel(id proto.TimerID) bool {
	w := p.w
	slot, ok := w.k.Arg(id)
	if !ok || !w.k.Cancel(id) {
		return false
	}
	w.timers.Take(int32(slot))
	return true
}
