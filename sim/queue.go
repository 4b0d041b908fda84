package sim

import (
	"math"
	"math/bits"
	"slices"
	"time"
)

// The calendar queue holds the 4-ary heap's 16-byte entries: the time
// and the key, whose sequence number breaks ties. A queued event's
// callback stays in the kernel's calls, read when it fires. An entry whose
// slot is no longer live is a cancelled event, left in place and skipped
// when it comes out.

// slot is the kernel's slot of the event e queues.
func (e heapEntry) slot() int32 { return int32(e.key & slotMask) }

// queue is a calendar queue (Brown, CACM 1988) for the kernel's long
// queues, its buckets 2^shift ns of virtual time wide (a tick):
//
//   - front holds, sorted, the entries of the current tick cur (and any
//     earlier: see peek), and pops from head;
//   - ring holds the next ticks' entries, unsorted, one bucket per tick
//     from cur+1 to horizon-1 (fewer than len(ring)), so a bucket's index
//     names one tick; full marks the buckets that are not empty;
//   - far holds, unsorted, every entry from tick horizon on.
//
// A push is an append to the bucket of its tick (or a sorted insertion
// when it is the current tick's); a pop takes front's next entry, and when
// front is empty, the next full bucket becomes front and is sorted. When
// cur has crossed half the ring, horizon moves a whole ring ahead of cur
// and far's entries before it move into the ring. Each entry is thus
// written about twice (three times if it waited in far), and a push
// touches one bucket's tail. At a hundred thousand events a binary heap's
// sifts miss the cache at its lower levels; the ring stays at most
// maxRing buckets long, so that its headers (24 bytes each) and the
// buckets' tails stay in the cache, with more entries a bucket instead:
// a ring of one or two entries a bucket at that length measured 1.5 times
// the bare heap's time (docs/results/benchmarks.md).
//
// The queue sizes itself: when it has grown or shrunk fourfold, or far
// holds more than half its entries, or the current tick's bucket is
// crowded, it is rebuilt with about density entries a bucket and a ring
// spanning nine tenths of its entries (rebuild). Ties break by sequence
// number, which every comparison includes.
type queue struct {
	now     time.Duration // the last time popped (or restarted at): no entry is pushed before it
	n       int           // entries held, cancelled ones included
	shift   uint          // a tick is 1<<shift ns
	mask    uint64        // len(ring) - 1
	cur     uint64        // the tick of front
	horizon uint64        // the first tick of far
	front   []heapEntry   // sorted, from head
	head    int
	ring    [][]heapEntry
	full    []uint64 // bit i set: ring[i] is not empty
	far     []heapEntry
	farMin  time.Duration // the earliest time in far, when far is not empty

	// lo and hi are the counts outside which the queue is rebuilt;
	// calm is the number of pops before a crowded bucket or a full far
	// may rebuild it again, so that a queue no width suits (every event
	// at one instant) is not rebuilt over and over.
	lo, hi  int
	calm    int
	per     int // entries a bucket holds on average, as built
	scratch []heapEntry

	// fresh is set when advance has filled front: the kernel then reads
	// ahead the callbacks the front's events will need (Kernel.warm).
	fresh bool
}

// warmAbove is the queue length above which the kernel reads a front's
// callbacks ahead (Kernel.warm). Below it the callbacks (32 bytes an
// event) fit in the cache beside the queue, and the reads would only
// cost instructions.
const warmAbove = 1 << 14

// density is the mean number of entries a bucket holds in a freshly
// built ring up to maxRing buckets (more past it); minRing the fewest
// buckets (a whole number of full's words). Measured on the hold
// benchmark at 1,000 events: 1, 2, 4 and 8 entries a bucket cost 0.63,
// 0.53, 0.61 and 0.81 times the bare heap.
const (
	density = 2
	minRing = 64
	maxRing = 8192
)

func newQueue() queue {
	q := queue{shift: 10, per: density}
	q.size(minRing)
	return q
}

// size makes the ring nb buckets long (a power of two, at least minRing),
// keeping the buckets' arrays for reuse.
func (q *queue) size(nb int) {
	if cap(q.ring) >= nb {
		q.ring = q.ring[:nb]
	} else {
		q.ring = append(q.ring[:cap(q.ring)], make([][]heapEntry, nb-cap(q.ring))...)
	}
	if cap(q.full) >= nb/64 {
		q.full = q.full[:nb/64]
	} else {
		q.full = make([]uint64, nb/64)
	}
	q.mask = uint64(nb - 1)
	q.hi = 4 * density * nb
	q.lo = density * nb / 4
	if nb == minRing {
		q.lo = 0
	}
	if nb >= maxRing {
		q.hi = math.MaxInt
	}
}

// empty reports whether no entry is queued, pending or cancelled.
func (q *queue) empty() bool { return q.n == 0 }

// restart makes an empty queue take entries from time now on (the queue's
// time may have passed now while the kernel drained it).
func (q *queue) restart(now time.Duration) {
	if !q.empty() {
		panic("sim: restart of a queue that is not empty")
	}
	q.now = now
	q.front, q.head = q.front[:0], 0
	q.cur = uint64(now) >> q.shift
	q.horizon = q.cur + q.mask + 1
}

// push queues e. e.at must not be before the last time popped: the
// kernel refuses to schedule in the past.
func (q *queue) push(e heapEntry) {
	q.n++
	t := uint64(e.at) >> q.shift
	switch {
	case t <= q.cur:
		q.insertFront(e)
	case t < q.horizon:
		i := t & q.mask
		q.ring[i] = append(q.ring[i], e)
		q.full[i/64] |= 1 << (i % 64)
	default:
		if len(q.far) == 0 || e.at < q.farMin {
			q.farMin = e.at
		}
		q.far = append(q.far, e)
	}
}

// insertFront puts e in its place in front. The search runs from the
// back: a new entry is usually the latest of its tick.
func (q *queue) insertFront(e heapEntry) {
	f := q.front
	i := len(f)
	for i > q.head && e.before(f[i-1]) {
		i--
	}
	f = append(f, heapEntry{})
	copy(f[i+1:], f[i:])
	f[i] = e
	q.front = f
}

// peek returns the earliest entry without removing it. It may move cur
// past the kernel's clock (a RunUntil that stops short of the entry);
// what is pushed from then on at earlier ticks goes into front, in order.
func (q *queue) peek() (heapEntry, bool) {
	if q.n == 0 {
		return heapEntry{}, false
	}
	if q.head == len(q.front) {
		q.advance()
	}
	return q.front[q.head], true
}

// pop removes and returns the earliest entry; the queue must not be empty.
func (q *queue) pop() heapEntry {
	if q.head == len(q.front) {
		q.advance()
	}
	e := q.front[q.head]
	q.head++
	q.n--
	q.now = e.at
	switch {
	case q.head == len(q.front):
		q.front, q.head = q.front[:0], 0
	case q.head >= 1024 && 2*q.head >= len(q.front):
		// A chain of events at one instant never empties the front;
		// shift it down now and then so that it does not grow forever.
		n := copy(q.front, q.front[q.head:])
		q.front, q.head = q.front[:n], 0
	}
	return e
}

// advance makes the next full bucket the front; front must be empty and
// the queue not.
func (q *queue) advance() {
	if q.calm > 0 {
		q.calm--
	}
	if q.n > q.hi || q.n < q.lo {
		q.rebuild()
	}
	q.fresh = q.n > warmAbove
	// A rebuild (here, or in migrate) may leave front empty again.
	for q.head == len(q.front) {
		t, ok := q.nextTick()
		if !ok {
			// The ring is empty: jump to far's earliest tick.
			q.cur = uint64(q.farMin)>>q.shift - 1
			q.migrate()
			continue
		}
		i := t & q.mask
		q.cur = t
		// Copied, not swapped with front's array: a swap passes arrays
		// between buckets, and one too short for its new bucket grows,
		// garbage for the collector.
		q.front = append(q.front[:0], q.ring[i]...)
		q.ring[i] = q.ring[i][:0]
		q.full[i/64] &^= 1 << (i % 64)
		sortEntries(q.front)
		if 2*(q.horizon-q.cur) <= q.mask+1 {
			q.migrate()
		}
		if len(q.front) > 16*q.per && q.calm == 0 {
			// The width is too coarse for how the events are spread
			// now.
			q.rebuild()
		}
	}
}

// nextTick finds the earliest full bucket's tick.
func (q *queue) nextTick() (uint64, bool) {
	start := (q.cur + 1) & q.mask
	w := int(start / 64)
	word := q.full[w] &^ (1<<(start%64) - 1)
	for range len(q.full) + 1 {
		if word != 0 {
			i := uint64(w*64 + bits.TrailingZeros64(word))
			return q.cur + 1 + (i-start)&q.mask, true
		}
		w++
		if w == len(q.full) {
			w = 0
		}
		word = q.full[w]
	}
	return 0, false
}

// migrate moves horizon a ring ahead of cur and far's entries before it
// into the ring, in far's order. Their buckets were empty: they were at or
// past the old horizon.
func (q *queue) migrate() {
	q.horizon = q.cur + q.mask + 1
	if len(q.far) == 0 || uint64(q.farMin)>>q.shift >= q.horizon {
		return
	}
	keep, least := q.far[:0], time.Duration(math.MaxInt64)
	for _, e := range q.far {
		if t := uint64(e.at) >> q.shift; t < q.horizon {
			i := t & q.mask
			q.ring[i] = append(q.ring[i], e)
			q.full[i/64] |= 1 << (i % 64)
		} else {
			keep = append(keep, e)
			least = min(least, e.at)
		}
	}
	q.far, q.farMin = keep, least
	if 2*len(keep) > q.n && q.calm == 0 {
		// The ring is too short for how far ahead the events are.
		q.rebuild()
	}
}

// sortEntries sorts a bucket: by insertion while it is short, as it
// usually is.
func sortEntries(es []heapEntry) {
	if len(es) > 32 {
		slices.SortFunc(es, func(a, b heapEntry) int {
			if a.before(b) {
				return -1
			}
			return 1
		})
		return
	}
	for i := 1; i < len(es); i++ {
		e := es[i]
		j := i
		for j > 0 && e.before(es[j-1]) {
			es[j] = es[j-1]
			j--
		}
		es[j] = e
	}
}

// rebuild sizes the ring for the entries queued now: about density
// entries a bucket, and a width at which the ring spans nine tenths of
// them ahead of the queue's time.
func (q *queue) rebuild() {
	all := q.collect()
	nb := minRing
	for nb*density < len(all) && nb < maxRing {
		nb *= 2
	}
	// A sample, deterministic and spread over the entries (which
	// collect leaves roughly in time order), of how far ahead they are.
	// The span is measured from the sample's earliest, not the queue's
	// time: after a gap with no events, the gap would make it too wide.
	var ahead [128]time.Duration
	m := min(len(all), len(ahead))
	for j := range m {
		ahead[j] = all[j*len(all)/m].at
	}
	slices.Sort(ahead[:m])
	span := uint64(1)
	if m > 0 {
		span = max(1, uint64(ahead[m*9/10]-ahead[0]))
	}
	// The width: the power of two nearest span/nb.
	w := span / uint64(nb)
	shift := uint(0)
	if w > 0 {
		shift = uint(bits.Len64(w) - 1)
		if w-1<<shift > 1<<shift/2 {
			shift++
		}
	}
	q.shift = shift
	q.per = max(density, len(all)/nb)
	q.size(nb)
	q.n = 0
	q.restart(q.now)
	for _, e := range all {
		q.n++
		t := uint64(e.at) >> q.shift
		if t <= q.cur {
			q.front = append(q.front, e)
			continue
		}
		q.n--
		q.push(e)
	}
	sortEntries(q.front)
	q.scratch = all[:0]
	q.calm = len(all)
}

// collect empties the queue into scratch, front first, then the ring from
// the next tick on, then far, and returns it.
func (q *queue) collect() []heapEntry {
	all := append(q.scratch[:0], q.front[q.head:]...)
	q.front, q.head = q.front[:0], 0
	for t := q.cur + 1; t < q.horizon && len(all) < q.n; t++ {
		i := t & q.mask
		if q.full[i/64]&(1<<(i%64)) != 0 {
			all = append(all, q.ring[i]...)
			q.ring[i] = q.ring[i][:0]
		}
	}
	clear(q.full)
	all = append(all, q.far...)
	q.far = q.far[:0]
	return all
}

// filter keeps, in order, the entries live reports true for. It is how
// the kernel drops cancelled entries when they outnumber the live ones.
func (q *queue) filter(live func(heapEntry) bool) {
	keep := func(es []heapEntry) []heapEntry {
		n := 0
		for _, e := range es {
			if live(e) {
				es[n] = e
				n++
			}
		}
		return es[:n]
	}
	n := copy(q.front, q.front[q.head:])
	q.front, q.head = keep(q.front[:n]), 0
	q.n = len(q.front)
	for i := range q.ring {
		if q.full[i/64]&(1<<(i%64)) == 0 {
			continue
		}
		q.ring[i] = keep(q.ring[i])
		q.n += len(q.ring[i])
		if len(q.ring[i]) == 0 {
			q.full[i/64] &^= 1 << (i % 64)
		}
	}
	q.far = keep(q.far)
	q.n += len(q.far)
	q.farMin = math.MaxInt64
	for _, e := range q.far {
		q.farMin = min(q.farMin, e.at)
	}
}
