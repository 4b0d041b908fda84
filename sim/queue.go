package sim

import (
	"math/bits"
	"time"
)

// entry is one queued event. It carries its callback and argument, not
// only its slab slot, so that firing an event does not read the slab: in a
// long queue the slab is larger than the cache, and that read was a miss
// per event. An entry whose slot is no longer live is a cancelled event,
// left in place and skipped when it comes out.
type entry struct {
	at   time.Duration
	fn   Func
	arg  uint64
	slot int32
}

// queue is a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, 1990) of
// entries keyed by their integer time. It relies on what the kernel
// guarantees: nothing is ever queued before the last time popped. An entry
// lives in the bucket numbered by the highest bit in which its time
// differs from last, so a bucket's entries all come out before the next
// bucket's; popping empties the lowest bucket into the buckets below it,
// around its smallest time, and each entry moves down at most 64 times in
// all, and in practice about log2 of the queue's length, in sequential
// sweeps over arrays rather than a binary heap's jumps (which, in a long
// queue, miss the cache at the lower levels). A bucket's array keeps its
// capacity when it empties: no allocation in a steady state, at the price
// of memory that, in a long queue, grows to a few times the queue's
// longest length (each bucket above the span of times the queue holds
// fills when last crosses its bit).
//
// Ties break by insertion order without storing a sequence number: every
// bucket is kept in insertion order. A push appends the newest entry, and
// a pop redistributes the lowest bucket, in its order, only into buckets
// that are empty (they are below the lowest non-empty one), so each keeps
// its order. The smallest time of a bucket is therefore taken at its first
// occurrence, and entries at equal times reach the front in the order they
// were scheduled.
type queue struct {
	last time.Duration
	// atLast holds the entries at time last, the front of the queue, in
	// insertion order from head.
	atLast []entry
	head   int
	// buckets[b] holds the entries whose time differs from last first in
	// bit b; bit b of full is set when it is not empty.
	buckets [64][]entry
	full    uint64
	// minB, minI locate the earliest entry of the lowest bucket (minB < 0:
	// not known). peek finds it without popping, so that last never passes
	// the kernel's clock: a RunUntil that stops short of an event leaves
	// the queue able to take anything scheduled from then on.
	minB, minI int
}

func newQueue() queue { return queue{minB: -1} }

// empty reports whether no entry is queued, pending or cancelled.
func (q *queue) empty() bool { return q.head >= len(q.atLast) && q.full == 0 }

// restart makes an empty queue take entries from time now on (last may
// have passed now while the kernel drained the queue).
func (q *queue) restart(now time.Duration) {
	if !q.empty() {
		panic("sim: restart of a queue that is not empty")
	}
	q.last, q.atLast, q.head, q.minB = now, q.atLast[:0], 0, -1
}

// bucket is where an entry at time at belongs: -1 for the front.
func (q *queue) bucket(at time.Duration) int {
	return bits.Len64(uint64(at^q.last)) - 1
}

// push queues e; e.at must not be before the last time popped.
func (q *queue) push(e entry) {
	b := q.bucket(e.at)
	if b < 0 {
		q.atLast = append(q.atLast, e)
		return
	}
	q.buckets[b] = append(q.buckets[b], e)
	q.full |= 1 << b
	// Keep the known minimum known: an entry below its bucket is the
	// new minimum; one in its bucket is if strictly earlier (at an
	// equal time it was scheduled later).
	if q.minB >= 0 && b <= q.minB {
		if b < q.minB || e.at < q.buckets[b][q.minI].at {
			q.minB, q.minI = b, len(q.buckets[b])-1
		}
	}
}

// peek returns the earliest entry without removing it.
func (q *queue) peek() (entry, bool) {
	if q.head < len(q.atLast) {
		return q.atLast[q.head], true
	}
	if q.full == 0 {
		return entry{}, false
	}
	if q.minB < 0 {
		q.findMin()
	}
	return q.buckets[q.minB][q.minI], true
}

// findMin locates the first occurrence of the smallest time in the lowest
// non-empty bucket.
func (q *queue) findMin() {
	b := bits.TrailingZeros64(q.full)
	es := q.buckets[b]
	m := 0
	for i := 1; i < len(es); i++ {
		if es[i].at < es[m].at {
			m = i
		}
	}
	q.minB, q.minI = b, m
}

// pop removes and returns the earliest entry; the queue must not be empty.
func (q *queue) pop() entry {
	if q.head >= len(q.atLast) {
		q.advance()
	}
	e := q.atLast[q.head]
	q.head++
	switch {
	case q.head == len(q.atLast):
		q.atLast, q.head = q.atLast[:0], 0
	case q.head >= 1024 && 2*q.head >= len(q.atLast):
		// A chain of events at one instant never empties the front;
		// shift it down now and then so that it does not grow forever.
		n := copy(q.atLast, q.atLast[q.head:])
		q.atLast, q.head = q.atLast[:n], 0
	}
	return e
}

// advance moves last to the smallest time queued and spreads the lowest
// bucket, in order, over the empty front and buckets below it.
func (q *queue) advance() {
	if q.minB < 0 {
		q.findMin()
	}
	b := q.minB
	es := q.buckets[b]
	q.last = es[q.minI].at
	q.atLast, q.head = q.atLast[:0], 0
	for _, e := range es {
		if c := q.bucket(e.at); c < 0 {
			q.atLast = append(q.atLast, e)
		} else {
			q.buckets[c] = append(q.buckets[c], e)
			q.full |= 1 << c
		}
	}
	q.buckets[b] = es[:0]
	q.full &^= 1 << b
	q.minB = -1
}

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
	q.atLast, q.head = keep(q.atLast[q.head:]), 0
	for b := range q.buckets {
		q.buckets[b] = keep(q.buckets[b])
		if len(q.buckets[b]) == 0 {
			q.full &^= 1 << b
		}
	}
	q.minB = -1
}
