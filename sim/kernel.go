package sim

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Func is an event callback. The argument is whatever the scheduler passed to
// Schedule; it lets one pre-bound method value serve many events without
// allocating a closure per event.
type Func func(arg uint64)

// EventID names a scheduled event so that it can be cancelled. The zero value
// names no event; cancelling it is a no-op.
type EventID struct {
	seq  uint64 // the event's place in scheduling order, from 1
	slot int32
}

// event is a slot in the kernel's slab: what Scheduled and Arg report of
// a pending event, and its sequence number, which tells a stale EventID
// from a live one when the slot is reused. A slot is reused only once its
// queue entry is out of the queue, so its live bit (Kernel.live) speaks
// for that entry too. With the binary heap, the slab also holds the
// callback and the event's heap position; with the radix heap, Schedule
// only writes the slot, never reads it: in a long queue the slab is larger
// than the cache, and a read was a miss per event.
type event struct {
	fn  Func // with the binary heap
	arg uint64
	at  time.Duration
	seq uint64
	pos int32 // index in the binary heap
}

// The kernel queues its events in a binary heap while few are pending, and
// in a radix heap (queue) while many are. Measured on sim.BenchmarkHold
// and the world benchmarks (docs/results/benchmarks.md), the radix heap
// wins from about a thousand pending events, where the heap's sifts miss
// the cache, and loses some 10% on a world of twenty, whose events it
// spreads over more cache lines. It switches at radixAbove pending events
// and back below heapBelow; the gap keeps a queue that hovers near one
// bound from switching at every event. Both order events the same way
// (time, then scheduling order), so the switch changes no run.
var radixAbove, heapBelow = 512, 128

// Kernel is a virtual-time event loop. Create one with New.
type Kernel struct {
	now     time.Duration
	seq     uint64 // events scheduled so far
	fired   uint64
	seed    uint64
	stopped bool

	radix bool        // q holds the events, else heap
	heap  []heapEntry // with !radix
	q     queue       // with radix
	slab  []event
	free  []int32
	// live has bit i set while slot i's event is pending. It is a bitmap
	// beside the slab so that the check a firing makes stays in the cache
	// at any queue length.
	live   []uint64
	queued int // events pending: queued and not cancelled
	dead   int // cancelled events still in q, skipped when they come out

	names        map[string]struct{}
	claimed      string    // the prefix of names not recorded (ClaimPrefix)
	claimedTaken bool      // a stream under it was taken
	smp          *Sampling // nil: the model's own distributions (sampling.go)

	trace *Recorder

	// watchAt is the count of fired events at which RunUntil next calls
	// watch; never, without a watch.
	watchAt    uint64
	watchEvery uint64
	watch      func() bool
}

// New returns a kernel at time zero whose random streams derive from seed.
func New(seed uint64) *Kernel {
	return &Kernel{seed: seed, q: newQueue(), names: make(map[string]struct{}), watchAt: math.MaxUint64}
}

// Watch makes RunUntil call fn after every n events it fires; when fn
// returns false, RunUntil stops as Stop makes it. It is how a run keeps to
// a budget: fn reads the kernel and the world, and changes nothing that
// decides the run, so a watched run fires the same events as another.
// The cost is one comparison per event.
func (k *Kernel) Watch(n uint64, fn func() bool) {
	if n == 0 || fn == nil {
		k.watchAt, k.watch = math.MaxUint64, nil
		return
	}
	k.watchEvery, k.watch = n, fn
	k.watchAt = k.fired + n
}

// Now is the current virtual (true) time.
func (k *Kernel) Now() time.Duration { return k.now }

// Seed is the run seed the kernel's random streams derive from.
func (k *Kernel) Seed() uint64 { return k.seed }

// Fired is the number of events executed so far.
func (k *Kernel) Fired() uint64 { return k.fired }

// Pending is the number of events waiting in the queue.
func (k *Kernel) Pending() int { return k.queued }

// Schedule arranges for fn(arg) to run at virtual time at. Scheduling in the
// past panics: it is always a bug in the caller, and clamping would hide it.
func (k *Kernel) Schedule(at time.Duration, fn Func, arg uint64) EventID {
	if at < k.now {
		panic(fmt.Sprintf("sim: event scheduled at %v, before now %v", at, k.now))
	}
	if fn == nil {
		panic("sim: Schedule with a nil callback")
	}
	var slot int32
	if n := len(k.free); n > 0 {
		slot = k.free[n-1]
		k.free = k.free[:n-1]
	} else {
		slot = int32(len(k.slab))
		k.slab = append(k.slab, event{})
		if int(slot)/64 == len(k.live) {
			k.live = append(k.live, 0)
		}
	}
	k.seq++
	k.live[slot/64] |= 1 << (slot % 64)
	k.queued++
	if k.radix {
		k.slab[slot] = event{at: at, arg: arg, seq: k.seq}
		k.q.push(entry{at: at, fn: fn, arg: arg, slot: slot})
	} else {
		k.slab[slot] = event{fn: fn, arg: arg, at: at, seq: k.seq}
		k.heapPush(at, k.seq, slot)
		if k.queued > radixAbove {
			k.toRadix()
		}
	}
	return EventID{seq: k.seq, slot: slot}
}

// toRadix moves the heap's events to the radix heap, in their order.
func (k *Kernel) toRadix() {
	slices.SortFunc(k.heap, func(a, b heapEntry) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	k.q.restart(k.now)
	for _, h := range k.heap {
		ev := &k.slab[h.slot]
		k.q.push(entry{at: h.at, fn: ev.fn, arg: ev.arg, slot: h.slot})
	}
	k.heap = k.heap[:0]
	k.radix = true
}

// toHeap moves the radix heap's pending events to the binary heap, and
// drops its cancelled ones. They come out in order, and an ordered array
// is a heap.
func (k *Kernel) toHeap() {
	for !k.q.empty() {
		e := k.q.pop()
		if !k.isLive(e.slot) {
			k.free = append(k.free, e.slot)
			continue
		}
		ev := &k.slab[e.slot]
		ev.fn, ev.pos = e.fn, int32(len(k.heap))
		k.heap = append(k.heap, heapEntry{at: e.at, seq: ev.seq, slot: e.slot})
	}
	k.dead = 0
	k.radix = false
}

// After schedules fn(arg) at Now()+d. A negative d panics like Schedule.
func (k *Kernel) After(d time.Duration, fn Func, arg uint64) EventID {
	return k.Schedule(k.now+d, fn, arg)
}

// Cancel stops a pending event. It reports whether the event was still
// pending; cancelling a fired, cancelled or zero ID does nothing.
//
// The binary heap removes the event at once. In the radix heap the event's
// entry stays where it is and is skipped when it comes out, and only then
// is its slot reused: removing it at once would need
// every entry's queue position kept in the slab, a write per entry moved,
// which cost more than the skips. When cancelled entries outnumber pending
// ones the queue drops them all, so a world that cancels far timers often
// keeps a queue proportional to its pending events.
func (k *Kernel) Cancel(id EventID) bool {
	if k.pending(id) == nil {
		return false
	}
	k.live[id.slot/64] &^= 1 << (id.slot % 64)
	k.queued--
	if !k.radix {
		k.removeAt(int(k.slab[id.slot].pos))
		k.free = append(k.free, id.slot)
		return true
	}
	k.dead++
	if k.dead > 64 && k.dead > k.queued {
		k.q.filter(k.keep)
		k.dead = 0
	}
	return true
}

// keep tells the queue's filter whether to keep e: yes if its event is
// pending; if not, its slot is freed with it.
func (k *Kernel) keep(e entry) bool {
	if k.isLive(e.slot) {
		return true
	}
	k.free = append(k.free, e.slot)
	return false
}

func (k *Kernel) isLive(slot int32) bool { return k.live[slot/64]&(1<<(slot%64)) != 0 }

// Scheduled reports whether id is still pending and, if so, when it fires.
func (k *Kernel) Scheduled(id EventID) (time.Duration, bool) {
	ev := k.pending(id)
	if ev == nil {
		return 0, false
	}
	return ev.at, true
}

// Arg returns the argument a pending event was scheduled with, so that a
// caller that keeps per-event state in a table indexed by the argument can
// free it on cancellation.
func (k *Kernel) Arg(id EventID) (uint64, bool) {
	ev := k.pending(id)
	if ev == nil {
		return 0, false
	}
	return ev.arg, true
}

// pending returns the event id names if it is still queued, else nil.
func (k *Kernel) pending(id EventID) *event {
	if id.seq == 0 || int(id.slot) >= len(k.slab) || !k.isLive(id.slot) {
		return nil
	}
	ev := &k.slab[id.slot]
	if ev.seq != id.seq {
		return nil
	}
	return ev
}

// Step fires the earliest pending event and reports whether there was one.
func (k *Kernel) Step() bool {
	if !k.radix {
		if len(k.heap) == 0 {
			return false
		}
		k.fireTop()
		return true
	}
	for k.queued > 0 {
		if k.fire(k.q.pop()) {
			k.maybeToHeap()
			return true
		}
	}
	return false
}

// fireTop runs the event at the top of the binary heap.
func (k *Kernel) fireTop() {
	top := k.heap[0]
	k.removeAt(0)
	ev := &k.slab[top.slot]
	fn, arg := ev.fn, ev.arg
	// fn is left for Schedule to overwrite: the callbacks are long-lived
	// bound methods, and clearing it cost a write barrier per event.
	k.free = append(k.free, top.slot)
	k.live[top.slot/64] &^= 1 << (top.slot % 64)
	k.queued--
	k.now = top.at
	k.fired++
	fn(arg)
}

// fire runs the radix heap's entry e, unless it was cancelled, and
// reports whether it ran. Either way e's slot is free again.
func (k *Kernel) fire(e entry) bool {
	k.free = append(k.free, e.slot)
	w, bit := &k.live[e.slot/64], uint64(1)<<(e.slot%64)
	if *w&bit == 0 {
		k.dead--
		return false
	}
	*w &^= bit
	k.queued--
	k.now = e.at
	k.fired++
	e.fn(e.arg)
	return true
}

// maybeToHeap goes back to the binary heap when few events are pending.
func (k *Kernel) maybeToHeap() {
	if k.radix && k.queued < heapBelow {
		k.toHeap()
	}
}

// Stop makes the running Run or RunUntil return after the current event.
func (k *Kernel) Stop() { k.stopped = true }

// Run fires events until the queue is empty or Stop is called.
func (k *Kernel) Run() {
	k.stopped = false
	for !k.stopped && k.Step() {
	}
}

// RunUntil fires every event due at or before t, then advances the clock to t
// (unless Stop was called first). Events scheduled exactly at t fire.
func (k *Kernel) RunUntil(t time.Duration) {
	if t < k.now {
		panic(fmt.Sprintf("sim: RunUntil(%v) before now %v", t, k.now))
	}
	k.stopped = false
	// Only while an event is pending: popping cancelled entries alone
	// could move the radix heap's last time past the clock (see queue).
	for !k.stopped && k.queued > 0 {
		if !k.radix {
			if k.heap[0].at > t {
				break
			}
			k.fireTop()
		} else {
			if e, _ := k.q.peek(); e.at > t {
				break
			}
			if !k.fire(k.q.pop()) {
				continue
			}
			k.maybeToHeap()
		}
		if k.fired >= k.watchAt {
			k.watchAt = k.fired + k.watchEvery
			if !k.watch() {
				k.stopped = true
			}
		}
	}
	if !k.stopped {
		k.now = t
	}
}
