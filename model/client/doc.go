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
// The workload loop (client.go) is the same for every algorithm; what an
// algorithm does differently sits behind one interface, as raft's step is
// stepLeader or stepFollower: redisLock (SET NX on Redlock's quorum or on
// one master), leaseLock (a lease and a key on the consensus store) and
// zkLock (Curator's InterProcessMutex on a session of the store). A
// round (round.go) is one acquire or extend round: each node's reply as a
// typed state, the counts and the request timeout.
//
// Everything else that tells the algorithms apart is one entry of
// algorithm.go's algorithms table, in the style of model's faultKinds: what
// the lock needs (the consensus store, a sentinel, every node asked), its
// fewest Redis nodes, where its fencing tokens come from, whether it keeps
// its lock by keep-alives, and its step's constructor. The validator, the
// plan, the loader, the explorer, the what-ifs and the real harness ask
// Algorithm's methods (Store, Sentinel, AsksAll, FewestNodes, Tokens, ...)
// instead of comparing algorithms, so that a new algorithm is one entry;
// TestEveryAlgorithmIsWhole fails until the entry says all of it.
//
// Invariants:
//   - The client reports exactly what it believes: HoldStart when an
//     acquisition succeeds by the rules of its algorithm, HoldEnd when it
//     releases or when its own clock says its validity has run out. A paused
//     client cannot look at its clock, so its belief lasts through the pause:
//     that is the whole point of the critique.
//   - Replies and timers of an earlier try, round or phase are recognised by
//     a generation number in the request id or timer tag and ignored. A tag
//     holds the purpose in 8 bits, a node index in 16 (MaxNodes) and the
//     generation in 40; tag panics on anything that does not fit.
//   - Lock values and resource elements are unique per world: the client id
//     in the high bits, a per-client counter in the low bits.
package client
