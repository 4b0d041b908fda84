// Package proxy is the fault proxy of the reality check: one TCP proxy per
// link on loopback, through which a real client reaches a real server, and
// which applies the scenario's network faults to the bytes in wall time.
//
// It embeds Shopify's toxiproxy (github.com/Shopify/toxiproxy/v2) for the
// proxy machinery: the listener, the upstream dial, and the per-direction
// chain of toxic stubs every chunk of bytes passes through. On each link it
// installs, once and in each direction, one toxic of its own, registered with
// toxiproxy as "redlocksim-link", and steers it through a control object
// rather than by adding and removing toxics. Why not toxiproxy's own toxics:
//   - its "timeout" toxic with timeout 0 drops the bytes of a cut link. A real
//     partition drops packets, but TCP retransmits them, so the stream holds
//     its bytes until the partition heals; a Redis reply is never torn in
//     half. The link toxic holds bytes while its direction is cut, and
//     delivers them, in order and complete, when it heals.
//   - its "latency" toxic is whole milliseconds with a uniform jitter; the
//     scenarios' latencies are nanosecond-grained and also exponential and
//     lognormal. The link toxic draws each chunk's delay from the
//     scenario's network.Latency itself.
//   - adding or removing a toxic interrupts its neighbour in the chain;
//     toxiproxy's latency toxic then forwards its pending chunk at once,
//     without its delay, and a removal drains with a 5 s write timeout after
//     which bytes are dropped. A toxic installed before the proxy starts and
//     never removed is never interrupted.
//
// Semantics, per direction of a link (Upstream: client to server;
// Downstream: server to client), chosen to match the simulator's network
// package where a real stream allows it:
//   - A chunk (the bytes one read of the socket returned) read at time t is
//     due at t + a latency draw + the extra of every spike whose window
//     [start, start+for) contains t. Overlapping spikes add up.
//   - The direction is FIFO, like network.Net: a chunk is delivered at the
//     later of its due time and the previous chunk's delivery.
//   - A chunk due while its direction is cut waits until the heal; then it
//     and everything behind it flow again. Nothing is dropped, as with TCP
//     (the simulator drops instead: it models messages, not streams). The
//     proxy delivers at the heal instant, where real TCP would wait for its
//     next retransmission (its backoff reaches seconds); that is a
//     deliberate idealisation.
//   - While the proxy holds bytes it stops reading the socket once its
//     buffer of 1024 chunks fills, so the sender sees TCP back pressure,
//     not a loss.
//   - A connection opened while the link is cut completes its TCP handshake
//     with the proxy (the proxy accepts, then dials the server), but no byte
//     passes a cut direction until the heal. So a client sees a read
//     timeout where a real partition would show a connect timeout; both
//     mean "no answer".
//
// Latency draws are seeded: each direction has its own PCG stream derived
// from the Set's seed and the link's name, drawn in chunk arrival order.
// Chunk boundaries depend on the OS, so a run is not reproducible byte for
// byte; the distribution is. The latency applied comes on top of the
// loopback's own floor, which Floor measures.
//
// A Set is safe for concurrent use: the harness applies faults from
// goroutines in wall time while traffic flows. Close stops every proxy and
// releases every held byte's goroutine.
package proxy
