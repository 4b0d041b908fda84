// Package sentinel is a single Redis Sentinel: failure detection and
// failover for one master with asynchronous replicas, the deployment whose
// failure mode (§2 of the domain notes) is why Redlock exists.
//
// It owns the sentinel's view: which node is the master, when each node
// last answered a ping, and the decision to promote. The nodes' roles and
// data belong to package redis; the sentinel acts on them only by message
// (proto.ReplicaOf, and proto.MasterChanged to the clients).
//
// Behaviour and invariants:
//   - It pings every node every PingEvery on its monotonic clock. Any Pong
//     counts as an answer. Down-after periods count from the sentinel's
//     start, as if every node had answered then.
//   - The master is deemed down once it has not answered for DownAfter
//     (not one nanosecond earlier): at exactly lastPong+DownAfter on the
//     sentinel's monotonic clock. The sentinel then promotes the first node
//     in configuration order (the configured master first, then the
//     replicas) other than the failed master that answered within
//     ReplicaValidity ping periods: it sends it ReplicaOf(-1), sends every
//     other node except the failed master ReplicaOf(new master), and sends
//     every client MasterChanged(new master). With no candidate it retries
//     every PingEvery.
//   - It keeps pinging every node, the failed master included. Pong carries
//     the node's view of its role (Int: its master's endpoint, -1 for a
//     master); whenever that disagrees with the sentinel's view the sentinel
//     sends the node ReplicaOf again. So the old master, when it answers
//     again, is made a replica of the new master (and full-syncs from it,
//     losing the writes it accepted alone), and a lost ReplicaOf is
//     repeated at the next ping.
//   - One sentinel, no quorum, no epochs and no failover-timeout: the model
//     of §2 needs detection and promotion, not Sentinel's own consensus.
//   - Trace lines: "master-down master=n1 down_after=30s promoting=n2",
//     then "promote node=n2" and "replicaof node=… master=…" for every
//     reconfiguration it sends.
//   - Deterministic: no maps, no goroutines; nodes are scanned in
//     configuration order.
package sentinel
