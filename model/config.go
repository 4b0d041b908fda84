package model

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/network"
)

// Config is a typed description of one world. Scenario files fill it; tests
// build it in Go. Names are unique across nodes, clients and the fixed
// endpoints "resource", "store" and "sentinel".
type Config struct {
	Name     string
	Duration time.Duration // virtual time to run
	Lock     client.LockConfig
	Work     client.WorkConfig
	Nodes    []NodeConfig
	Clients  []ClientConfig
	Resource ResourceConfig
	Store    StoreConfig    // used by the lease lock
	Sentinel SentinelConfig // used by the failover lock
	Network  NetworkConfig
	Faults   []Fault
}

// NodeConfig is one Redis node.
type NodeConfig struct {
	Name         string
	Clock        clocks.Spec
	RateSpread   float64 // ppm; the clock's rate error gets a uniform draw in ±RateSpread added, from the run seed
	Redis        redis.Config
	RestartDelay time.Duration // scenario files' default for a crash fault's For; the world reads only Fault.For
}

// ClientConfig is one client.
type ClientConfig struct {
	Name       string
	Clock      clocks.Spec
	RateSpread float64       // ppm, as NodeConfig.RateSpread
	StartIn    time.Duration // on its monotonic clock, before the first attempt
	Pauses     PauseConfig
}

// PauseConfig describes random stop-the-world pauses: Poisson arrivals with
// mean interval Every, lengths drawn from Length. Every = 0 means none.
type PauseConfig struct {
	Every  time.Duration
	Length network.Latency
}

// ResourceConfig is the protected resource.
type ResourceConfig struct {
	Mode        resource.Mode
	ServiceTime time.Duration
	TokenStart  int64 // initial value of the INCR fencing counter
}

// StoreConfig is the consensus store of the lease lock.
type StoreConfig struct {
	Clock       clocks.Spec
	ServiceTime time.Duration
}

// SentinelConfig is the failover detector of the failover lock.
type SentinelConfig struct {
	DownAfter time.Duration
	PingEvery time.Duration
}

// NetworkConfig is the default link behaviour and per-link overrides.
type NetworkConfig struct {
	Latency network.Latency
	Loss    float64
	Links   []LinkConfig
}

// LinkConfig overrides one directed link. A zero Latency (Kind unset) keeps
// the default latency; a nil Loss keeps the default loss.
type LinkConfig struct {
	From, To string
	Latency  network.Latency
	Loss     *float64
}

// FaultKind is what a fault does. The zero value is invalid.
type FaultKind uint8

const (
	_         FaultKind = iota
	Crash               // process crash of Target (what was written to the OS survives); restart after For unless NoRestart
	PowerLoss           // power loss of Target (only what was fsynced survives); restart as Crash
	Pause               // stop-the-world pause of Target for For
	ClockStep           // Target's wall clock jumps by By
	ClockRate           // Target's clock rate error becomes PPM
	ClockSlew           // Target's wall clock is slewed by By at most MaxPPM
	Partition           // cut the network as Partition says
	Heal                // remove every cut
	Spike               // messages sent from Target (or all if empty) to To (or all) during For get By extra delay
	Loss                // from At on, the default loss probability becomes Prob
	Election            // the consensus store has no leader for For
	Cut                 // one-way cut: messages from Target to To are dropped until Heal
	maxFaultKind
)

var faultNames = [...]string{"", "crash", "power-loss", "pause", "clock-step", "clock-rate", "clock-slew", "partition", "heal", "spike", "loss", "election", "cut"}

func (k FaultKind) String() string {
	if k > 0 && k < maxFaultKind {
		return faultNames[k]
	}
	return fmt.Sprintf("FaultKind(%d)", k)
}

// FaultKinds lists the valid names.
func FaultKinds() []string { return append([]string(nil), faultNames[1:]...) }

// ParseFaultKind is the inverse of String.
func ParseFaultKind(s string) (FaultKind, error) {
	for i, n := range faultNames {
		if i > 0 && n == s {
			return FaultKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown fault kind %q (valid: %s)", s, strings.Join(faultNames[1:], ", "))
}

// Fault is one fault applied at a true time.
type Fault struct {
	At        time.Duration
	Kind      FaultKind
	Target    string
	To        string
	For       time.Duration
	NoRestart bool
	By        time.Duration
	PPM       float64
	MaxPPM    float64
	Partition network.PartitionKind
	Groups    [][]string // explicit groups; for the other kinds, the endpoints partitioned (default: the nodes)
	Prob      float64
}

// Validate checks the whole configuration, across keys too.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Duration <= 0 {
		bad("duration: must be positive, got %v", c.Duration)
	}
	if err := c.Lock.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Work.Validate(); err != nil {
		errs = append(errs, err)
	}
	// The fixed endpoints exist only in the worlds that use them; a name
	// is reserved either way, so that a scenario reads the same whatever
	// its algorithm.
	names := map[string]string{"resource": "the resource"}
	reserved := map[string]string{"store": "the store", "sentinel": "the sentinel"}
	if c.Lock.Algorithm == client.Lease {
		names["store"] = reserved["store"]
	}
	if c.Lock.Algorithm == client.Failover {
		names["sentinel"] = reserved["sentinel"]
	}
	addName := func(what, n string) {
		if n == "" {
			bad("%s: name must not be empty", what)
			return
		}
		if prev, dup := names[n]; dup {
			bad("%s: name %q is already used by %s", what, n, prev)
			return
		}
		if prev, dup := reserved[n]; dup {
			bad("%s: name %q is reserved for %s", what, n, prev)
			return
		}
		names[n] = what
	}
	for i, n := range c.Nodes {
		addName(fmt.Sprintf("nodes[%d]", i), n.Name)
		if err := n.Clock.Validate(); err != nil {
			bad("nodes[%d] (%s).clock: %w", i, n.Name, err)
		}
		if err := n.Redis.Validate(); err != nil {
			bad("nodes[%d] (%s): %w", i, n.Name, err)
		}
		if n.RateSpread < 0 || n.RateSpread > 100000 {
			bad("nodes[%d] (%s).clock.rate_spread_ppm: must be in [0, 100000], got %v", i, n.Name, n.RateSpread)
		}
		if n.RestartDelay < 0 {
			bad("nodes[%d] (%s).restart_delay: must not be negative", i, n.Name)
		}
		if n.Redis.ReplicaOf != "" && !c.hasNode(n.Redis.ReplicaOf) {
			bad("nodes[%d] (%s).replica_of: no node is called %q", i, n.Name, n.Redis.ReplicaOf)
		}
	}
	if len(c.Clients) == 0 {
		bad("clients: need at least one client")
	}
	for i, cl := range c.Clients {
		addName(fmt.Sprintf("clients[%d]", i), cl.Name)
		if err := cl.Clock.Validate(); err != nil {
			bad("clients[%d] (%s).clock: %w", i, cl.Name, err)
		}
		if cl.RateSpread < 0 || cl.RateSpread > 100000 {
			bad("clients[%d] (%s).clock.rate_spread_ppm: must be in [0, 100000], got %v", i, cl.Name, cl.RateSpread)
		}
		if cl.StartIn < 0 {
			bad("clients[%d] (%s).start: must not be negative", i, cl.Name)
		}
		if cl.Pauses.Every < 0 {
			bad("clients[%d] (%s).pauses.every: must not be negative", i, cl.Name)
		}
		if cl.Pauses.Every > 0 {
			if err := cl.Pauses.Length.Validate(); err != nil {
				bad("clients[%d] (%s).pauses.length: %w", i, cl.Name, err)
			}
		}
	}
	switch c.Lock.Algorithm {
	case client.Redlock:
		if len(c.Nodes) == 0 {
			bad("nodes: redlock needs at least one node")
		} else if q := c.Lock.QuorumOf(len(c.Nodes)); q > len(c.Nodes) {
			bad("lock.quorum: %d can never be reached with %d nodes", q, len(c.Nodes))
		}
	case client.Single, client.Failover:
		if len(c.Nodes) == 0 {
			bad("nodes: the %v lock needs a node", c.Lock.Algorithm)
		}
	case client.Lease:
		if err := c.Store.Clock.Validate(); err != nil {
			bad("store.clock: %w", err)
		}
	}
	if c.Lock.Algorithm == client.Failover {
		if c.Sentinel.DownAfter <= 0 {
			bad("sentinel.down_after: must be positive, got %v", c.Sentinel.DownAfter)
		}
		if c.Sentinel.PingEvery <= 0 || c.Sentinel.PingEvery > c.Sentinel.DownAfter {
			bad("sentinel.ping_every: must be positive and at most down_after, got %v", c.Sentinel.PingEvery)
		}
	}
	if c.Lock.WaitReplicas > 0 && c.Lock.Algorithm != client.Failover {
		bad("lock.wait_replicas: only the failover lock waits for replicas")
	}
	if c.Lock.WaitReplicas > len(c.Nodes)-1 && c.Lock.Algorithm == client.Failover {
		bad("lock.wait_replicas: %d replicas can never acknowledge with %d nodes", c.Lock.WaitReplicas, len(c.Nodes))
	}
	if c.Work.Tokens == client.IncrToken && !c.hasNode(c.Work.FenceNode) {
		bad("resource.token_node: no node is called %q", c.Work.FenceNode)
	}
	if c.Work.Tokens == client.RevisionToken && c.Lock.Algorithm != client.Lease {
		bad("resource.tokens: revision tokens come from the consensus store; use the lease lock or incr tokens")
	}
	if c.Resource.Mode == 0 {
		bad("resource.mode: must be set")
	}
	if c.Resource.Mode == resource.Fencing && c.Work.Tokens == client.NoToken {
		bad("resource.mode: fencing needs tokens (incr or revision)")
	}
	if err := c.Network.Latency.Validate(); err != nil {
		bad("network.latency: %w", err)
	}
	if c.Network.Loss < 0 || c.Network.Loss >= 1 {
		bad("network.loss: must be in [0, 1), got %v", c.Network.Loss)
	}
	for i, l := range c.Network.Links {
		for _, n := range []string{l.From, l.To} {
			if _, ok := names[n]; !ok {
				bad("network.links[%d]: no endpoint is called %q", i, n)
			}
		}
		if l.Latency.Kind != 0 {
			if err := l.Latency.Validate(); err != nil {
				bad("network.links[%d].latency: %w", i, err)
			}
		}
		if l.Loss != nil && (*l.Loss < 0 || *l.Loss >= 1) {
			bad("network.links[%d].loss: must be in [0, 1), got %v", i, *l.Loss)
		}
	}
	for i, f := range c.Faults {
		if err := c.validateFault(f, names); err != nil {
			bad("faults[%d] (%v at %v): %w", i, f.Kind, f.At, err)
		}
	}
	if len(errs) == 0 {
		// The clocks the world will build: each spec with its clock faults
		// folded in, at the extremes of its rate spread.
		check := func(what string, s clocks.Spec, name string, spread float64) {
			s = withClockFaults(c.Faults, name, s)
			for _, sign := range []float64{-1, 1} {
				t := s
				t.RatePPM += sign * spread
				if err := t.Validate(); err != nil {
					bad("%s.clock with its clock faults: %w", what, err)
					return
				}
			}
		}
		for i, n := range c.Nodes {
			check(fmt.Sprintf("nodes[%d] (%s)", i, n.Name), n.Clock, n.Name, n.RateSpread)
		}
		for i, cl := range c.Clients {
			check(fmt.Sprintf("clients[%d] (%s)", i, cl.Name), cl.Clock, cl.Name, cl.RateSpread)
		}
		if c.Lock.Algorithm == client.Lease {
			check("store", c.Store.Clock, "store", 0)
		}
	}
	return errors.Join(errs...)
}

func (c *Config) hasNode(name string) bool {
	for _, n := range c.Nodes {
		if n.Name == name {
			return true
		}
	}
	return false
}

func (c *Config) hasClient(name string) bool {
	for _, n := range c.Clients {
		if n.Name == name {
			return true
		}
	}
	return false
}

func (c *Config) validateFault(f Fault, names map[string]string) error {
	if f.At < 0 {
		return fmt.Errorf("at: must not be negative")
	}
	if f.At >= c.Duration {
		return fmt.Errorf("at: %v is not before the end of the run (%v)", f.At, c.Duration)
	}
	needTarget := func(ok func(string) bool, what string) error {
		if f.Target == "" {
			return fmt.Errorf("target: %s needs a target (%s)", f.Kind, what)
		}
		if !ok(f.Target) {
			return fmt.Errorf("target: no %s is called %q", what, f.Target)
		}
		return nil
	}
	isEndpoint := func(n string) bool { _, ok := names[n]; return ok }
	isProcess := func(n string) bool {
		return c.hasNode(n) || c.hasClient(n) || (n == "store" && c.Lock.Algorithm == client.Lease)
	}
	switch f.Kind {
	case Crash, PowerLoss:
		if err := needTarget(c.hasNode, "node"); err != nil {
			return err
		}
		if f.For < 0 {
			return fmt.Errorf("for: restart delay must not be negative")
		}
	case Pause:
		if err := needTarget(isProcess, "node, client or store"); err != nil {
			return err
		}
		if f.For <= 0 {
			return fmt.Errorf("for: a pause needs a positive length")
		}
	case ClockStep:
		if err := needTarget(isProcess, "node, client or store"); err != nil {
			return err
		}
		if f.By == 0 {
			return fmt.Errorf("by: a clock step of zero does nothing")
		}
	case ClockSlew:
		if err := needTarget(isProcess, "node, client or store"); err != nil {
			return err
		}
		if f.By == 0 {
			return fmt.Errorf("by: a clock slew of zero does nothing")
		}
	case ClockRate:
		if err := needTarget(isProcess, "node, client or store"); err != nil {
			return err
		}
	case Partition:
		if f.Partition == 0 {
			return fmt.Errorf("partition: must be set")
		}
		for _, g := range f.Groups {
			for _, n := range g {
				if !isEndpoint(n) {
					return fmt.Errorf("groups: no endpoint is called %q", n)
				}
			}
		}
		if f.Partition == network.PartitionIsolate {
			if err := needTarget(isEndpoint, "endpoint"); err != nil {
				return err
			}
		}
	case Cut:
		if !isEndpoint(f.Target) || !isEndpoint(f.To) {
			return fmt.Errorf("target and to: a cut needs two endpoints, got %q and %q", f.Target, f.To)
		}
	case Heal:
	case Spike:
		for _, n := range []string{f.Target, f.To} {
			if n != "" && !isEndpoint(n) {
				return fmt.Errorf("no endpoint is called %q", n)
			}
		}
		if f.For <= 0 || f.By <= 0 {
			return fmt.Errorf("for and by: a spike needs a positive window and extra delay")
		}
	case Loss:
		if f.Prob < 0 || f.Prob >= 1 {
			return fmt.Errorf("prob: must be in [0, 1), got %v", f.Prob)
		}
	case Election:
		if c.Lock.Algorithm != client.Lease {
			return fmt.Errorf("an election needs the consensus store of the lease lock")
		}
		if f.For <= 0 {
			return fmt.Errorf("for: an election needs a positive length")
		}
	default:
		return fmt.Errorf("kind: must be one of %s", strings.Join(faultNames[1:], ", "))
	}
	return nil
}
