package fifo

// Queue is a ring buffer of items of type T, first in, first out. The zero
// value is an empty queue ready for use.
type Queue[T any] struct {
	buf  []T // its length is 0 or a power of two, so indexes wrap by a mask
	head int // index in buf of the oldest item
	n    int // number of items
}

// Len is the number of items in the queue.
func (q *Queue[T]) Len() int { return q.n }

// Push adds v at the back of the queue, doubling the storage when it is full.
func (q *Queue[T]) Push(v T) { *q.PushSlot() = v }

// PushSlot adds a zero item at the back of the queue and returns it, for
// the caller to fill in place: a large item is then written once, not
// built and copied in. The pointer is good until the next push.
func (q *Queue[T]) PushSlot() *T {
	if q.n == len(q.buf) {
		grown := make([]T, max(4, 2*len(q.buf)))
		for i := range q.n {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	v := &q.buf[(q.head+q.n)&(len(q.buf)-1)] // zero: Pop and Drop clear what they vacate
	q.n++
	return v
}

// Pop removes and returns the item at the front of the queue. The caller
// checks Len first: popping an empty queue is a broken invariant and panics.
func (q *Queue[T]) Pop() T {
	if q.n == 0 {
		panic("fifo: broken invariant: Pop from an empty queue")
	}
	v := q.buf[q.head]
	var zero T
	q.buf[q.head] = zero // keep no reference to what was handed back
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return v
}

// Head is the oldest item, in place, for a caller that reads a large
// item where it lies and then drops it (Drop) instead of copying it out
// with Pop. The pointer is good until the queue next changes. It panics
// on an empty queue, like Pop.
func (q *Queue[T]) Head() *T {
	if q.n == 0 {
		panic("fifo: broken invariant: Head of an empty queue")
	}
	return &q.buf[q.head]
}

// Drop removes the oldest item, as Pop does, without returning it.
func (q *Queue[T]) Drop() {
	if q.n == 0 {
		panic("fifo: broken invariant: Drop from an empty queue")
	}
	var zero T
	q.buf[q.head] = zero // keep no reference to what was dropped
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
}

// Front returns the oldest item without removing it. It panics on an empty
// queue, like Pop.
func (q *Queue[T]) Front() T {
	if q.n == 0 {
		panic("fifo: broken invariant: Front of an empty queue")
	}
	return q.buf[q.head]
}

// Clear removes every item, keeping the storage for reuse.
func (q *Queue[T]) Clear() {
	clear(q.buf)
	q.head, q.n = 0, 0
}
