// Package proto holds what every actor of a lock world shares: the one
// message type that travels the simulated network, and the narrow
// environment through which an actor acts.
//
// Actors (Redis nodes, clients, the protected resource, the consensus store)
// are synchronous state machines in the style of etcd-io/raft's RawNode: they
// are driven by Start, Handle (a message) and OnTimer (a tag they chose), and
// they act only through Env: send a message, set or cancel a timer on one of
// their own clocks, read their own clocks, draw from their own random stream,
// and note observations. They never see true time; the world and the checker
// do.
//
// Msg is a plain value type (no pointers, no slices) so that messages live by
// value in the network's slab and delivering one allocates nothing.
package proto
