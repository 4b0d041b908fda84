package bareheap

import (
	"math/rand/v2"
	"time"
)

// Entry is one pending event: its time and its insertion sequence, which
// breaks ties; Slot stands for the kernel's handle, so that entries are
// as large as the kernel's.
type Entry struct {
	At   time.Duration
	Seq  uint64
	Slot int32
}

func (a Entry) before(b Entry) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	return a.Seq < b.Seq
}

// Heap is a binary min-heap of entries by (At, Seq).
type Heap []Entry

// Push adds e.
func (h *Heap) Push(e Entry) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].before(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// Pop removes and returns the earliest entry; the heap must not be empty.
func (h *Heap) Pop() Entry {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && s[r].before(s[l]) {
			c = r
		}
		if !s[c].before(s[i]) {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return top
}

// Hold is the classic "hold" workload at queue length n: n entries with
// exponential delays (mean 1ms) are pushed, and each Step pops the earliest
// and pushes one at its time plus a new delay, so that the queue stays n
// long.
type Hold struct {
	h   Heap
	r   *rand.Rand
	seq uint64
}

// NewHold fills a heap with n entries drawn from r.
func NewHold(n int, r *rand.Rand) *Hold {
	w := &Hold{h: make(Heap, 0, n+1), r: r}
	for range n {
		w.seq++
		w.h.Push(Entry{At: w.delay(), Seq: w.seq})
	}
	return w
}

func (w *Hold) delay() time.Duration {
	return time.Duration(w.r.ExpFloat64() * float64(time.Millisecond))
}

// Step is one pop and one push.
func (w *Hold) Step() {
	e := w.h.Pop()
	w.seq++
	w.h.Push(Entry{At: e.At + w.delay(), Seq: w.seq})
}
