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
	slot int32
	gen  uint32
}

// event is a slot in the kernel's slab. Slots are reused; gen tells a stale
// EventID from a live one.
type event struct {
	fn  Func
	arg uint64
	pos int32 // index in the heap, or -1 when not queued
	gen uint32
}

// entry is one heap element. The ordering key lives in the heap itself so
// that sift operations do not chase pointers into the slab.
type entry struct {
	at   time.Duration
	seq  uint64
	slot int32
}

func (a entry) before(b entry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// Kernel is a virtual-time event loop. Create one with New.
type Kernel struct {
	now     time.Duration
	seq     uint64
	fired   uint64
	seed    uint64
	stopped bool

	heap  []entry
	slab  []event
	free  []int32
	names map[string]struct{}
	smp   *Sampling // nil: the model's own distributions (sampling.go)

	trace *Recorder

	// watchAt is the count of fired events at which RunUntil next calls
	// watch; never, without a watch.
	watchAt    uint64
	watchEvery uint64
	watch      func() bool
}

// New returns a kernel at time zero whose random streams derive from seed.
func New(seed uint64) *Kernel {
	return &Kernel{seed: seed, names: make(map[string]struct{}), watchAt: math.MaxUint64}
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
func (k *Kernel) Pending() int { return len(k.heap) }

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
		k.slab = append(k.slab, event{})
		slot = int32(len(k.slab) - 1)
	}
	ev := &k.slab[slot]
	ev.fn = fn
	ev.arg = arg
	ev.gen++
	if ev.gen == 0 { // wrapped: skip the invalid generation
		ev.gen = 1
	}
	k.seq++
	i := len(k.heap)
	k.heap = append(k.heap, entry{at: at, seq: k.seq, slot: slot})
	k.up(i) // sets ev.pos
	return EventID{slot: slot, gen: ev.gen}
}

// After schedules fn(arg) at Now()+d. A negative d panics like Schedule.
func (k *Kernel) After(d time.Duration, fn Func, arg uint64) EventID {
	return k.Schedule(k.now+d, fn, arg)
}

// Cancel removes a pending event in O(log n). It reports whether the event
// was still pending; cancelling a fired, cancelled or zero ID does nothing.
func (k *Kernel) Cancel(id EventID) bool {
	ev := k.pending(id)
	if ev == nil {
		return false
	}
	k.removeAt(int(ev.pos))
	k.release(id.slot)
	return true
}

// Scheduled reports whether id is still pending and, if so, when it fires.
func (k *Kernel) Scheduled(id EventID) (time.Duration, bool) {
	ev := k.pending(id)
	if ev == nil {
		return 0, false
	}
	return k.heap[ev.pos].at, true
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
	if id.gen == 0 || int(id.slot) >= len(k.slab) {
		return nil
	}
	ev := &k.slab[id.slot]
	if ev.gen != id.gen || ev.pos < 0 {
		return nil
	}
	return ev
}

// Step fires the earliest pending event and reports whether there was one.
func (k *Kernel) Step() bool {
	if len(k.heap) == 0 {
		return false
	}
	top := k.heap[0]
	k.removeAt(0)
	ev := &k.slab[top.slot]
	fn, arg := ev.fn, ev.arg
	k.release(top.slot)
	k.now = top.at
	k.fired++
	fn(arg)
	return true
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
	for !k.stopped && len(k.heap) > 0 && k.heap[0].at <= t {
		k.Step()
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

func (k *Kernel) release(slot int32) {
	ev := &k.slab[slot]
	// fn is left for Schedule to overwrite: the callbacks are long-lived
	// bound methods, and clearing it cost a write barrier per event.
	ev.pos = -1
	k.free = append(k.free, slot)
}

// removeAt deletes heap element i, keeping the heap ordered.
func (k *Kernel) removeAt(i int) {
	// The caller releases the removed slot, which marks it unqueued.
	h := k.heap
	last := len(h) - 1
	k.heap = h[:last]
	if i < last {
		h[i] = h[last]
		if !k.down(i) { // down and up record the moved entry's position
			k.up(i)
		}
	}
}

func (k *Kernel) up(i int) {
	h := k.heap
	e := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(h[p]) {
			break
		}
		h[i] = h[p]
		k.slab[h[i].slot].pos = int32(i)
		i = p
	}
	h[i] = e
	k.slab[e.slot].pos = int32(i)
}

// down sifts element i towards the leaves and reports whether it moved.
func (k *Kernel) down(i0 int) bool {
	h := k.heap
	n := len(h)
	i := i0
	e := h[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h[r].before(h[l]) {
			c = r
		}
		if !h[c].before(e) {
			break
		}
		h[i] = h[c]
		k.slab[h[i].slot].pos = int32(i)
		i = c
	}
	h[i] = e
	k.slab[e.slot].pos = int32(i)
	return i > i0
}
