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
func (q *Queue[T]) Push(v T) {
	if q.n == len(q.buf) {
		grown := make([]T, max(4, 2*len(q.buf)))
		for i := range q.n {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = v
	q.n++
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
