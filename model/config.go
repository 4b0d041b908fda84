package model

import (
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
	// Arrivals, when set, replaces the Poisson arrivals by the times of a
	// log's pauses (strictly increasing, from the log's start), played
	// from a point drawn once per run and around again after its end,
	// so that the log's bursts stay bursts; Every is then the log's mean
	// gap, and the gap at the wrap.
	Arrivals []time.Duration
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
	// LeaseCheckEvery, if positive, is how often the store looks for
	// expired leases on its monotonic clock, as etcd's lessor does every
	// 500 ms (consensus.Config); the phase of the looks is drawn once per
	// run from the stream "store:lease-check". Zero acts on each expiry
	// exactly at it.
	LeaseCheckEvery time.Duration
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
	// PartitionMode is what a cut link does with a message: hold it until
	// the heal, as TCP's retransmissions do (the zero value: every link is
	// a TCP connection), or drop it (a connection given up and reset).
	PartitionMode network.PartitionMode
	// RetransmitLimit is how long, from its send, a held message may wait
	// before it is dropped; zero means network.DefaultRetransmitLimit.
	RetransmitLimit time.Duration
}

// LinkConfig overrides one directed link. A zero Latency (Kind unset) keeps
// the default latency; a nil Loss keeps the default loss.
type LinkConfig struct {
	From, To string
	Latency  network.Latency
	Loss     *float64
}
