package bareheap

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestPopsInTimeThenSequenceOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h Heap
	var want []Entry
	for i := range 500 {
		e := Entry{At: time.Duration(r.IntN(50)), Seq: uint64(i)}
		h.Push(e)
		want = append(want, e)
	}
	slices.SortFunc(want, func(a, b Entry) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	for i, w := range want {
		if got := h.Pop(); got != w {
			t.Fatalf("pop %d: got %+v, want %+v", i, got, w)
		}
	}
	if len(h) != 0 {
		t.Fatalf("%d left", len(h))
	}
}

func TestHoldKeepsItsLength(t *testing.T) {
	w := NewHold(37, rand.New(rand.NewPCG(1, 2)))
	for range 1000 {
		w.Step()
	}
	if len(w.h) != 37 {
		t.Fatalf("queue is %d long, want 37", len(w.h))
	}
}
