package sim

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkHold is the classic "hold" model of event-queue benchmarks: the
// queue holds N pending events; each op pops one event and its callback
// schedules one new event at now plus an exponential delay, through the
// public API.
func BenchmarkHold(b *testing.B) {
	for _, n := range []int{10, 1000, 100000} {
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
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k.Step()
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
		})
	}
}

// bareHeap is the yardstick the kernel is measured against: a hand-written
// binary heap of (time, seq) with no cancellation, no callbacks and no slab.
type bareHeap []entry

func (h *bareHeap) push(e entry) {
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

func (h *bareHeap) pop() entry {
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

// BenchmarkBareHeap is BenchmarkHold's workload on bareHeap, for the ratio
// quoted in the notes.
func BenchmarkBareHeap(b *testing.B) {
	for _, n := range []int{10, 1000, 100000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			r := NewStream(1, "hold")
			const mean = float64(time.Millisecond)
			h := bareHeap{}
			var seq uint64
			for i := 0; i < n; i++ {
				seq++
				h.push(entry{at: time.Duration(r.ExpFloat64() * mean), seq: seq})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e := h.pop()
				seq++
				h.push(entry{at: e.at + time.Duration(r.ExpFloat64()*mean), seq: seq})
			}
		})
	}
}
