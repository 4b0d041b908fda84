package model

import (
	"github.com/redlocksim/redlocksim/model/story"

	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
)

// faultScope is all that applying a fault may touch: the processes by
// endpoint (to pause or crash them, or to name them in a record), the
// network, the consensus store, the scheduler and the trace. A kind's
// apply takes it rather than the whole World, so that its entry in
// faultKinds shows what the fault acts on; a kind that needs more of the
// world adds a method here, where a reader sees it. worldFaults is the
// World's.
type faultScope interface {
	// pause stops the process at e for d (why says what stopped it).
	pause(e network.Endpoint, d time.Duration, why string)
	// pauseOnAcquire stops the client at e for d once it next acquires
	// the lock (see World.acquired).
	pauseOnAcquire(e network.Endpoint, d time.Duration)
	// crash takes the node at e down, by a process crash or a power loss
	// (f.Kind), and restarts it after f.For unless f.NoRestart; a client
	// at e ends for good.
	crash(e network.Endpoint, f Fault)
	// crashOnAcquire crashes the client at e for good once it next
	// acquires the lock (see World.acquired).
	crashOnAcquire(e network.Endpoint)
	// name is the name of the process at e, which its records go under.
	name(e network.Endpoint) string
	// net is the network; it narrates the cuts and heals it applies.
	net() *network.Net[proto.Msg]
	// nodes are the Redis nodes' endpoints: what a partition splits when
	// it names no group of its own.
	nodes() []network.Endpoint
	// setStoreAvailable gives the consensus store its leader or takes it
	// away: now, or when the store wakes if it is paused.
	setStoreAvailable(up bool)
	// after calls f d from now.
	after(d time.Duration, f func())
	// tracing reports whether the run is narrated, and tell narrates
	// fact f under who's name.
	tracing() bool
	tell(who string, f story.Fact)
}

// worldFaults is the World's faultScope: one pointer, so that passing it
// as a faultScope allocates nothing.
type worldFaults struct{ w *World }

func (s worldFaults) pause(e network.Endpoint, d time.Duration, why string) {
	s.w.pause(s.w.procs[e], d, why)
}

func (s worldFaults) pauseOnAcquire(e network.Endpoint, d time.Duration) {
	p := s.w.procs[e]
	p.onAcquire = append(p.onAcquire, d)
}

func (s worldFaults) crash(e network.Endpoint, f Fault) { s.w.crash(s.w.procs[e], f) }

func (s worldFaults) crashOnAcquire(e network.Endpoint) { s.w.procs[e].crashOnAcquire = true }

func (s worldFaults) name(e network.Endpoint) string { return s.w.procs[e].Name() }

func (s worldFaults) net() *network.Net[proto.Msg] { return s.w.net }

func (s worldFaults) nodes() []network.Endpoint { return s.w.plan.nodes }

func (s worldFaults) setStoreAvailable(up bool) {
	w := s.w
	p := w.procs[w.plan.endpoint("store")]
	w.actOn(p, func() { w.store.SetAvailable(p, up) })
}

func (s worldFaults) after(d time.Duration, f func()) { s.w.k.After(d, func(uint64) { f() }, 0) }

func (s worldFaults) tracing() bool { return s.w.k.Tracing() }

func (s worldFaults) tell(who string, f story.Fact) { s.w.tell(who, f) }
