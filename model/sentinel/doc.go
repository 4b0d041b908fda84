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
//     counts as an answer.
//   - Down-after counts as Redis Sentinel 7.0 counts it (sentinel.c,
//     act_ping_time): from the oldest ping still unanswered, not from the
//     last answer, so a master that answered at t and then stopped is down
//     DownAfter after the next ping, about PingEvery later than t+DownAfter.
//     At the start every node counts as pinged then (createInstanceLink
//     sets act_ping_time to its creation). A real Sentinel learns of a
//     crash from the closed connection and re-pings on reconnecting, at its
//     next timer tick but at most once a second; the model has no
//     connection to close, so a crash counts from the next periodic ping.
//   - The master is deemed down at exactly pendingSince+DownAfter on the
//     sentinel's monotonic clock (not one nanosecond earlier). The sentinel
//     then tells the first node in configuration order (the configured
//     master first, then the replicas) other than the failed master that
//     answered within ReplicaValidity ping periods to become master:
//     ReplicaOf(-1). With no candidate it retries every PingEvery.
//   - Like Sentinel, it tells nobody else until it has seen the promotion:
//     Sentinel sends INFO to the replicas every second once the master is
//     down and enters reconf-slaves (when get-master-addr-by-name, which the
//     clients ask, starts to answer the new master, and the other replicas
//     are repointed) only when an INFO reply shows the promoted replica a
//     master. Measured with redis-sentinel 7.0.15: +promoted-slave 1.04 s
//     after +sdown. The model asks the promoted node every PingEvery from
//     the failover on (a Ping, whose Pong carries the role) and, at the
//     first answer showing it a master, sends every other node except the
//     failed master ReplicaOf(new master) and every client
//     MasterChanged(new master). Until then it corrects no node's role.
//     The state machine's steps between (one timer tick each, 50 to 100 ms
//     at Sentinel's 10 to 19 Hz) are not modelled.
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
//     then "promote node=n2", "switch-master master=n2" when it has seen
//     the promotion, and "replicaof node=… master=…" for every
//     reconfiguration it sends.
//   - Deterministic: no maps, no goroutines; nodes are scanned in
//     configuration order.
package sentinel
