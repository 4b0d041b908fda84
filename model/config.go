package model

import (
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
	// MaxEvents is the run's budget of events (0: DefaultMaxEvents), and
	// with it of history (HistoryBytesPerEvent each). Run, RunFast and
	// RunTraced refuse a run whose estimate exceeds it and stop one that
	// exceeds it, with a *BudgetError. It does not change a run that keeps
	// within it.
	MaxEvents uint64
}

// NodeConfig is one Redis node.
type NodeConfig struct {
	Name       string
	Clock      clocks.Spec
	RateSpread float64 // ppm; the clock's rate error gets a uniform draw in ±RateSpread added, from the run seed
	Redis      redis.Config
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
