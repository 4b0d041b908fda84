package sentinel

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
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
	c.DownAfter = cmp.Or(c.DownAfter, DefaultDownAfter)
	c.PingEvery = cmp.Or(c.PingEvery, DefaultPingEvery)
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
	tagInfo
)

type watched struct {
	name     string
	ep       network.Endpoint
	lastPong time.Duration // monotonic
	answered bool          // has answered since the sentinel started
	// pending is whether a ping is unanswered, and pendingSince when the
	// oldest unanswered one was sent: Sentinel's act_ping_time, from which
	// it counts down-after (sentinel.c 7.0.15, sentinelSendPing and
	// sentinelCheckSubjectivelyDown, lines 3104 and 4426).
	pending      bool
	pendingSince time.Duration
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

	// promoting is the replica told to become master whose INFO has not
	// yet reported it (-1: none), failed the master it replaces; infoReq
	// is the first ping whose Pong counts as that INFO (0: none sent yet).
	promoting, failed int
	infoReq           uint64
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
	return &Sentinel{cfg: cfg, promoting: -1}
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
		// A new link's act_ping_time is its creation (createInstanceLink,
		// sentinel.c line 1033): down-after counts from the start.
		nd := &s.nodes[i]
		nd.lastPong, nd.answered, nd.pending, nd.pendingSince = now, false, true, now
	}
	s.stuck = false
	s.nextPing = now
	s.ping(env)
	env.SetTimer(proto.Mono, now+s.cfg.DownAfter, tagDown)
	if s.promoting >= 0 {
		env.SetTimer(proto.Mono, now+s.cfg.PingEvery, tagInfo)
	}
}

// Crash implements a process crash: only the current master (which the real
// Sentinel keeps in its rewritten configuration file) survives.
func (s *Sentinel) Crash(bool) {}

// Handle implements proto.Actor. Only Pong matters: it records that the
// node is alive; during a failover it is the INFO that may show the
// promoted replica a master, and otherwise it corrects the node's role if
// that disagrees with the sentinel's view (a demoted master that came
// back, a lost REPLICAOF).
func (s *Sentinel) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	if m.Kind != proto.Pong {
		return
	}
	i := s.index(from)
	if i < 0 {
		return
	}
	nd := &s.nodes[i]
	nd.lastPong, nd.answered, nd.pending = env.Read(proto.Mono), true, false
	if s.promoting >= 0 {
		// Sentinel reconfigures nothing while its failover waits for the
		// promotion (sentinelRefreshInstanceInfo acts on roles only with
		// no failover in progress).
		if i == s.promoting && m.Int < 0 && s.infoReq != 0 && m.Req >= s.infoReq {
			s.switchMaster(env)
		}
		return
	}
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
	case tagInfo:
		s.info(env)
	}
}

func (s *Sentinel) ping(env proto.Env) {
	now := env.Read(proto.Mono)
	for i := range s.nodes {
		nd := &s.nodes[i]
		if !nd.pending {
			nd.pending, nd.pendingSince = true, now
		}
		s.seq++
		env.Send(nd.ep, proto.Msg{Kind: proto.Ping, Req: s.seq})
	}
	s.nextPing += s.cfg.PingEvery
	env.SetTimer(proto.Mono, s.nextPing, tagPing)
}

// info asks the replica being promoted for its role, as Sentinel's INFO
// does every second to the replicas of a master being failed over
// (sentinelSendPeriodicCommands, sentinel.c line 3139), until one reply
// shows it a master.
func (s *Sentinel) info(env proto.Env) {
	if s.promoting < 0 {
		return
	}
	s.seq++
	if s.infoReq == 0 {
		s.infoReq = s.seq
	}
	env.Send(s.nodes[s.promoting].ep, proto.Msg{Kind: proto.Ping, Req: s.seq})
	env.SetTimer(proto.Mono, env.Read(proto.Mono)+s.cfg.PingEvery, tagInfo)
}

// checkDown fires when the master's oldest unanswered ping may be
// DownAfter old. It re-arms itself for the moment it would be (or, with
// no ping unanswered, for DownAfter after the next ping), so a Pong costs
// no timer.
func (s *Sentinel) checkDown(env proto.Env) {
	now := env.Read(proto.Mono)
	m := &s.nodes[s.master]
	if !m.pending || now-m.pendingSince < s.cfg.DownAfter {
		s.stuck = false
		at := s.nextPing + s.cfg.DownAfter
		if m.pending {
			at = m.pendingSince + s.cfg.DownAfter
		}
		env.SetTimer(proto.Mono, at, tagDown)
		return
	}
	if !s.failover(env, now) {
		env.SetTimer(proto.Mono, now+s.cfg.PingEvery, tagDown)
		return
	}
	env.SetTimer(proto.Mono, now+s.cfg.DownAfter, tagDown)
}

// failover tells the first replica, in configuration order, that answered
// within ReplicaValidity ping periods to become master, and reports
// whether there was one. The clients and the other replicas are told only
// once an INFO shows it a master (switchMaster).
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
			story.Trace(env, story.DeclareMasterDown{Master: s.nodes[old].name, DownAfter: story.Text(s.cfg.DownAfter), Promoting: "none"})
		}
		s.stuck = true
		return false
	}
	s.stuck = false
	if env.Tracing() {
		story.Trace(env, story.DeclareMasterDown{Master: s.nodes[old].name, DownAfter: story.Text(s.cfg.DownAfter), Promoting: s.nodes[pick].name})
	}
	s.master, s.promoting, s.failed, s.infoReq = pick, pick, old, 0
	s.send(env, pick, -1)
	// Sentinel's INFO to the replicas comes every second once the master
	// is down; the one sent when it went down is answered before the
	// SLAVEOF NO ONE is (measured: +promoted-slave 1.04 s after +sdown).
	env.SetTimer(proto.Mono, now+s.cfg.PingEvery, tagInfo)
	return true
}

// switchMaster is the failover's end, once an INFO showed the promoted
// replica a master: Sentinel then points the other replicas at it, and its
// answer to get-master-addr-by-name, which the clients ask, becomes the
// new master (state reconf-slaves; sentinelRefreshInstanceInfo and
// sentinelGetCurrentMasterAddress, sentinel.c lines 2692 and 1666).
func (s *Sentinel) switchMaster(env proto.Env) {
	pick, old := s.promoting, s.failed
	s.promoting, s.infoReq = -1, 0
	ep := s.nodes[pick].ep
	if env.Tracing() {
		story.Trace(env, story.SwitchMasters{Master: s.nodes[pick].name})
	}
	for i := range s.nodes {
		// The old master is told when it answers again (Handle).
		if i != pick && i != old {
			s.send(env, i, int64(ep))
		}
	}
	for _, c := range s.clients {
		env.Send(c, proto.Msg{Kind: proto.MasterChanged, Int: int64(ep)})
	}
}

func (s *Sentinel) send(env proto.Env, i int, master int64) {
	if env.Tracing() {
		if master < 0 {
			story.Trace(env, story.TellPromote{Node: s.nodes[i].name})
		} else {
			story.Trace(env, story.Replicate{Node: s.nodes[i].name, Master: env.NameOf(network.Endpoint(master))})
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
