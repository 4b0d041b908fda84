package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/sim/bareheap"
)

// warmup is the number of events per pending event a hold benchmark
// fires before it measures.
const warmup = 10

// BenchmarkHold is the classic "hold" model of event-queue benchmarks: the
// queue holds N pending events; each op pops one event and its callback
// schedules one new event at now plus an exponential delay, through the
// public API.
func BenchmarkHold(b *testing.B) {
	for _, n := range []int{10, 20, 1000, 100000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			k := New(1)
			r := k.Rand("hold")
			const mean = float64(time.Millisecond)
			var cb Func
			cb = func(uint64) {
				k.After(time.Duration(r.ExpFloat64()*mean), cb, 0)
			}
			for i := 0; i < n; i++ {
				k.After(time.Duration(r.ExpFloat64()*mean), cb, 0)
			}
			runHold(b, k, n)
		})
	}
}

// runHold warms k up, as hold benchmarks do, until the queue's arrays
// have grown to what its steady state needs, and measures its steps.
func runHold(b *testing.B, k *Kernel, n int) {
	for range warmup * n {
		k.Step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k.Step()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

// BenchmarkBareHeap is BenchmarkHold's workload on bareHeap, for the ratio
// quoted in the notes.
func BenchmarkBareHeap(b *testing.B) {
	for _, n := range []int{10, 20, 1000, 100000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			h := bareheap.NewHold(n, NewStream(1, "hold"))
			for range warmup * n {
				h.Step()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				h.Step()
			}
		})
	}
}

// BenchmarkHoldUniform is BenchmarkHold with delays uniform on [0, 2 ms)
// (the same mean), so that the queue is not tuned to exponential delays
// only: a uniform delay's pending events crowd less near now.
func BenchmarkHoldUniform(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			k := New(1)
			r := k.Rand("hold")
			var cb Func
			cb = func(uint64) { k.After(time.Duration(r.Int64N(int64(2*time.Millisecond))), cb, 0) }
			for i := 0; i < n; i++ {
				cb(0)
			}
			runHold(b, k, n)
		})
	}
}

// BenchmarkBareHeapUniform is BenchmarkHoldUniform's workload on the bare
// heap.
func BenchmarkBareHeapUniform(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			r := NewStream(1, "hold")
			delay := func() time.Duration { return time.Duration(r.Int64N(int64(2 * time.Millisecond))) }
			h := make(bareheap.Heap, 0, n+1)
			seq := uint64(0)
			step := func() {
				e := h.Pop()
				seq++
				h.Push(bareheap.Entry{At: e.At + delay(), Seq: seq})
			}
			for range n {
				seq++
				h.Push(bareheap.Entry{At: delay(), Seq: seq})
			}
			for range warmup * n {
				step()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				step()
			}
		})
	}
}
