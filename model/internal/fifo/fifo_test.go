package fifo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The queue hands items back in the order they were pushed, across growth
// and across the wrap of the ring.
func TestQueueIsFirstInFirstOut(t *testing.T) {
	var q Queue[int]
	next, want := 0, 0
	// Grow while wrapped: push 3, pop 2, repeatedly, so the head moves.
	for range 20 {
		for range 3 {
			q.Push(next)
			next++
		}
		for range 2 {
			require.Equal(t, want, q.Pop())
			want++
		}
		require.Equal(t, next-want, q.Len())
	}
	for q.Len() > 0 {
		require.Equal(t, want, q.Pop())
		want++
	}
	assert.Equal(t, next, want)
	assert.Equal(t, 0, q.Len())
}

// Pop clears the slot it vacates: the queue's storage keeps no popped item
// alive.
func TestPopClearsItsSlot(t *testing.T) {
	var q Queue[*int]
	a, b := new(int), new(int)
	q.Push(a)
	q.Push(b)
	require.Same(t, a, q.Pop())
	require.Same(t, b, q.Pop())
	for i, v := range q.buf {
		assert.Nil(t, v, "slot %d", i)
	}
}

func TestPopOnEmptyPanics(t *testing.T) {
	var q Queue[string]
	assert.PanicsWithValue(t, "fifo: broken invariant: Pop from an empty queue", func() { q.Pop() })
	q.Push("a")
	q.Pop()
	assert.Panics(t, func() { q.Pop() })
}

// A steady stream through a queue that has grown to its peak allocates
// nothing.
func TestSteadyStateDoesNotAllocate(t *testing.T) {
	var q Queue[string]
	for range 8 {
		q.Push("warm")
	}
	for q.Len() > 0 {
		q.Pop()
	}
	allocs := testing.AllocsPerRun(100, func() {
		for range 8 {
			q.Push("k")
		}
		for q.Len() > 0 {
			q.Pop()
		}
	})
	assert.Zero(t, allocs)
}

func BenchmarkPushPop(b *testing.B) {
	var q Queue[string]
	b.ReportAllocs()
	for b.Loop() {
		q.Push("k")
		q.Push("k")
		q.Pop()
		q.Pop()
	}
}

func TestFrontPeeksAndClearEmpties(t *testing.T) {
	var q Queue[*int]
	a, b := new(int), new(int)
	q.Push(a)
	q.Push(b)
	require.Same(t, a, q.Front())
	require.Equal(t, 2, q.Len(), "Front removes nothing")
	require.Same(t, a, q.Pop())
	require.Same(t, b, q.Front())

	q.Clear()
	assert.Equal(t, 0, q.Len())
	for i, v := range q.buf {
		assert.Nil(t, v, "slot %d", i)
	}
	assert.Panics(t, func() { q.Front() })
	q.Push(a)
	assert.Same(t, a, q.Pop(), "a cleared queue works as new")
}

// PushSlot and Head with Drop are Push and Pop in place: the same order
// across growth and the wrap of the ring, and Drop clears what it
// vacates, so that a slot PushSlot hands out again is zero.
func TestInPlaceIsPushAndPop(t *testing.T) {
	var q, ref Queue[*int]
	for round := range 30 {
		for range round%4 + 1 {
			v := new(int)
			*q.PushSlot() = v
			ref.Push(v)
		}
		for range round % 3 {
			require.Same(t, ref.Pop(), *q.Head())
			q.Drop()
		}
		require.Equal(t, ref.Len(), q.Len())
	}
	for q.Len() > 0 {
		require.Same(t, ref.Pop(), *q.Head())
		q.Drop()
	}
	for i, v := range q.buf {
		assert.Nil(t, v, "slot %d", i)
	}
	assert.Nil(t, *q.PushSlot(), "a slot handed out again is zero")
	q.Drop()
	assert.PanicsWithValue(t, "fifo: broken invariant: Drop from an empty queue", func() { q.Drop() })
	assert.PanicsWithValue(t, "fifo: broken invariant: Head of an empty queue", func() { q.Head() })
}
