package sentinel

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// Defaults filled in by WithDefaults for zero fields.
const (
	DefaultDownAfter = 30 * time.Second // down-after-milliseconds 30000
	DefaultPingEvery = time.Second      // Sentinel pings each instance once a second
)

// ReplicaValidity is how many ping periods a replica may have been silent
// and still be promoted (Sentinel skips replicas whose last reply is older
// than five ping periods).
const ReplicaValidity = 5

// Config is the sentinel's view of one replicated Redis deployment.
type Config struct {
	Master   string   // the initial master
	Replicas []string // the initial replicas, in promotion order
	Clients  []string // told of every new master
	// DownAfter is how long the master may leave pings unanswered before
	// it is deemed down (default 30s), on the sentinel's monotonic clock.
	DownAfter time.Duration
	// PingEvery is the ping period (default 1s).
	PingEvery time.Duration
}

// WithDefaults returns c with zero durations set to their defaults.
func (c Config) WithDefaults() Config {
	if c.DownAfter == 0 {
		c.DownAfter = DefaultDownAfter
	}
	if c.PingEvery == 0 {
		c.PingEvery = DefaultPingEvery
	}
	return c
}

// Validate reports every problem that would make New panic.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Master == "" {
		bad("sentinel: master must be named")
	}
	seen := map[string]bool{c.Master: true}
	for i, r := range c.Replicas {
		if r == "" || seen[r] {
			bad("sentinel: replicas[%d]: %q is empty or named twice", i, r)
		}
		seen[r] = true
	}
	if c.DownAfter < 0 {
		bad("sentinel: down_after: must be positive, got %v", c.DownAfter)
	}
	if c.PingEvery < 0 {
		bad("sentinel: ping_every: must be positive, got %v", c.PingEvery)
	}
	return errors.Join(errs...)
}

const (
	tagPing uint64 = 1 + iota
	tagDown
)

type watched struct {
	name     string
	ep       network.Endpoint
	lastPong time.Duration // monotonic
	answered bool          // has answered since the sentinel started
}

// Sentinel is a single Redis Sentinel: it detects a silent master and
// promotes a replica. Create one with New; it implements proto.Actor.
type Sentinel struct {
	cfg     Config
	nodes   []watched // the master of the configuration first, then the replicas
	clients []network.Endpoint
	master  int // index in nodes of the current master
	started bool

	seq      uint64
	nextPing time.Duration
	stuck    bool // the master is down and no replica can be promoted
}

// New returns a sentinel for cfg (after WithDefaults). An invalid
// configuration panics: validate scenario input first.
func New(cfg Config) *Sentinel {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	cfg.Replicas = slices.Clone(cfg.Replicas)
	cfg.Clients = slices.Clone(cfg.Clients)
	return &Sentinel{cfg: cfg}
}

// Start implements proto.Actor: resolve the names and start pinging. The
// down-after period of every instance counts from the start.
func (s *Sentinel) Start(env proto.Env) {
	if !s.started {
		s.started = true
		lookup := func(name string) network.Endpoint {
			ep, ok := env.Lookup(name)
			if !ok {
				panic(fmt.Sprintf("sentinel: no endpoint is called %q", name))
			}
			return ep
		}
		for _, name := range append([]string{s.cfg.Master}, s.cfg.Replicas...) {
			s.nodes = append(s.nodes, watched{name: name, ep: lookup(name)})
		}
		for _, name := range s.cfg.Clients {
			s.clients = append(s.clients, lookup(name))
		}
	}
	now := env.Read(proto.Mono)
	for i := range s.nodes {
		s.nodes[i].lastPong, s.nodes[i].answered = now, false
	}
	s.stuck = false
	s.nextPing = now
	s.ping(env)
	env.SetTimer(proto.Mono, now+s.cfg.DownAfter, tagDown)
}

// Crash implements a process crash: only the current master (which the real
// Sentinel keeps in its rewritten configuration file) survives.
func (s *Sentinel) Crash(bool) {}

// Handle implements proto.Actor. Only Pong matters: it records that the
// node is alive and corrects its role if it disagrees with the sentinel's
// view (a demoted master that came back, a lost REPLICAOF).
func (s *Sentinel) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	if m.Kind != proto.Pong {
		return
	}
	i := s.index(from)
	if i < 0 {
		return
	}
	nd := &s.nodes[i]
	nd.lastPong, nd.answered = env.Read(proto.Mono), true
	master := s.nodes[s.master].ep
	switch {
	case i == s.master && m.Int >= 0:
		s.send(env, i, -1)
	case i != s.master && m.Int != int64(master):
		s.send(env, i, int64(master))
	}
}

// OnTimer implements proto.Actor.
func (s *Sentinel) OnTimer(env proto.Env, tag uint64) {
	switch tag {
	case tagPing:
		s.ping(env)
	case tagDown:
		s.checkDown(env)
	}
}

func (s *Sentinel) ping(env proto.Env) {
	for _, nd := range s.nodes {
		s.seq++
		env.Send(nd.ep, proto.Msg{Kind: proto.Ping, Req: s.seq})
	}
	s.nextPing += s.cfg.PingEvery
	env.SetTimer(proto.Mono, s.nextPing, tagPing)
}

// checkDown fires when the master may have been silent for DownAfter. It
// re-arms itself for the moment the master's silence would reach
// DownAfter, so a Pong costs no timer.
func (s *Sentinel) checkDown(env proto.Env) {
	now := env.Read(proto.Mono)
	m := &s.nodes[s.master]
	if silent := now - m.lastPong; silent < s.cfg.DownAfter {
		s.stuck = false
		env.SetTimer(proto.Mono, m.lastPong+s.cfg.DownAfter, tagDown)
		return
	}
	if !s.failover(env, now) {
		env.SetTimer(proto.Mono, now+s.cfg.PingEvery, tagDown)
		return
	}
	env.SetTimer(proto.Mono, now+s.cfg.DownAfter, tagDown)
}

// failover promotes the first replica, in configuration order, that
// answered within ReplicaValidity ping periods, and reports whether there
// was one.
func (s *Sentinel) failover(env proto.Env, now time.Duration) bool {
	old := s.master
	pick := -1
	for i, nd := range s.nodes {
		if i != old && nd.answered && now-nd.lastPong <= ReplicaValidity*s.cfg.PingEvery {
			pick = i
			break
		}
	}
	if pick < 0 {
		if !s.stuck && env.Tracing() {
			env.Trace(story.MasterDown, sim.F("master", s.nodes[old].name), sim.F("down_after", s.cfg.DownAfter), sim.F("promoting", "none"))
		}
		s.stuck = true
		return false
	}
	s.stuck = false
	if env.Tracing() {
		env.Trace(story.MasterDown, sim.F("master", s.nodes[old].name), sim.F("down_after", s.cfg.DownAfter), sim.F("promoting", s.nodes[pick].name))
	}
	s.master = pick
	ep := s.nodes[pick].ep
	s.send(env, pick, -1)
	for i := range s.nodes {
		// The old master is told when it answers again (Handle).
		if i != pick && i != old {
			s.send(env, i, int64(ep))
		}
	}
	for _, c := range s.clients {
		env.Send(c, proto.Msg{Kind: proto.MasterChanged, Int: int64(ep)})
	}
	return true
}

func (s *Sentinel) send(env proto.Env, i int, master int64) {
	if env.Tracing() {
		if master < 0 {
			env.Trace(story.Promote, sim.F("node", s.nodes[i].name))
		} else {
			env.Trace(story.ReplicaOf, sim.F("node", s.nodes[i].name), sim.F("master", env.NameOf(network.Endpoint(master))))
		}
	}
	env.Send(s.nodes[i].ep, proto.Msg{Kind: proto.ReplicaOf, Int: master})
}

func (s *Sentinel) index(ep network.Endpoint) int {
	for i := range s.nodes {
		if s.nodes[i].ep == ep {
			return i
		}
	}
	return -1
}

// Master is the node the sentinel currently considers the master.
func (s *Sentinel) Master() string {
	if len(s.nodes) == 0 {
		return s.cfg.Master
	}
	return s.nodes[s.master].name
}
