package actortest

import (
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/internal/procenv"
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

	host *procenv.Host

	obs      []Observation
	observed int // observations ever made, forgotten or not
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
	w.net = network.New(w.k, w.deliver)
	w.host = procenv.NewHost(w.k, w.net, procenv.DueFunc(w.due))
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
	p := &Proc{Proc: procenv.NewProc(w.host, name, clk), w: w, actor: a, up: true}
	if int(p.Self()) != len(w.procs) {
		w.t.Fatalf("endpoint %d for %s, want %d", p.Self(), name, len(w.procs))
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
	p.Crashed()
	w.net.SetUp(p.Self(), false)
	if c, ok := p.actor.(interface{ Crash(powerLoss bool) }); ok {
		c.Crash(powerLoss)
	}
}

// Restart brings p back up and starts its actor again.
func (w *World) Restart(p *Proc) {
	p.up = true
	w.net.SetUp(p.Self(), true)
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
func (w *World) Timers() int { return w.host.Timers() }

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

func (w *World) due(owner network.Endpoint, incarn uint32, _ proto.TimerID, tag uint64) {
	p := w.procs[owner]
	if p.up && p.Incarnation() == incarn {
		p.actor.OnTimer(p, tag)
	}
}

// Proc is one actor's place in the world and its proto.Env: the same
// procenv.Proc the model's World gives its actors, with the observations
// kept for the test.
type Proc struct {
	procenv.Proc
	w     *World
	actor proto.Actor
	up    bool
}

var _ proto.Env = (*Proc)(nil)

func (p *Proc) Observe(o proto.Observation) {
	p.w.observed++
	p.w.obs = append(p.w.obs, Observation{At: p.w.k.Now(), Actor: p.Name(), Observation: o})
}
