package sim

import (
	"fmt"
	"math"
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

// callback is a slot's event: what firing it reads (fn and arg), and,
// while the calendar queue holds the events, what Cancel and Scheduled
// read (at and seq; the 4-ary heap's entry holds them otherwise). They
// share a line: the slot a firing frees is the one its callback's
// Schedule takes next (free is last in, first out), so the line Kernel.warm
// brought in for the firing is the line Schedule writes. In a slab of its
// own, at and seq cost a write miss per event in a long queue: merged,
// the hold benchmark at 100,000 events took 0.66 of the time against 0.75
// (docs/results/benchmarks.md).
type callback struct {
	fn  Func
	arg uint64
	at  time.Duration
	seq uint64
}

// The kernel queues its events in a 4-ary heap while few are pending, and
// in a calendar queue (queue) while many are. Measured on sim.BenchmarkHold
// (docs/results/benchmarks.md), the heap is the faster for a few dozen
// events; from a few hundred the calendar's pushes and pops cost about
// the same at any length, where the heap's sifts grow with it and, at a
// hundred thousand, miss the cache at every level. It switches at
// calendarAbove pending events and back below heapBelow; the gap keeps a
// queue that hovers near one bound from switching at every event. Both
// order events the same way (time, then scheduling order), so the switch
// changes no run.
var calendarAbove, heapBelow = 256, 64

// Kernel is a virtual-time event loop. Create one with New.
type Kernel struct {
	now     time.Duration
	seq     uint64 // events scheduled so far
	fired   uint64
	seed    uint64
	stopped bool

	calendar bool        // q holds the events, else heap
	heap     []heapEntry // with !calendar: a 4-ary heap (heap.go)
	// firing is set while an event's callback runs and its entry is
	// still the heap's root: the first event the callback schedules
	// takes the root's place, one sift down instead of a pop's and a
	// push's. Most callbacks schedule an event, and a world's is
	// usually near (a message's delivery), so that sift is short, where
	// a pop's moves the heap's last entry, usually a far one, all the
	// way down.
	firing bool
	// calls[s] and pos[s] are slot s's callback and its index in heap;
	// a slot whose event fired or was cancelled keeps a stale pos, which
	// pending tells from a live one by the heap entry's key.
	calls []callback
	pos   []int32
	free  []int32

	// With calendar: q holds the events (their callbacks stay in calls); live has
	// bit s set while slot s's event is pending, a bitmap so that the
	// check a firing makes stays in the cache at any queue length.
	q      queue
	live   []uint64
	queued int    // with calendar: events pending, queued and not cancelled
	dead   int    // with calendar: cancelled events still in q, skipped when they come out
	sink   uint64 // what warm read (see there)

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
	return &Kernel{seed: seed, heap: make([]heapEntry, root), q: newQueue(), names: make(map[string]struct{}), watchAt: math.MaxUint64}
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
func (k *Kernel) Pending() int {
	if k.calendar {
		return k.queued
	}
	if k.firing {
		return len(k.heap) - root - 1
	}
	return len(k.heap) - root
}

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
		if len(k.calls) > maxSlot {
			panic(fmt.Sprintf("sim: more than %d events pending", maxSlot+1))
		}
		slot = int32(len(k.calls))
		k.calls = append(k.calls, callback{})
		k.pos = append(k.pos, 0)
		if int(slot)/64 == len(k.live) {
			k.live = append(k.live, 0)
		}
	}
	k.seq++
	if k.seq > maxSeq {
		panic(fmt.Sprintf("sim: more than %d events scheduled in one run", maxSeq))
	}
	c := &k.calls[slot]
	c.fn, c.arg = fn, arg
	if k.calendar {
		c.at, c.seq = at, k.seq
		w, bit := k.liveBit(slot)
		*w |= bit
		k.queued++
		k.q.push(heapEntry{at: at, key: k.seq<<slotBits | uint64(slot)})
		return EventID{seq: k.seq, slot: slot}
	}
	e := heapEntry{at: at, key: k.seq<<slotBits | uint64(slot)}
	if k.firing {
		k.firing = false
		k.down(root, e)
	} else {
		k.push(e)
		if len(k.heap)-root > calendarAbove {
			k.toCalendar()
		}
	}
	return EventID{seq: k.seq, slot: slot}
}

// toCalendar moves the heap's events to the calendar queue.
// An event is firing only when its callback has scheduled nothing yet, and
// then Schedule takes the root instead of growing the heap: none is.
func (k *Kernel) toCalendar() {
	es := k.heap[root:]
	k.q.restart(k.now)
	for _, h := range es {
		slot := int32(h.key & slotMask)
		c := &k.calls[slot]
		c.at, c.seq = h.at, h.key>>slotBits
		w, bit := k.liveBit(slot)
		*w |= bit
		k.q.push(h)
	}
	k.queued = len(es)
	k.heap = k.heap[:root]
	k.calendar = true
}

// toHeap moves the calendar queue's pending events to the 4-ary heap, and
// drops its cancelled ones. They come out in order, and an ordered array
// is a heap.
func (k *Kernel) toHeap() {
	for !k.q.empty() {
		e := k.q.pop()
		slot := e.slot()
		if !k.isLive(slot) {
			k.free = append(k.free, slot)
			continue
		}
		w, bit := k.liveBit(slot)
		*w &^= bit
		k.pos[slot] = int32(len(k.heap))
		k.heap = append(k.heap, e)
	}
	k.queued, k.dead = 0, 0
	k.calendar = false
}

// After schedules fn(arg) at Now()+d. A negative d panics like Schedule.
func (k *Kernel) After(d time.Duration, fn Func, arg uint64) EventID {
	return k.Schedule(k.now+d, fn, arg)
}

// Cancel stops a pending event. It reports whether the event was still
// pending; cancelling a fired, cancelled or zero ID does nothing.
//
// The 4-ary heap removes the event at once. In the calendar queue the event's
// entry stays where it is and is skipped when it comes out, and only then
// is its slot reused: removing it at once would need every entry's queue
// position kept, a write per entry moved, which cost more than the skips.
// When cancelled entries outnumber pending ones the queue drops them all,
// so a world that cancels far timers often keeps a queue proportional to
// its pending events.
func (k *Kernel) Cancel(id EventID) bool {
	i, ok := k.pending(id)
	if !ok {
		return false
	}
	if !k.calendar {
		k.removeAt(i)
		k.free = append(k.free, id.slot)
		return true
	}
	w, bit := k.liveBit(id.slot)
	*w &^= bit
	k.queued--
	k.dead++
	if k.dead > 64 && k.dead > k.queued {
		k.q.filter(k.keep)
		k.dead = 0
	}
	return true
}

// keep tells the queue's filter whether to keep e: yes if its event is
// pending; if not, its slot is freed with it.
func (k *Kernel) keep(e heapEntry) bool {
	if k.isLive(e.slot()) {
		return true
	}
	k.free = append(k.free, e.slot())
	return false
}

func (k *Kernel) isLive(slot int32) bool {
	w, bit := k.liveBit(slot)
	return *w&bit != 0
}

// liveBit returns the word of live that holds slot's bit, and the bit.
// Slots are never negative; the division and remainder are unsigned
// because a signed one needs a fix-up for negatives, which made setting
// and clearing the bit a sixth of Schedule's instructions (callgrind).
func (k *Kernel) liveBit(slot int32) (*uint64, uint64) {
	u := uint32(slot)
	return &k.live[u/64], 1 << (u % 64)
}

// Scheduled reports whether id is still pending and, if so, when it fires.
func (k *Kernel) Scheduled(id EventID) (time.Duration, bool) {
	i, ok := k.pending(id)
	if !ok {
		return 0, false
	}
	if k.calendar {
		return k.calls[id.slot].at, true
	}
	return k.heap[i].at, true
}

// Arg returns the argument a pending event was scheduled with, so that a
// caller that keeps per-event state in a table indexed by the argument can
// free it on cancellation.
func (k *Kernel) Arg(id EventID) (uint64, bool) {
	if _, ok := k.pending(id); !ok {
		return 0, false
	}
	return k.calls[id.slot].arg, true
}

// pending reports whether the event id names is still queued, and with
// the 4-ary heap, its index there. A slot's pos goes stale when its event leaves the queue; the
// entry there then has another key, since keys hold the unique sequence.
// The root of a firing event is no longer pending; it stays the root
// while the others are cancelled, as it is earlier than all of them.
func (k *Kernel) pending(id EventID) (int, bool) {
	if id.seq == 0 || int(id.slot) >= len(k.pos) {
		return 0, false
	}
	if k.calendar {
		return 0, k.isLive(id.slot) && k.calls[id.slot].seq == id.seq
	}
	i := int(k.pos[id.slot])
	if i >= len(k.heap) || k.heap[i].key != id.seq<<slotBits|uint64(id.slot) || i == root && k.firing {
		return 0, false
	}
	return i, true
}

// Step fires the earliest pending event and reports whether there was one.
func (k *Kernel) Step() bool {
	k.settle()
	if !k.calendar {
		if len(k.heap) == root {
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

// fire runs the calendar queue's entry e, unless it was cancelled, and
// reports whether it ran. Either way e's slot is free again.
func (k *Kernel) fire(e heapEntry) bool {
	if k.q.fresh {
		k.warm()
	}
	slot := e.slot()
	k.free = append(k.free, slot)
	w, bit := k.liveBit(slot)
	if *w&bit == 0 {
		k.dead--
		return false
	}
	*w &^= bit
	k.queued--
	k.now = e.at
	k.fired++
	c := k.calls[slot]
	c.fn(c.arg)
	return true
}

// warm reads the callback of every event in the calendar queue's new
// front, so that each is in the cache when its event fires. In a long
// queue the callbacks are larger than the cache and an event's is
// anywhere in them: read one at a time as the events fire, each read was
// a miss that stalled its firing; read here together, independent of
// one another, the misses overlap. At 100,000 pending events this took
// the hold benchmark from about 0.9 to 0.7 times the bare heap's time
// (docs/results/benchmarks.md). The sum is kept only so that the
// compiler keeps the reads.
func (k *Kernel) warm() {
	k.q.fresh = false
	var sum uint64
	for _, e := range k.q.front[k.q.head:] {
		sum += k.calls[e.slot()].arg
	}
	k.sink = sum
}

// maybeToHeap goes back to the 4-ary heap when few events are pending.
func (k *Kernel) maybeToHeap() {
	if k.calendar && k.queued < heapBelow {
		k.toHeap()
	}
}

// fireTop runs the earliest event. Its entry leaves the heap when the
// callback schedules its first event (see firing) or returns.
func (k *Kernel) fireTop() {
	top := k.heap[root]
	slot := int32(top.key & slotMask)
	c := k.calls[slot]
	// fn is left for Schedule to overwrite: the callbacks are long-lived
	// bound methods, and clearing it cost a write barrier per event.
	k.free = append(k.free, slot)
	k.now = top.at
	k.fired++
	k.firing = true
	c.fn(c.arg)
	k.settle()
}

// settle takes a fired event's entry out of the root, if it is still
// there: after its callback, or before a callback that runs the kernel
// itself (Step inside an event) fires anything.
func (k *Kernel) settle() {
	if k.firing {
		k.firing = false
		k.removeAt(root)
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
	k.settle()
	for !k.stopped {
		if !k.calendar {
			if len(k.heap) == root || k.heap[root].at > t {
				break
			}
			k.fireTop()
		} else {
			// Only while an event is pending: the queue may hold
			// cancelled entries alone, and firing one is no step.
			if k.queued == 0 {
				break
			}
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
