package resource

// A small test world: a sim.Kernel, a network.Net carrying proto.Msg, and one
// Env per actor with its own clocks. It is what model's World will be, cut
// down to what these tests need (no crashes, no pauses). Wall timers do not
// follow later steps of the wall clock; nothing here sets any.

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

type stamped struct {
	at    time.Duration
	actor string
	proto.Observation
}

type world struct {
	t        testing.TB
	k        *sim.Kernel
	net      *network.Net[proto.Msg]
	envs     []*testEnv
	obs      []stamped
	keepObs  bool
	observed int
}

func newWorld(t testing.TB, seed uint64, trace bool) *world {
	w := &world{t: t, k: sim.New(seed), keepObs: true}
	if trace {
		w.k.SetTrace(sim.NewRecorder())
	}
	w.net = network.New(w.k, func(from, to network.Endpoint, m proto.Msg) {
		e := w.envs[to]
		e.actor.Handle(e, from, m)
	})
	return w
}

// add attaches an actor whose clocks follow spec; it starts at once.
func (w *world) add(name string, a proto.Actor, spec clocks.Spec) *testEnv {
	clk, err := clocks.NewProcess(spec)
	if err != nil {
		w.t.Fatalf("clocks for %s: %v", name, err)
	}
	e := &testEnv{w: w, self: w.net.AddEndpoint(name), name: name, actor: a, clk: clk, rng: w.k.Rand("actor:" + name)}
	e.fire = e.onTimer
	if int(e.self) != len(w.envs) {
		w.t.Fatalf("endpoint %d for %s, want %d", e.self, name, len(w.envs))
	}
	w.envs = append(w.envs, e)
	a.Start(e)
	return e
}

// at runs f at true time t.
func (w *world) at(t time.Duration, f func()) { w.k.Schedule(t, func(uint64) { f() }, 0) }

func (w *world) observations(kind proto.ObsKind) []stamped {
	var out []stamped
	for _, o := range w.obs {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

func (w *world) traceLines() []string {
	var out []string
	for _, r := range w.k.Trace().Records() {
		out = append(out, r.String())
	}
	return out
}

type testEnv struct {
	w     *world
	self  network.Endpoint
	name  string
	actor proto.Actor
	clk   *clocks.Process
	rng   *rand.Rand
	fire  sim.Func
}

var _ proto.Env = (*testEnv)(nil)

func (e *testEnv) Self() network.Endpoint                   { return e.self }
func (e *testEnv) Name() string                             { return e.name }
func (e *testEnv) Lookup(n string) (network.Endpoint, bool) { return e.w.net.Lookup(n) }
func (e *testEnv) NameOf(x network.Endpoint) string         { return e.w.net.Name(x) }
func (e *testEnv) Send(to network.Endpoint, m proto.Msg)    { e.w.net.Send(e.self, to, m) }
func (e *testEnv) Rand() *rand.Rand                         { return e.rng }
func (e *testEnv) Tracing() bool                            { return e.w.k.Tracing() }
func (e *testEnv) Cancel(id proto.TimerID) bool             { return e.w.k.Cancel(id) }

func (e *testEnv) clock(c proto.Clock) *clocks.Clock {
	switch c {
	case proto.Wall:
		return e.clk.Wall
	case proto.Mono:
		return e.clk.Mono
	}
	panic(fmt.Sprintf("test env: clock %v", c))
}

func (e *testEnv) Read(c proto.Clock) time.Duration { return e.clock(c).Local(e.w.k.Now()) }

func (e *testEnv) SetTimer(c proto.Clock, deadline time.Duration, tag uint64) proto.TimerID {
	at := e.clock(c).When(deadline, e.w.k.Now())
	if at == clocks.Never {
		panic("test env: timer never fires")
	}
	return e.w.k.Schedule(at, e.fire, tag)
}

func (e *testEnv) After(d time.Duration, tag uint64) proto.TimerID {
	return e.SetTimer(proto.Mono, e.Read(proto.Mono)+d, tag)
}

func (e *testEnv) onTimer(tag uint64) { e.actor.OnTimer(e, tag) }

func (e *testEnv) Observe(o proto.Observation) {
	e.w.observed++
	if e.w.keepObs {
		e.w.obs = append(e.w.obs, stamped{at: e.w.k.Now(), actor: e.name, Observation: o})
	}
}

func (e *testEnv) Trace(kind string, fields ...sim.Field) { e.w.k.Record(e.name, kind, fields...) }

// reply is a message a probe received.
type reply struct {
	at   time.Duration
	from network.Endpoint
	proto.Msg
}

// probe is a scripted client: tests make it send, and it keeps what comes
// back, by request id.
type probe struct {
	env     *testEnv
	replies []reply
	last    proto.Msg
	count   int
	keep    bool
}

func newProbe() *probe { return &probe{keep: true} }

func (p *probe) Start(env proto.Env) {}

func (p *probe) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	p.count++
	p.last = m
	if p.keep {
		p.replies = append(p.replies, reply{at: p.env.w.k.Now(), from: from, Msg: m})
	}
}

func (p *probe) OnTimer(env proto.Env, tag uint64) { panic("probe: no timers") }

// reply returns the reply to request req; the test fails without one.
func (p *probe) reply(t testing.TB, req uint64) reply {
	t.Helper()
	for _, r := range p.replies {
		if r.Req == req {
			return r
		}
	}
	t.Fatalf("%s got no reply to request %d (got %d replies)", p.env.name, req, len(p.replies))
	return reply{}
}

func (p *probe) send(to network.Endpoint, m proto.Msg) { p.env.Send(to, m) }

func (w *world) addProbe(name string) *probe {
	p := newProbe()
	p.env = w.add(name, p, clocks.Spec{})
	return p
}
