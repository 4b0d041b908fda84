package network

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/redlocksim/redlocksim/sim"
)

// Endpoint names a process attached to a Net: a small dense integer handed
// out by AddEndpoint, so per-endpoint and per-link state lives in slices.
type Endpoint int32

// All is a wildcard for AddSpike matching every sender or every receiver.
const All Endpoint = -1

// The kinds of the records the network adds to a narrated run; their
// fields are the facts in records.go.
const (
	RecordPartition = "partition" // a cut is applied: cuts lists the links
	RecordHeal      = "heal"      // every cut is removed
	RecordDrop      = "drop"      // a message is dropped: from, to, reason
	// RecordTamper: one message is held, delivered early or dropped by
	// Tamper: from, to, sent, and arrives (its new arrival) or drop=true.
	RecordTamper = "tamper"
)

// Stats counts messages. Each Send ends in exactly one of Delivered or the
// Dropped counters, or is still in flight.
type Stats struct {
	Sent             uint64
	Delivered        uint64
	DroppedLoss      uint64 // lost to the loss probability
	DroppedPartition uint64 // link cut at send or at delivery time
	DroppedDown      uint64 // sender or receiver down, or receiver restarted
}

// Dropped is the total of the drop counters.
func (s Stats) Dropped() uint64 { return s.DroppedLoss + s.DroppedPartition + s.DroppedDown }

// InFlight is the number of messages sent but neither delivered nor dropped.
func (s Stats) InFlight() uint64 { return s.Sent - s.Delivered - s.Dropped() }

type reason uint8

const (
	reasonLoss reason = iota
	reasonPartition
	reasonDown
	reasonRetransmit // held past the retransmission limit; counted as a partition drop
	reasonTamper     // dropped by Tamper; counted as a loss
)

func (r reason) String() string {
	return [...]string{"loss", "partition", "down", "retransmit-limit", "tampered"}[r]
}

// PartitionMode is what a cut link does with the messages that reach it.
type PartitionMode uint8

const (
	// PartitionHold (the zero value, so the default) holds a message on
	// its cut link and delivers it after the heal, in FIFO order, as TCP's
	// retransmissions do across a partition shorter than the
	// retransmission limit. Every link the model has is a TCP connection.
	PartitionHold PartitionMode = iota
	// PartitionDrop drops a message on a cut link: a connection given up
	// and reset, or a partition longer than TCP's retransmission limit.
	PartitionDrop
)

var partitionModeNames = [...]string{PartitionDrop: "drop", PartitionHold: "hold"}

// String is the mode's name as written in scenario files.
func (m PartitionMode) String() string {
	if int(m) < len(partitionModeNames) {
		return partitionModeNames[m]
	}
	return "PartitionMode(" + strconv.Itoa(int(m)) + ")"
}

// ParsePartitionMode is the inverse of PartitionMode.String.
func ParsePartitionMode(s string) (PartitionMode, error) {
	for m, name := range partitionModeNames {
		if name == s {
			return PartitionMode(m), nil
		}
	}
	return 0, fmt.Errorf("unknown partition mode %q; want drop or hold", s)
}

// DefaultRetransmitLimit is how long Linux keeps retransmitting unacknowledged
// bytes before it resets the connection: tcp_retries2 = 15 retransmissions
// with the RTO doubling from 200 ms up to its 120 s cap add up to 924.6 s.
const DefaultRetransmitLimit = 924600 * time.Millisecond

// link is the state of one directed link.
type link struct {
	last     time.Duration // latest delivery time scheduled: the FIFO floor
	lat      Latency       // override, when hasLat
	loss     float64       // override, when hasLoss
	hasLat   bool
	hasLoss  bool
	cut      bool
	mayOwe   bool        // lossOwed may grow (see there)
	draining bool        // the head's redelivery event is scheduled (held below)
	latRand  *sim.Stream // opened on first Send
	lossRand *sim.Stream
	// lossOwed counts the loss draws not yet taken from lossRand: a
	// message sent while the loss probability is 0 is never lost, and its
	// draw is taken only when a later message needs the stream (see
	// lossDraw), so that every message still has the same draw. Never
	// with mayOwe false: a run whose streams are re-seeded at a branch.
	// (The bools sit together so that the link is no larger for it: a
	// world of 1,000 nodes holds many links.)
	lossOwed uint64

	// In PartitionHold mode, the flights slots of the messages held on
	// this link, oldest first from heldHead. While any is held, later
	// arrivals queue behind them, so the link stays FIFO across the heal.
	held     []int32
	heldHead int
}

// LinkBytes is the most memory a Net of n endpoints holds for its links:
// a link for every ordered pair, when every endpoint sends to every other.
// A run's budget counts it before the world is built (1,000 nodes and
// 1,000 clients: about 0.5 GB). A Net holds less when its endpoints send
// to few others (see linkChunk).
func LinkBytes(n int) uint64 { return uint64(n) * uint64(n) * uint64(unsafe.Sizeof(link{})) }

// linkChunkBits sets the size of a linkChunk: 32 links.
const linkChunkBits = 5

// linkChunk is 32 consecutive links of one sender's row, made at the first
// use of any of them. A row of whole links cost a world of 1,000 nodes and
// 2 clients 145 MB, a full row for each node that answers a client, so
// that its refusal by its rate went over 100 MB; in chunks it holds 5 MB.
// A send finds its link by two indexes still.
type linkChunk [1 << linkChunkBits]link

func (ln *link) holding() bool { return ln.heldHead < len(ln.held) }

// flight is an in-flight message, kept by value in Net.flights.
type flight[M any] struct {
	msg       M
	sentAt    time.Duration
	from, to  Endpoint
	inc       uint32        // receiver's incarnation at send time
	fromInc   uint32        // sender's incarnation at send time
	lat       time.Duration // latency drawn at send, spikes included: reused from the heal
	notBefore time.Duration // while held: the earliest redelivery time
}

// heldBit marks a delivery event's arg as the redelivery of a held message.
const heldBit = 1 << 32

// tamper is one Tamper rule, until it has taken its message.
type tamper struct {
	from, to Endpoint
	after    time.Duration
	lat      time.Duration
	drop     bool
	taken    bool
}

type spike struct {
	from, to          Endpoint // or All
	start, end, extra time.Duration
}

// Receiver takes the messages a Net delivers: Deliver is called for every
// message that arrives, at its delivery time.
type Receiver[M any] interface {
	Deliver(from, to Endpoint, m M)
}

// deliverFunc is a func as a Receiver.
type deliverFunc[M any] func(from, to Endpoint, m M)

func (f deliverFunc[M]) Deliver(from, to Endpoint, m M) { f(from, to, m) }

// endpointState is an endpoint's up flag and incarnation (see SetUp).
type endpointState struct {
	up  bool
	inc uint32
}

// Net is a simulated network carrying messages of type M between endpoints.
// It is driven by its kernel and, like the kernel, single-threaded.
type Net[M any] struct {
	k       *sim.Kernel
	deliver Receiver[M]
	fire    sim.Func // n.onDeliver, bound once so scheduling does not allocate

	names  []string
	byName map[string]Endpoint
	// eps[e] is endpoint e's state: whether it is up, and its
	// incarnation. One slice, so that a send's and a delivery's checks
	// read one bounds-checked entry per endpoint, not two.
	eps   []endpointState
	links linkTable

	lat     Latency
	loss    float64
	spikes  []spike
	tampers []tamper

	flights sim.Slots[flight[M]] // in flight, by the handle their delivery event carries

	mode            PartitionMode
	retransmitLimit time.Duration
	// everCut: Apply has cut a link. Until then no link is cut or holds
	// a message, and a delivery need not look its link up: most runs
	// never cut one.
	everCut bool

	stats Stats
	tap   func(from, to Endpoint, sentAt time.Duration, m M)
	lost  func(from, to Endpoint, m M)
}

// New returns a network with no endpoints on kernel k. deliver is called for
// every message that arrives, at its delivery time. The default latency is
// Constant(0) and the default loss 0.
func New[M any](k *sim.Kernel, deliver func(from, to Endpoint, m M)) *Net[M] {
	if deliver == nil {
		panic("network: New with a nil deliver func")
	}
	return NewTo[M](k, deliverFunc[M](deliver))
}

// NewTo is New with a Receiver instead of a func: a world's receiver is
// called through its interface, where a method value (world.deliver)
// went through a wrapper that copied every message once more.
func NewTo[M any](k *sim.Kernel, r Receiver[M]) *Net[M] {
	if k == nil || r == nil {
		panic("network: New with a nil kernel or receiver")
	}
	n := &Net[M]{k: k, deliver: r, byName: make(map[string]Endpoint), lat: Constant(0),
		retransmitLimit: DefaultRetransmitLimit}
	n.fire = n.onDeliver
	k.ClaimPrefix(streamPrefix)
	return n
}

// streamPrefix begins the name of every stream a Net opens: its links'
// latency and loss streams, two per link, which it names once each.
const streamPrefix = "net:"

// AddEndpoint attaches a new endpoint, up, and returns its id. Names must be
// unique, non-empty, and free of spaces and the characters , < > | (they
// appear in stream names and printed grudges).
func (n *Net[M]) AddEndpoint(name string) Endpoint {
	if name == "" || strings.ContainsAny(name, " \t\r\n,<>|") {
		panic(fmt.Sprintf("network: bad endpoint name %q", name))
	}
	if _, dup := n.byName[name]; dup {
		panic(fmt.Sprintf("network: endpoint %q added twice", name))
	}
	e := Endpoint(len(n.names))
	n.names = append(n.names, name)
	n.byName[name] = e
	n.eps = append(n.eps, endpointState{up: true})
	n.links.rows = append(n.links.rows, nil) // made by link, at its first use
	return e
}

// Name is the name e was added with.
func (n *Net[M]) Name(e Endpoint) string {
	n.check(e)
	return n.names[e]
}

// Lookup finds an endpoint by name.
func (n *Net[M]) Lookup(name string) (Endpoint, bool) {
	e, ok := n.byName[name]
	return e, ok
}

// Endpoints lists every endpoint in the order they were added.
func (n *Net[M]) Endpoints() []Endpoint {
	es := make([]Endpoint, len(n.names))
	for i := range es {
		es[i] = Endpoint(i)
	}
	return es
}

// SetDefaultLatency sets the latency of every link without an override.
// l must be valid.
func (n *Net[M]) SetDefaultLatency(l Latency) {
	mustValid(l)
	n.lat = l
}

// SetLatency overrides the latency of the directed link from -> to. It
// applies to messages sent from now on; l must be valid.
func (n *Net[M]) SetLatency(from, to Endpoint, l Latency) {
	mustValid(l)
	ln := n.link(from, to)
	ln.lat, ln.hasLat = l, true
}

// SetDefaultLoss sets the loss probability of every link without an
// override.
func (n *Net[M]) SetDefaultLoss(p float64) {
	mustProb(p)
	n.loss = p
}

// SetLoss overrides the loss probability of the directed link from -> to.
func (n *Net[M]) SetLoss(from, to Endpoint, p float64) {
	mustProb(p)
	ln := n.link(from, to)
	ln.loss, ln.hasLoss = p, true
}

// AddSpike delays by extra every message sent from -> to (either may be All)
// at a time in [start, end). Overlapping spikes add up. Per-link FIFO still
// holds, so a spike also holds back later messages on the same link.
func (n *Net[M]) AddSpike(from, to Endpoint, start, end, extra time.Duration) {
	if from != All {
		n.check(from)
	}
	if to != All {
		n.check(to)
	}
	if start < 0 || end < start || extra < 0 {
		panic(fmt.Sprintf("network: bad spike [%v, %v) +%v", start, end, extra))
	}
	n.spikes = append(n.spikes, spike{from, to, start, end, extra})
}

// Tamper acts on one message: the first sent from -> to at or after
// after. With drop it is dropped (a loss, whatever the link's state);
// otherwise it arrives lat after its send, in place of the latency it
// drew and any spike, so that a lat longer than that holds it and a
// shorter one delivers it early. The link stays FIFO: a held message holds
// back the later ones on its link, and an early one still arrives after
// the earlier ones. A message that the link's state (a crash, a cut in
// drop mode, a loss) drops anyway is dropped, and the rule is spent. It
// draws nothing, so every other message keeps its latency and fate. The
// lab's student plays the adversary with it.
func (n *Net[M]) Tamper(from, to Endpoint, after, lat time.Duration, drop bool) {
	if after < 0 || lat < 0 {
		panic(fmt.Sprintf("network: bad tamper rule from %v, arriving after %v", after, lat))
	}
	n.tampers = append(n.tampers, tamper{from: from, to: to, after: after, lat: lat, drop: drop})
}

// tampered is the Tamper rule for a message sent from -> to now, if any;
// it is spent by the call.
func (n *Net[M]) tampered(from, to Endpoint, now time.Duration) *tamper {
	for i := range n.tampers {
		t := &n.tampers[i]
		if !t.taken && t.from == from && t.to == to && now >= t.after {
			t.taken = true
			return t
		}
	}
	return nil
}

// SetPartitionMode sets what cut links do with messages from now on (the
// default is PartitionHold), and, for PartitionHold, how long a message may
// be held, from its send, before it is dropped as TCP gives up on it. Set it
// before the first cut: messages already held keep being held.
func (n *Net[M]) SetPartitionMode(m PartitionMode, retransmitLimit time.Duration) {
	if int(m) >= len(partitionModeNames) || retransmitLimit <= 0 {
		panic(fmt.Sprintf("network: bad partition mode %v with retransmission limit %v", m, retransmitLimit))
	}
	n.mode, n.retransmitLimit = m, retransmitLimit
}

// PartitionMode reports what cut links do with messages.
func (n *Net[M]) PartitionMode() PartitionMode { return n.mode }

// SetUp brings e up or takes it down. A down endpoint neither sends nor
// receives: its sends and the messages arriving for it are dropped.
//
// Coming back up starts a new incarnation, as a restarted process has new
// TCP connections: messages sent to the old incarnation that are still in
// flight are dropped on arrival. Messages e sent before going down are still
// delivered, like bytes already on the wire from a process that since died.
func (n *Net[M]) SetUp(e Endpoint, up bool) {
	n.check(e)
	st := &n.eps[e]
	if up && !st.up {
		st.inc++
	}
	st.up = up
}

// Up reports whether e is up.
func (n *Net[M]) Up(e Endpoint) bool {
	n.check(e)
	return n.eps[e].up
}

// Apply adds the cuts of g to those in force. In PartitionDrop mode a
// message is dropped if its link is cut when it is sent or when it would be
// delivered. In PartitionHold mode a message that reaches a cut link, at its
// delivery time, is held there until the heal (see Heal). The fields about
// join the partition record's cuts: the caller's words for what the cut is
// (its fault's mode and target), for a reader of the record stream.
func (n *Net[M]) Apply(g Grudge, about ...sim.Field) {
	for _, l := range g {
		n.link(l.From, l.To).cut = true
		n.everCut = true
	}
	if n.k.Tracing() {
		n.k.Record("net", RecordPartition, append(sim.FactFields(CutRecord{Cuts: n.Format(g)}), about...)...)
	}
}

// Heal removes every cut. In PartitionHold mode the messages held on each
// link are then redelivered in FIFO order, each at the heal plus the latency
// it drew when sent (and never before the one held ahead of it), unless the
// receiver or the sender restarted meanwhile (a new incarnation has new
// connections) or the message was sent longer than the retransmission limit
// ago.
func (n *Net[M]) Heal() {
	now := n.k.Now()
	for _, row := range n.links.rows {
		for _, c := range row {
			if c == nil {
				continue // never used: nothing cut, nothing held
			}
			n.healChunk(c, now)
		}
	}
	if n.k.Tracing() {
		n.record(HealRecord{})
	}
}

// healChunk heals the links of c, redelivering what they hold, for Heal.
func (n *Net[M]) healChunk(c *linkChunk, now time.Duration) {
	for j := range c {
		ln := &c[j]
		ln.cut = false
		if !ln.holding() || ln.draining {
			continue
		}
		for _, h := range ln.held[ln.heldHead:] {
			f := n.flights.At(h)
			f.notBefore = addSat(now, f.lat)
		}
		n.drainNext(ln)
	}
}

// Reachable reports whether the directed link from -> to is free of cuts.
// It does not consider whether the endpoints are up.
func (n *Net[M]) Reachable(from, to Endpoint) bool {
	return !n.link(from, to).cut
}

// Format prints g with endpoint names, e.g. "n1<-n3,n4 n2<-n4,n5".
func (n *Net[M]) Format(g Grudge) string { return g.Format(n.Name) }

// SetTap has tap called for every delivered message, just before its
// delivery, with the true time it was sent: a traced run's message log
// (the Perfetto export draws it). nil removes the tap. The tap must not
// send or schedule: it observes.
func (n *Net[M]) SetTap(tap func(from, to Endpoint, sentAt time.Duration, m M)) { n.tap = tap }

// SetDropTap has lost called for every dropped message, when it is
// dropped: the one word a sender's world gets that a message will never
// arrive (a fast run's world forgets what only that message could still
// name). nil removes it; without it a drop costs nothing more. Like the
// tap, it must not send or schedule: it observes.
func (n *Net[M]) SetDropTap(lost func(from, to Endpoint, m M)) { n.lost = lost }

// Stats returns the message counters.
func (n *Net[M]) Stats() Stats { return n.stats }

// InFlightBytes is the memory the messages in flight hold (held ones
// included): a run's budget watches it, as it grows with a run that
// sends faster than it delivers.
func (n *Net[M]) InFlightBytes() uint64 {
	return uint64(n.flights.Len()) * uint64(unsafe.Sizeof(flight[M]{}))
}

// Send puts m on the directed link from -> to. It never fails: a message
// that will not arrive is dropped silently (counted and traced), and noticing
// that is the sender's business, as with a real network.
//
// The message arrives at max(now + latency + spikes, the previous delivery
// time on the link), so a link is FIFO; equal times keep send order because
// the kernel breaks ties by insertion.
//
// Every Send draws its latency from the link's latency stream and one number
// from the link's loss stream, whatever its fate, so the draws of message i
// on a link do not depend on partitions, crashes or the loss probability:
// runs that differ only in those see the same latencies, and raising the
// loss probability only adds to the set of lost messages.
func (n *Net[M]) Send(from, to Endpoint, m M) { n.SendFrom(from, to, &m) }

// SendFrom is Send of *m, which it copies: a world's process sends every
// message through it, one copy of the message fewer than Send's.
func (n *Net[M]) SendFrom(from, to Endpoint, m *M) {
	ln := n.link(from, to)
	if ln.latRand == nil {
		name := streamPrefix + n.names[from] + "->" + n.names[to]
		ln.latRand = n.k.ClaimedStream(name)
		ln.lossRand = n.k.ClaimedStream(name + ":loss")
		ln.mayOwe = !ln.lossRand.Reseeds()
	}
	n.stats.Sent++
	lat, loss := &n.lat, n.loss
	if ln.hasLat {
		lat = &ln.lat
	}
	if ln.hasLoss {
		loss = ln.loss
	}
	d := lat.draw(ln.latRand, "latency")
	u := ln.lossDraw(loss)

	now := n.k.Now()
	var tp *tamper
	if n.tampers != nil {
		tp = n.tampered(from, to, now)
	}
	switch {
	case tp != nil && tp.drop:
		if n.k.Tracing() {
			n.record(TamperRecord{From: n.names[from], To: n.names[to], Sent: sim.FormatTime(now), Drop: "true"})
		}
		n.drop(from, to, now, reasonTamper, *m)
		return
	case !n.eps[from].up || !n.eps[to].up:
		n.drop(from, to, now, reasonDown, *m)
		return
	case ln.cut && n.mode == PartitionDrop:
		n.drop(from, to, now, reasonPartition, *m)
		return
	case u < loss:
		n.drop(from, to, now, reasonLoss, *m)
		return
	}
	for _, s := range n.spikes {
		if (s.from == All || s.from == from) && (s.to == All || s.to == to) &&
			now >= s.start && now < s.end {
			d = addSat(d, s.extra)
		}
	}
	if tp != nil {
		d = tp.lat
	}
	at := max(addSat(now, d), ln.last)
	ln.last = at
	if tp != nil && n.k.Tracing() {
		n.record(TamperRecord{From: n.names[from], To: n.names[to], Sent: sim.FormatTime(now), Arrives: sim.FormatTime(at)})
	}

	// Filled in place: the flight is large, and building it first cost a
	// copy per message.
	slot, f := n.flights.Alloc()
	f.msg, f.sentAt, f.from, f.to = *m, now, from, to
	f.inc, f.fromInc, f.lat = n.eps[to].inc, n.eps[from].inc, d
	n.k.Schedule(at, n.fire, uint64(slot))
}

// lossDraw is the loss stream's draw for the message sent now on ln, to be
// compared with loss. At loss 0 the draw could not change the message's
// fate, and Below at p = 0 is a plain Float64 whatever the tilts (no
// statistics, no weight), so it is owed instead of made: most worlds lose
// nothing, and the draw was a sixth of Send's instructions. The draws owed
// are made, in order, before the first one that counts (a loss fault
// raises the probability mid-run), so that message i on a link still gets
// the link's i-th number.
func (ln *link) lossDraw(loss float64) float64 {
	if loss == 0 && ln.mayOwe {
		ln.lossOwed++
		return 0 // 0 < 0 is false: not lost
	}
	for ; ln.lossOwed > 0; ln.lossOwed-- {
		ln.lossRand.Float64()
	}
	return ln.lossRand.Below("loss", loss)
}

// onDeliver is the kernel callback for the message in flights slot arg, or,
// with heldBit set, for the redelivery of the held message at the head of
// its link's queue.
func (n *Net[M]) onDeliver(arg uint64) {
	if arg&heldBit != 0 {
		n.onRedeliver(int32(arg &^ heldBit))
		return
	}
	h := int32(arg)
	f := n.flights.At(h)
	switch {
	case n.eps[f.to] != endpointState{true, f.inc}: // down, or restarted since the send
		n.drop(f.from, f.to, f.sentAt, reasonDown, f.msg)
		n.flights.Take(h)
	case n.everCut && n.stopped(h, f):
		// held or dropped on its link
	default:
		// Copy only the message out and free the slot before delivering,
		// so that a Send from the receiver reuses it as before; passing
		// the whole flight by value cost three copies of it per message.
		from, to, sentAt, m := f.from, f.to, f.sentAt, f.msg
		n.flights.Free(h)
		n.stats.Delivered++
		if n.tap != nil {
			n.tap(from, to, sentAt, m)
		}
		n.deliver.Deliver(from, to, m)
	}
}

// stopped holds the message in flights slot h, f, on its link if the link
// is cut or, healed, still holds older messages (PartitionHold), or drops
// it if the link is cut (PartitionDrop), and reports whether it did.
func (n *Net[M]) stopped(h int32, f *flight[M]) bool {
	ln := n.made(f.from, f.to) // its Send made it
	switch {
	case n.mode == PartitionHold && (ln.cut || ln.holding()):
		// Queue behind the held messages so that the link stays FIFO.
		f.notBefore = n.k.Now()
		ln.held = append(ln.held, h)
		if !ln.cut && !ln.draining {
			n.drainNext(ln)
		}
	case ln.cut:
		n.drop(f.from, f.to, f.sentAt, reasonPartition, f.msg)
		n.flights.Take(h)
	default:
		return false
	}
	return true
}

// onRedeliver delivers the held message in slot h, the head of its link's
// queue, unless the link was cut again, and schedules the next one.
func (n *Net[M]) onRedeliver(h int32) {
	f := n.flights.At(h)
	ln := n.made(f.from, f.to)
	ln.draining = false
	if ln.cut {
		return // held again; the next heal redelivers it
	}
	ln.heldHead++
	if !ln.holding() {
		ln.held, ln.heldHead = ln.held[:0], 0
	} else {
		n.drainNext(ln)
	}
	m := n.flights.Take(h)
	switch {
	case n.eps[m.to] != endpointState{true, m.inc} || n.eps[m.from] != endpointState{true, m.fromInc}:
		n.drop(m.from, m.to, m.sentAt, reasonDown, m.msg)
	case n.k.Now()-m.sentAt > n.retransmitLimit:
		n.drop(m.from, m.to, m.sentAt, reasonRetransmit, m.msg)
	default:
		n.arrive(m)
	}
}

// drainNext schedules the redelivery of the message at the head of ln's
// held queue.
func (n *Net[M]) drainNext(ln *link) {
	h := ln.held[ln.heldHead]
	at := max(n.flights.At(h).notBefore, n.k.Now())
	ln.last = max(ln.last, at)
	ln.draining = true
	n.k.Schedule(at, n.fire, heldBit|uint64(h))
}

func (n *Net[M]) arrive(f flight[M]) {
	n.stats.Delivered++
	if n.tap != nil {
		n.tap(f.from, f.to, f.sentAt, f.msg)
	}
	n.deliver.Deliver(f.from, f.to, f.msg)
}

// drop counts, narrates and reports the loss of m. Only drop paths call
// it, so passing m costs a delivery nothing.
func (n *Net[M]) drop(from, to Endpoint, sentAt time.Duration, r reason, m M) {
	switch r {
	case reasonLoss, reasonTamper:
		n.stats.DroppedLoss++
	case reasonPartition, reasonRetransmit:
		n.stats.DroppedPartition++
	case reasonDown:
		n.stats.DroppedDown++
	}
	if n.k.Tracing() {
		n.record(DropRecord{From: n.names[from], To: n.names[to], Reason: r.String(), Sent: sim.FormatTime(sentAt)})
	}
	if n.lost != nil {
		n.lost(from, to, m)
	}
}

// record narrates fact f as the network's; callers check Tracing first,
// so that a fast run builds no fact.
func (n *Net[M]) record(f sim.Fact) { n.k.Record("net", f.Kind(), sim.FactFields(f)...) }

func (n *Net[M]) check(e Endpoint) {
	if uint(e) >= uint(len(n.names)) { // negatives too
		unknown(e)
	}
}

// unknown panics for check, out of line so that check stays small.
func unknown(e Endpoint) { panic(fmt.Sprintf("network: unknown endpoint %d", e)) }

// link is the link from -> to, made at its first use.
func (n *Net[M]) link(from, to Endpoint) *link { return n.links.get(from, to) }

// made is the link from -> to, which a call of link has made.
func (n *Net[M]) made(from, to Endpoint) *link {
	return &n.links.rows[from][to>>linkChunkBits][to&(1<<linkChunkBits-1)]
}

// linkTable holds a Net's links: rows[from][to>>linkChunkBits][to&(1<<linkChunkBits-1)],
// each chunk made at the first use of one of its links. It is a type of
// its own, not Net's generic methods, so that get, which every Send
// calls, inlines: a method of the generic Net is compiled for the shape
// of its messages with a dictionary, which priced the lookup out of
// inlining.
type linkTable struct {
	rows [][]*linkChunk
}

// get is the link from -> to, made at its first use; either endpoint
// unknown panics.
func (t *linkTable) get(from, to Endpoint) *link {
	if n := uint(len(t.rows)); uint(from) < n && uint(to) < n { // negatives fail too
		if row := t.rows[from]; int(to>>linkChunkBits) < len(row) {
			if c := row[to>>linkChunkBits]; c != nil {
				return &c[to&(1<<linkChunkBits-1)]
			}
		}
	}
	return t.make(from, to)
}

// make makes the link from -> to, and its chunk and row as needed. Once
// per link, so kept out of get (go:noinline).
//
//go:noinline
func (t *linkTable) make(from, to Endpoint) *link {
	for _, e := range [...]Endpoint{from, to} {
		if uint(e) >= uint(len(t.rows)) {
			unknown(e)
		}
	}
	row := t.rows[from]
	i := int(to) >> linkChunkBits
	if len(row) <= i {
		// Made here, not by AddEndpoint: a world adds all its endpoints
		// before the first send, so each row is made once, at its size
		// (growing every row at each AddEndpoint cost a world of 1,400
		// processes 700 MB of copies), and an endpoint that never sends
		// has none.
		row = append(row, make([]*linkChunk, (len(t.rows)+1<<linkChunkBits-1)>>linkChunkBits-len(row))...)
		t.rows[from] = row
	}
	c := row[i]
	if c == nil {
		c = new(linkChunk)
		row[i] = c
	}
	return &c[to&(1<<linkChunkBits-1)]
}

func mustValid(l Latency) {
	if err := l.Validate(); err != nil {
		panic("network: " + err.Error())
	}
}

func mustProb(p float64) {
	if !(p >= 0 && p <= 1) { // also catches NaN
		panic(fmt.Sprintf("network: loss probability %v outside [0, 1]", p))
	}
}
