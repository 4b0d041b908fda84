// Package client is a lock client: the workload loop of acquire, critical
// section (read, compute, write on the protected resource) and release, with
// the lock algorithms it can use (single instance, master with failover and
// optional WAIT, Redlock, and a lease lock on a consensus store).
//
// A Client is a synchronous state machine (proto.Actor). It reads only its
// own clocks, draws only from its own random stream and acts only by sending
// messages and setting timers, so the world can freeze it (a GC pause) by
// holding back its events.
//
// Invariants:
//   - The client reports exactly what it believes: HoldStart when an
//     acquisition succeeds by the rules of its algorithm, HoldEnd when it
//     releases or when its own clock says its validity has run out. A paused
//     client cannot look at its clock, so its belief lasts through the pause:
//     that is the whole point of the critique.
//   - Replies and timers of an earlier try, round or phase are recognised by
//     a generation number in the request id or timer tag and ignored.
//   - Lock values and resource elements are unique per world: the client id
//     in the high bits, a per-client counter in the low bits.
package client
