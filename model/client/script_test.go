package client_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/internal/script"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// TestScripts runs the step scripts in testdata/*.txt (see package
// model/internal/script; rewrite them with -rewrite): one Redlock client c1
// (node-redlock's defaults: drift = ttl × 0.01 + 2ms, validity checked on
// the wall clock) against Redis nodes n1..nN and an unprotected resource,
// driven through actortest. Commands:
//
//	redlock nodes=N ttl=D [latency=D] [retries=K] [critical=D] [start=D] [clock-step=AT:BY]...
//	                          build the world (defaults: 5 nodes, 1ms, 0 retries,
//	                          100ms critical section, c1 starts at 1s, one iteration);
//	                          clock-step steps c1's wall clock by BY at true time AT
//	latency NODE D            one-way latency between c1 and NODE, both ways
//	hold NODE VALUE px=TTL    probe c2 takes the lock key on NODE now (SET NX PX)
//	crash NODE [power-loss]   NODE goes down now
//	restart NODE              NODE starts again now
//	run-until T               run to true time T and print what happened:
//	                          c1's messages (→ sent, ← received), every record
//	                          in model/story's words, c2's replies
func TestScripts(t *testing.T) {
	script.Walk(t, "testdata", func(t *testing.T) script.Commands {
		s := &clientScript{t: t}
		return script.Commands{First: "redlock", Run: map[string]func(c *script.Case) string{
			"redlock": s.build, "latency": s.latency, "hold": s.hold,
			"crash": s.crash, "restart": s.restart, "run-until": s.runUntil,
		}}
	})
}

// Record kinds of the spy: c1's messages, kept in the trace so that they
// fall in event order among the actors' records.
const (
	spySent = "script-sent"
	spyGot  = "script-got"
)

type clientScript struct {
	t       *testing.T
	w       *actortest.World
	c1      *actortest.Proc
	c2      *actortest.Probe
	nodes   map[string]*actortest.Proc
	msgs    []proto.Msg // spy records hold an index into msgs
	records int
	seen    int
	req     uint64
}

func (s *clientScript) latency(c *script.Case) string {
	n := s.node(c, c.Word(0, "node"))
	d := c.Dur(c.Word(1, "latency"))
	s.w.Net().SetLatency(s.c1.Self(), n.Self(), network.Constant(d))
	s.w.Net().SetLatency(n.Self(), s.c1.Self(), network.Constant(d))
	return fmt.Sprintf("c1 <-> %s: %v each way", c.Word(0, "node"), d)
}

func (s *clientScript) hold(c *script.Case) string {
	name := c.Word(0, "node")
	s.node(c, name)
	ttl, ok := c.Get("px")
	if !ok {
		c.Fatalf("missing px=TTL")
	}
	s.req++
	v := c.LockValue(c.Word(1, "value"))
	s.c2.Send(s.w.Now(), name, proto.Msg{Kind: proto.SetNX, Req: s.req, Key: "lock", Value: v, TTL: c.Dur(ttl)})
	return fmt.Sprintf("%s c2 sends #%d SET lock %s NX PX %s to %s", sim.FormatTime(s.w.Now()), s.req, check.ElementName(v), ttl, name)
}

func (s *clientScript) crash(c *script.Case) string {
	s.w.CrashNarrated(s.node(c, c.Word(0, "node")), c.Has("power-loss"))
	return s.flush()
}

func (s *clientScript) restart(c *script.Case) string {
	s.w.RestartNarrated(s.node(c, c.Word(0, "node")))
	return s.flush()
}

func (s *clientScript) runUntil(c *script.Case) string {
	runUntil(c, s.w)
	return s.flush()
}

// runUntil runs w to the time the case's run-until names, which may not
// be in the past.
func runUntil(c *script.Case, w *actortest.World) {
	t := c.Dur(c.Word(0, "time"))
	if t < w.Now() {
		c.Fatalf("run-until %v: the world is already at %v", t, w.Now())
	}
	w.Run(t)
}

func (s *clientScript) build(c *script.Case) string {
	var spec clocks.Spec // c1's clocks
	n, ttl, lat, retries, critical, start := 5, 10*time.Second, time.Millisecond, 0, 100*time.Millisecond, time.Second
	for _, a := range c.Args {
		var err error
		switch a.Key {
		case "nodes":
			n, err = strconv.Atoi(a.Val)
		case "retries":
			retries, err = strconv.Atoi(a.Val)
		case "ttl":
			ttl = c.Dur(a.Val)
		case "latency":
			lat = c.Dur(a.Val)
		case "critical":
			critical = c.Dur(a.Val)
		case "start":
			start = c.Dur(a.Val)
		case "clock-step":
			at, by := c.AtBy(a.Val)
			spec.Steps = append(spec.Steps, clocks.Step{At: at, By: by})
		default:
			c.Fatalf("unknown option %q (valid: nodes= ttl= latency= retries= critical= start= clock-step=)", a.Key)
		}
		if err != nil || n < 1 || n > 9 || retries < 0 {
			c.Fatalf("%s=%s: want a number (nodes 1..9, retries >= 0)", a.Key, a.Val)
		}
	}
	s.w = actortest.New(s.t, 1, true)
	s.w.Net().SetDefaultLatency(network.Constant(lat))
	s.nodes = map[string]*actortest.Proc{}
	var names []string
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("n%d", i)
		names = append(names, name)
		s.nodes[name] = s.w.Add(name, redis.New(redis.Config{}), clocks.Spec{})
	}
	s.w.Add("resource", resource.New(resource.Config{Mode: resource.Unprotected}), clocks.Spec{})
	lock, err := client.Preset("node-redlock", ttl)
	if err != nil {
		c.Fatalf("%v", err)
	}
	lock.Retries, lock.RetryJitter, lock.RetryDelay = retries, 0, 200*time.Millisecond
	cfg := client.Config{ID: 1, Name: "c1", StartIn: start, Lock: lock, Nodes: names, Resource: "resource",
		Work: client.WorkConfig{CriticalSection: critical, Think: time.Hour, Iterations: 1, RequestTimeout: time.Second, Tokens: client.NoToken}}
	if err := cfg.Lock.Validate(); err != nil {
		c.Fatalf("%v", err)
	}
	s.c1 = s.w.Add("c1", &spy{a: client.New(cfg), s: s}, spec)
	s.w.NarrateClockSteps("c1", spec)
	s.c2 = s.w.AddProbe("c2")
	s.w.Start()
	return fmt.Sprintf("%s\nc1: redlock on %s, ttl %v, drift %v, quorum %d, %d retries, starts at %v",
		strings.TrimSpace(s.flush()), strings.Join(names, ","), ttl, lock.Drift(), lock.QuorumOf(n), retries, start)
}

func (s *clientScript) node(c *script.Case, name string) *actortest.Proc {
	p, ok := s.nodes[name]
	if !ok {
		c.Fatalf("no node %q (nodes are n1..n%d)", name, len(s.nodes))
	}
	return p
}

// flush prints the trace records and c2's replies since the last flush.
func (s *clientScript) flush() string {
	var b strings.Builder
	recs := s.w.Kernel().Trace().Records()
	got := s.c2.Received()
	g := s.seen
	for _, r := range recs[s.records:] {
		for ; g < len(got) && got[g].At < r.At; g++ {
			fmt.Fprintf(&b, "%s c2 gets #%d %s\n", sim.FormatTime(got[g].At), got[g].Req, setReply(got[g].Msg))
		}
		b.WriteString(sim.FormatTime(r.At) + " " + s.line(r) + "\n")
	}
	for ; g < len(got); g++ {
		fmt.Fprintf(&b, "%s c2 gets #%d %s\n", sim.FormatTime(got[g].At), got[g].Req, setReply(got[g].Msg))
	}
	s.records, s.seen = len(recs), len(got)
	if b.Len() == 0 {
		return sim.FormatTime(s.w.Now()) + " (nothing happened)"
	}
	return b.String()
}

func (s *clientScript) line(r sim.Record) string {
	switch r.Kind {
	case spySent, spyGot:
		peer, _ := r.Get("peer")
		i, _ := r.Get("msg")
		k, _ := strconv.Atoi(i)
		arrow := "→"
		if r.Kind == spyGot {
			arrow = "←"
		}
		return fmt.Sprintf("%s %s %s %s", r.Actor, arrow, peer, describe(s.msgs[k]))
	}
	return r.Actor + " " + story.Sentence(r)
}

func setReply(m proto.Msg) string {
	if m.OK {
		return "OK"
	}
	return "(nil)"
}

// describe prints a message between c1 and a node or the resource.
func describe(m proto.Msg) string {
	switch m.Kind {
	case proto.SetNX:
		return fmt.Sprintf("SET %s %s NX PX %v", m.Key, check.ElementName(m.Value), m.TTL)
	case proto.CompareDel:
		return fmt.Sprintf("EVAL release %s %s", m.Key, check.ElementName(m.Value))
	case proto.CompareExtend:
		return fmt.Sprintf("EVAL extend %s %s %v", m.Key, check.ElementName(m.Value), m.TTL)
	case proto.Reply:
		if m.Err != proto.OK {
			return "(error) " + m.Err.String()
		}
		return fmt.Sprintf("reply ok=%v int=%d", m.OK, m.Int)
	case proto.ResourceRead:
		return "READ"
	case proto.ResourceWrite:
		return fmt.Sprintf("WRITE %s on version %d", check.ElementName(m.Value), m.Int)
	case proto.ResourceReply:
		return fmt.Sprintf("reply ok=%v version=%d", m.OK, m.Int)
	}
	return m.Kind.String()
}

// spy wraps c1: every message it sends or receives becomes a trace record,
// so the script shows the round's requests, not only what the nodes did.
type spy struct {
	a proto.Actor
	s *clientScript
}

type spyEnv struct {
	proto.Env
	s *clientScript
}

func (e spyEnv) Send(to network.Endpoint, m proto.Msg) {
	e.s.note(spySent, e.NameOf(to), m)
	e.Env.Send(to, m)
}

func (s *clientScript) note(kind, peer string, m proto.Msg) {
	s.msgs = append(s.msgs, m)
	s.w.Kernel().Record("c1", kind, sim.F("peer", peer), sim.F("msg", len(s.msgs)-1))
}

func (p *spy) Start(env proto.Env) { p.a.Start(spyEnv{env, p.s}) }
func (p *spy) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	p.s.note(spyGot, env.NameOf(from), m)
	p.a.Handle(spyEnv{env, p.s}, from, m)
}
func (p *spy) OnTimer(env proto.Env, tag uint64) { p.a.OnTimer(spyEnv{env, p.s}, tag) }
