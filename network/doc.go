// Package network is the simulated network between redlocksim's processes:
// endpoints, one-way latency distributions, loss, delay spikes, crashes and
// partitions. It is generic over the message type and knows nothing of Redis.
//
// It owns when (and whether) a message arrives, never what a sender does
// about a missing reply: timeouts belong to the callers.
//
// Invariants:
//   - Each directed link is FIFO, like a TCP connection: a message is never
//     delivered before one sent earlier on the same link. Messages on
//     different links interleave by delivery time, then by send order.
//   - Drops are silent. A message lost to the loss probability, to a cut
//     link (at send time or at delivery time), to a down endpoint or to a
//     receiver that restarted since the send is counted in Stats and traced,
//     and nothing else happens.
//   - A Net's PartitionMode says what a cut link does. PartitionHold (the
//     default, since every link the model has is a TCP connection) is TCP
//     across a partition shorter than its retransmission limit: a message reaching a cut link at its delivery
//     time is held there and redelivered after the heal, in FIFO order, at
//     the heal plus the latency it drew when sent; it is dropped if it is
//     older than the retransmission limit or if either end restarted.
//     PartitionDrop drops, as above: a connection given up and reset.
//   - A run is deterministic: each directed link a->b draws from its own
//     kernel streams "net:a->b" (latency) and "net:a->b:loss", opened on the
//     link's first message, so adding an endpoint or traffic on another link
//     leaves a link's draws unchanged. Each Send consumes the same draws
//     whatever becomes of the message. Partitions are pure functions of an
//     ordered endpoint list.
//   - In steady state a Send and its delivery allocate nothing: in-flight
//     messages live by value in a sim.Slots table, and the kernel event
//     carries the slot index to one pre-bound callback.
//
// Draws are exact on a given GOARCH. The exponential and lognormal samplers
// go through math.Exp, which has per-architecture assembly; a last-bit
// difference across architectures is possible in principle, though rounding
// to whole nanoseconds hides nearly all of it.
package network
