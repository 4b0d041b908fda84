package sim

import (
	"math"
	"math/bits"
	"slices"
	"time"
)

// entry is one queued event: the time and sequence number that order it,
// and its slab slot, which holds its callback. It has no pointers, so the
// queue's arrays are not scanned by the garbage collector and moving an
// entry needs no write barrier. An entry whose slot is no longer live is a
// cancelled event, left in place and skipped when it comes out.
type entry = heapEntry

func compareEntries(a, b entry) int {
	if a.before(b) {
		return -1
	}
	return 1
}

// queue is a timing wheel (a calendar queue, Brown 1988, with a
// power-of-two bucket width) for a long queue of events on integer time.
// Time is cut into ticks of 2^shift ns. The front holds the entries of the
// current tick cur, sorted, and is where events are taken from; the
// ring of buckets holds, unsorted, the entries of the next len(buckets)-1
// ticks, each in bucket tick mod len(buckets), a bitmap marking which are
// not empty; entries further out wait in over, a binary heap, until the
// wheel turns to their tick. Taking an event is then, on average, taking
// the next of a few sorted entries, and scheduling one is an append to a
// bucket: O(1) where a binary heap pays log2 N levels, most of them cache
// misses in a long queue.
//
// The wheel is sized for the queue (rebuild): about one bucket per entry,
// and a bucket width that puts four times the median time to an entry's
// event inside the ring, so that the front's buckets hold a few entries
// each and few entries wait in over. It is rebuilt when the queue grows or
// shrinks fourfold.
//
// Ties break by the entries' sequence numbers: a bucket is sorted by time,
// then sequence, when it becomes the front.
type queue struct {
	front []entry // tick <= cur, sorted from head
	head  int
	cur   int64 // the front's tick; buckets hold cur+1 .. cur+len(buckets)-1
	shift uint

	buckets [][]entry
	full    []uint64 // bit b set when buckets[b] is not empty
	inRing  int

	over []entry // binary heap by (at, seq): ticks from cur+len(buckets) on

	n       int     // entries queued, pending or cancelled
	scratch []entry // rebuild's gathering space
}

// minBuckets is the smallest ring; the kernel uses the wheel only above a
// few hundred pending events.
const minBuckets = 256

func newQueue() queue { return queue{} }

// empty reports whether no entry is queued, pending or cancelled.
func (q *queue) empty() bool { return q.n == 0 }

// restart makes an empty queue take entries from time now on.
func (q *queue) restart(now time.Duration) {
	if !q.empty() {
		panic("sim: restart of a queue that is not empty")
	}
	if q.buckets == nil {
		q.resize(minBuckets)
	}
	q.front, q.head = q.front[:0], 0
	q.cur = q.tick(now)
}

func (q *queue) tick(at time.Duration) int64 { return int64(at) >> q.shift }

// limit is the first tick past the ring (saturated: the ring may reach
// the end of time).
func (q *queue) limit() int64 {
	if nb := int64(len(q.buckets)); q.cur <= math.MaxInt64-nb {
		return q.cur + nb
	}
	return math.MaxInt64
}

// push queues e. Nothing is ever queued before the last entry taken.
func (q *queue) push(e entry) {
	q.place(e)
	q.n++
	if q.n > 2*len(q.buckets) {
		q.rebuild()
	}
}

// place puts e where its tick belongs.
func (q *queue) place(e entry) {
	t := q.tick(e.at)
	switch {
	case t <= q.cur:
		// The current tick (or, after a peek moved the front on, one
		// before it, which is still before everything else): insert in
		// order. e is the newest entry, so it goes after every entry at
		// its time; searching from the back finds that in one step when
		// the front's tick is short.
		i := len(q.front)
		for i > q.head && e.at < q.front[i-1].at {
			i--
		}
		q.front = slices.Insert(q.front, i, e)
	case t < q.limit():
		b := t & int64(len(q.buckets)-1)
		q.buckets[b] = append(q.buckets[b], e)
		q.full[b/64] |= 1 << (b % 64)
		q.inRing++
	default:
		q.overPush(e)
	}
}

// peek returns the earliest entry without removing it. It may turn the
// wheel to that entry's tick, which changes no order: an entry pushed
// afterwards at an earlier tick joins the front, in order.
func (q *queue) peek() (entry, bool) {
	if q.n == 0 {
		return entry{}, false
	}
	if q.head == len(q.front) {
		q.advance()
	}
	return q.front[q.head], true
}

// pop removes and returns the earliest entry; the queue must not be empty.
func (q *queue) pop() entry {
	if q.head == len(q.front) {
		q.advance()
	}
	e := q.front[q.head]
	q.head++
	q.n--
	switch {
	case q.head == len(q.front):
		q.front, q.head = q.front[:0], 0
	case q.head >= 1024 && 2*q.head >= len(q.front):
		// A chain of events at one tick never empties the front; shift
		// it down now and then so that it does not grow forever.
		n := copy(q.front, q.front[q.head:])
		q.front, q.head = q.front[:n], 0
	}
	if q.n < len(q.buckets)/8 && len(q.buckets) > minBuckets {
		q.rebuild()
	}
	return e
}

// advance turns the wheel to the next tick that has entries and makes its
// bucket the front. The front is empty and the queue is not.
func (q *queue) advance() {
	nb := int64(len(q.buckets))
	if q.inRing == 0 {
		// Only far entries: jump to the earliest one's tick.
		q.cur = q.tick(q.over[0].at) - 1
		q.pullOver()
	}
	// The next non-empty bucket after cur, going round the ring once.
	start := (q.cur + 1) & (nb - 1)
	b := q.nextFull(start)
	if b < 0 {
		b = q.nextFull(0)
	}
	q.cur += 1 + (b-start)&(nb-1)
	q.pullOver()
	// The bucket becomes the front and the front's array the empty
	// bucket: no entry is copied.
	q.front, q.buckets[b] = q.buckets[b], q.front[:0]
	q.head = 0
	q.full[b/64] &^= 1 << (b % 64)
	q.inRing -= len(q.front)
	sortEntries(q.front)
}

// nextFull is the first non-empty bucket from b on, or -1.
func (q *queue) nextFull(b int64) int64 {
	w := b / 64
	word := q.full[w] &^ (1<<(b%64) - 1)
	for {
		if word != 0 {
			return w*64 + int64(bits.TrailingZeros64(word))
		}
		w++
		if int(w) == len(q.full) {
			return -1
		}
		word = q.full[w]
	}
}

// pullOver moves the far entries whose tick the ring now reaches into it.
func (q *queue) pullOver() {
	limit := q.limit()
	for len(q.over) > 0 && q.tick(q.over[0].at) < limit {
		e := q.overPop()
		b := q.tick(e.at) & int64(len(q.buckets)-1)
		q.buckets[b] = append(q.buckets[b], e)
		q.full[b/64] |= 1 << (b % 64)
		q.inRing++
	}
}

// sortEntries sorts es by time, then sequence: by insertion while short,
// as a bucket usually is.
func sortEntries(es []entry) {
	if len(es) > 12 {
		slices.SortFunc(es, compareEntries)
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

func (q *queue) overPush(e entry) {
	q.over = append(q.over, e)
	h := q.over
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (q *queue) overPop() entry {
	h := q.over
	top := h[0]
	last := len(h) - 1
	e := h[last]
	h = h[:last]
	q.over = h
	if last > 0 {
		q.overDown(0, e)
	}
	return top
}

// overDown puts e at position i of over and sifts it down.
func (q *queue) overDown(i int, e entry) {
	h := q.over
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r].before(h[c]) {
			c = r
		}
		if !h[c].before(e) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
}

// rebuild sizes the wheel for the entries it holds: a ring of about one
// bucket per entry, and a bucket width that puts four times the median
// time from the earliest entry to an entry inside the ring. Sizes change
// only when the queue has grown or shrunk fourfold, so a steady queue
// allocates nothing.
func (q *queue) rebuild() {
	all := q.gather()
	nb := minBuckets
	for nb < len(all) {
		nb *= 2
	}
	if len(all) == 0 {
		// Emptied at once (the kernel dropped its cancelled entries).
		q.resize(nb)
		q.front, q.head, q.over, q.inRing = q.front[:0], 0, q.over[:0], 0
		return
	}
	// The median distance from the earliest entry, from a sample.
	first := all[0].at
	for i := range all {
		first = min(first, all[i].at)
	}
	const samples = 63
	var d [samples]time.Duration
	k := 0
	for i := 0; i < samples && i < len(all); i++ {
		d[k] = all[i*len(all)/min(samples, len(all))].at - first
		k++
	}
	slices.Sort(d[:k])
	width := uint64(d[k/2]) / uint64(nb) * 4
	q.shift = uint(bits.Len64(width))
	if len(q.buckets) != nb {
		q.resize(nb)
	}
	q.front, q.head, q.over, q.inRing = q.front[:0], 0, q.over[:0], 0
	q.cur = q.tick(first) - 1
	for _, e := range all {
		q.place(e)
	}
}

// gather moves every entry into q.scratch, which it returns, emptying the
// front, ring and far heap (their arrays are kept).
func (q *queue) gather() []entry {
	all := append(q.scratch[:0], q.front[q.head:]...)
	for w, word := range q.full {
		for word != 0 {
			b := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			all = append(all, q.buckets[b]...)
			q.buckets[b] = q.buckets[b][:0]
		}
		q.full[w] = 0
	}
	all = append(all, q.over...)
	q.scratch = all
	return all
}

// resize gives the wheel an empty ring of nb buckets.
// Each bucket starts with room for bucketRoom entries, cut from one
// array: the ring's entries lie in tick order in memory, and a ring that
// settles allocates nothing more (a bucket that outgrows its room gets an
// array of its own).
func (q *queue) resize(nb int) {
	q.buckets = make([][]entry, nb)
	q.full = make([]uint64, nb/64)
	room := make([]entry, nb*bucketRoom)
	for b := range q.buckets {
		q.buckets[b] = room[b*bucketRoom : b*bucketRoom : (b+1)*bucketRoom]
	}
}

const bucketRoom = 4

// filter keeps, in order, the entries live reports true for. It is how
// the kernel drops cancelled entries when they outnumber the live ones.
func (q *queue) filter(live func(entry) bool) {
	keep := func(es []entry) []entry {
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
	q.inRing = 0
	for w, word := range q.full {
		for word != 0 {
			b := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			q.buckets[b] = keep(q.buckets[b])
			if len(q.buckets[b]) == 0 {
				q.full[w] &^= 1 << (b % 64)
			}
			q.inRing += len(q.buckets[b])
		}
	}
	q.over = keep(q.over)
	for i := len(q.over)/2 - 1; i >= 0; i-- {
		q.overDown(i, q.over[i])
	}
	q.n = len(q.front) + q.inRing + len(q.over)
}
