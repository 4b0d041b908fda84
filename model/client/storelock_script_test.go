package client_test

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/consensus"
	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/internal/script"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// TestStoreScripts runs the step scripts in testdata/store/*.txt: the
// locks on the consensus store (their client and the store's side of
// them), with clients c1..cN against the store and a resource, driven
// through actortest. Commands:
//
//	world alg=NAME [clients=N] [critical=D] [fencing] [stagger=D] [clock-rate=NAME:PPM]... [clock-step=NAME:AT:BY]... [OPTION=D]...
//	                          build the world: N clients (default 2) start at
//	                          1s, 1s + stagger, ... (default 10ms), on their own
//	                          clocks, each for one critical section
//	                          (default 1s) on an unprotected resource (fencing:
//	                          one that checks the store's tokens); options set
//	                          the algorithm's own times: session= tick=
//	                          policy= (zookeeper), lease= renew= retry=
//	                          (k8s-lease), ttl= delay= (consul), lease=
//	                          heartbeat= (dynamodb); one-way latency 1ms
//	pause NAME D              client NAME, or the store, stops for D from
//	                          now: what reaches it meanwhile, and its timers
//	                          that come due, wait, as in a GC pause
//	cut A B                   messages between A and B are dropped both ways
//	heal                      remove every cut
//	run-until T               run to true time T and print every record since
//	                          the last command in model/story's words
func TestStoreScripts(t *testing.T) {
	script.Walk(t, "testdata/store", func(t *testing.T) script.Commands {
		s := &storeScript{t: t}
		return script.Commands{First: "world", Run: map[string]func(c *script.Case) string{
			"world": s.build, "pause": s.pause, "cut": s.cut, "heal": s.heal, "run-until": s.runUntil,
		}}
	})
}

type storeScript struct {
	t       *testing.T
	w       *actortest.World
	procs   map[string]*actortest.Proc
	paused  map[string]*pausable
	records int
}

// pausable holds back what reaches a paused client (or the store) and hands
// it over, in order, when the pause ends: the model World's GC pause, for
// actortest. As in the World, an actor with a Wake method (the store's
// session tracker) runs it first, and cancelling a timer that came due
// during the pause drops it from what is held.
type pausable struct {
	a      proto.Actor
	until  time.Duration
	w      *actortest.World
	env    heldEnv
	queued []held
	tags   map[proto.TimerID]uint64 // every timer the actor set: ids are looked up, never ranged
}

// held is a message or timer that came during a pause.
type held struct {
	f         func()
	timer     bool
	tag       uint64
	cancelled bool
}

// heldEnv is the actor's Env, which knows the tags of its timers, so that
// a timer held by the pause can be cancelled (by its tag: the store has one
// timer of a tag pending at a time).
type heldEnv struct {
	proto.Env
	p *pausable
}

func (e heldEnv) SetTimer(c proto.Clock, deadline time.Duration, tag uint64) proto.TimerID {
	id := e.Env.SetTimer(c, deadline, tag)
	e.p.tags[id] = tag
	return id
}

func (e heldEnv) After(d time.Duration, tag uint64) proto.TimerID {
	id := e.Env.After(d, tag)
	e.p.tags[id] = tag
	return id
}

func (e heldEnv) Cancel(id proto.TimerID) bool {
	if e.Env.Cancel(id) {
		return true
	}
	tag, ok := e.p.tags[id]
	if !ok {
		return false
	}
	delete(e.p.tags, id)
	for i := range e.p.queued {
		if q := &e.p.queued[i]; q.timer && !q.cancelled && q.tag == tag {
			q.cancelled = true
			return true
		}
	}
	return false
}

func (p *pausable) Start(env proto.Env) {
	p.env, p.tags = heldEnv{Env: env, p: p}, map[proto.TimerID]uint64{}
	p.a.Start(p.env)
}

func (p *pausable) Handle(_ proto.Env, from network.Endpoint, m proto.Msg) {
	if p.w.Now() < p.until {
		p.queued = append(p.queued, held{f: func() { p.a.Handle(p.env, from, m) }})
		return
	}
	p.a.Handle(p.env, from, m)
}

func (p *pausable) OnTimer(_ proto.Env, tag uint64) {
	if p.w.Now() < p.until {
		p.queued = append(p.queued, held{f: func() { p.a.OnTimer(p.env, tag) }, timer: true, tag: tag})
		return
	}
	p.a.OnTimer(p.env, tag)
}

func (p *pausable) wake() {
	if wk, ok := p.a.(interface{ Wake(proto.Env) }); ok {
		wk.Wake(p.env)
	}
	for i := 0; i < len(p.queued); i++ {
		if q := p.queued[i]; !q.cancelled {
			q.f()
		}
	}
	p.queued = nil
}

func (s *storeScript) build(c *script.Case) string {
	alg := client.Lease
	n, critical, fencing, stagger := 2, time.Second, false, 10*time.Millisecond
	rates := map[string]float64{}
	steps := map[string][]clocks.Step{}
	var opts []script.Arg
	for _, a := range c.Args {
		switch a.Key {
		case "alg":
			var err error
			if alg, err = client.ParseAlgorithm(a.Val); err != nil {
				c.Fatalf("%v", err)
			}
		case "clients":
			var err error
			if n, err = strconv.Atoi(a.Val); err != nil || n < 1 || n > 9 {
				c.Fatalf("clients=%s: want 1..9", a.Val)
			}
		case "critical":
			critical = c.Dur(a.Val)
		case "fencing":
			fencing = true
		case "stagger":
			stagger = c.Dur(a.Val)
		case "clock-step":
			name, atBy, ok := strings.Cut(a.Val, ":")
			if !ok {
				c.Fatalf("clock-step=%s: want NAME:AT:BY", a.Val)
			}
			at, by := c.AtBy(atBy)
			steps[name] = append(steps[name], clocks.Step{At: at, By: by})
		case "clock-rate":
			name, ppm, ok := strings.Cut(a.Val, ":")
			v, err := strconv.ParseFloat(ppm, 64)
			if !ok || err != nil {
				c.Fatalf("clock-rate=%s: want NAME:PPM", a.Val)
			}
			rates[name] = v
		default:
			opts = append(opts, a)
		}
	}
	lock := alg.Defaults(client.LockConfig{Key: "lock", RequestTimeout: 50 * time.Millisecond, ElapsedClock: proto.Mono,
		RetryDelay: 200 * time.Millisecond, Retries: 3, TTL: 2 * time.Second, KeepAlive: 2 * time.Second / 3})
	for _, a := range opts {
		switch a.Key {
		case "session", "lease", "ttl":
			lock.TTL = c.Dur(a.Val)
		case "tick":
			lock.Tick = c.Dur(a.Val)
		case "policy":
			p, err := client.ParseErrorPolicy(a.Val)
			if err != nil {
				c.Fatalf("%v", err)
			}
			lock.ErrorPolicy = p
		case "renew":
			lock.RenewDeadline = c.Dur(a.Val)
		case "retry", "heartbeat":
			lock.KeepAlive = c.Dur(a.Val)
		case "delay":
			lock.LockDelay = c.Dur(a.Val)
		default:
			c.Fatalf("unknown option %q (valid: alg= clients= critical= fencing stagger= clock-rate= clock-step= session= tick= policy= lease= renew= retry= ttl= delay= heartbeat=)", a.Key)
		}
	}
	if err := lock.Validate(); err != nil {
		c.Fatalf("%v", err)
	}
	s.w = actortest.New(s.t, 1, true)
	s.w.Net().SetDefaultLatency(network.Constant(time.Millisecond))
	s.procs, s.paused = map[string]*actortest.Proc{}, map[string]*pausable{}
	sc := consensus.Config{}
	if alg.Sessions() {
		sc.LeaseCheckEvery, sc.Sessions = lock.Tick, true
	}
	if alg.Takes("lock_delay") {
		sc.LockDelay = lock.LockDelay
	}
	store := &pausable{a: consensus.New(sc), w: s.w}
	s.paused["store"] = store
	s.procs["store"] = s.w.Add("store", store, clocks.Spec{RatePPM: rates["store"], Steps: steps["store"]})
	mode, tokens := resource.Unprotected, client.NoToken
	if fencing {
		mode, tokens = resource.Fencing, client.RevisionToken
	}
	s.procs["resource"] = s.w.Add("resource", resource.New(resource.Config{Mode: mode}), clocks.Spec{})
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("c%d", i)
		cfg := client.Config{ID: i, Name: name, StartIn: time.Second + time.Duration(i-1)*stagger, Lock: lock,
			Store: "store", Resource: "resource",
			Work: client.WorkConfig{CriticalSection: critical, Think: time.Hour, Iterations: 1, RequestTimeout: time.Second, Tokens: tokens}}
		p := &pausable{a: client.New(cfg), w: s.w}
		s.paused[name] = p
		s.procs[name] = s.w.Add(name, p, clocks.Spec{RatePPM: rates[name], Steps: steps[name]})
	}
	for _, name := range slices.Sorted(maps.Keys(steps)) {
		s.w.NarrateClockSteps(name, clocks.Spec{Steps: steps[name]})
	}
	s.w.Start()
	return fmt.Sprintf("%s: %s; %d clients, critical section %v, resource %v", alg, describeLock(lock), n, critical, mode)
}

// describeLock names the algorithm's own times.
func describeLock(l client.LockConfig) string {
	switch l.Algorithm {
	case client.ZooKeeper:
		return fmt.Sprintf("session timeout %v, tick %v, error policy %v", l.TTL, l.Tick, l.ErrorPolicy)
	case client.K8sLease:
		return fmt.Sprintf("lease duration %v, renew deadline %v, retry period %v", l.TTL, l.RenewDeadline, l.KeepAlive)
	case client.Consul:
		return fmt.Sprintf("session ttl %v, lock delay %v", l.TTL, l.LockDelay)
	case client.DynamoDB:
		return fmt.Sprintf("lease duration %v, heartbeat period %v", l.TTL, l.KeepAlive)
	}
	return fmt.Sprintf("ttl %v", l.TTL)
}

func (s *storeScript) proc(c *script.Case, name string) *actortest.Proc {
	p, ok := s.procs[name]
	if !ok {
		c.Fatalf("no process %q", name)
	}
	return p
}

func (s *storeScript) pause(c *script.Case) string {
	name := c.Word(0, "process")
	p, ok := s.paused[name]
	if !ok {
		c.Fatalf("no client or store %q", name)
	}
	d := c.Dur(c.Word(1, "length"))
	p.until = s.w.Now() + d
	s.w.At(p.until, p.wake)
	s.w.Kernel().Record(name, story.Pauses, sim.F("why", "GC"), sim.F("for", d))
	return s.flush()
}

func (s *storeScript) cut(c *script.Case) string {
	a, b := s.proc(c, c.Word(0, "endpoint")).Self(), s.proc(c, c.Word(1, "endpoint")).Self()
	s.w.Net().Apply(network.Cut([]network.Endpoint{a}, []network.Endpoint{b}))
	s.w.Net().Apply(network.Cut([]network.Endpoint{b}, []network.Endpoint{a}))
	return fmt.Sprintf("%s cut %s from %s, both ways", sim.FormatTime(s.w.Now()), c.Word(0, ""), c.Word(1, ""))
}

func (s *storeScript) heal(*script.Case) string {
	s.w.Net().Heal()
	return s.flush()
}

func (s *storeScript) runUntil(c *script.Case) string {
	runUntil(c, s.w)
	return s.flush()
}

// flush prints the records since the last flush.
func (s *storeScript) flush() string {
	var b strings.Builder
	recs := s.w.Kernel().Trace().Records()
	for _, r := range recs[s.records:] {
		line := story.Sentence(r)
		if line == "" {
			continue // a keep-alive: noise
		}
		b.WriteString(sim.FormatTime(r.At) + " " + r.Actor + " " + line + "\n")
	}
	s.records = len(recs)
	if b.Len() == 0 {
		return sim.FormatTime(s.w.Now()) + " (nothing happened)"
	}
	return b.String()
}
