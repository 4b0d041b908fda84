package clocks

import (
	"testing"
	"time"
)

// benchClock has about ten segments: rate changes, a forward and a backward
// step, and a slew with a remainder nanosecond.
func benchClock(b *testing.B) *Clock {
	c, err := New(Spec{
		Offset:      1500 * ms,
		RatePPM:     78,
		RateChanges: []RateChange{{At: time.Hour, RatePPM: -20}, {At: 5 * time.Hour, RatePPM: 150}},
		Steps:       []Step{{At: 30 * time.Minute, By: 2 * sec}, {At: 2 * time.Hour, By: -3 * sec}},
		Slews:       []Slew{{At: 3 * time.Hour, By: 700*ms + 1, MaxPPM: 300}, {At: 7 * time.Hour, By: -sec}},
	})
	if err != nil {
		b.Fatal(err)
	}
	if n := len(c.segs); n < 9 || n > 12 {
		b.Fatalf("benchmark clock has %d segments, want about 10", n)
	}
	return c
}

func BenchmarkLocal(b *testing.B) {
	c := benchClock(b)
	var sink time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		// Stride through 10 h so every segment is visited.
		sink += c.Local(time.Duration(i%10_000) * 3600 * time.Millisecond)
	}
	_ = sink
}

func BenchmarkWhen(b *testing.B) {
	c := benchClock(b)
	var sink time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x := time.Duration(i%10_000) * 3600 * time.Millisecond
		// A deadline 5 s ahead of the reading at x, looked up from x, and
		// one across the backward step at 2 h, looked up from 0.
		sink += c.When(c.Local(x)+5*sec, x)
		sink += c.When(2*time.Hour, 0)
	}
	_ = sink
}

// TestNoAllocs keeps the allocation promise in the ordinary test run.
func TestNoAllocs(t *testing.T) {
	c, err := New(Spec{RatePPM: 5, Steps: []Step{{At: sec, By: -sec}}, Slews: []Slew{{At: 10 * sec, By: sec}}})
	if err != nil {
		t.Fatal(err)
	}
	var sink time.Duration
	if n := testing.AllocsPerRun(100, func() {
		sink += c.Local(5 * sec)
		sink += c.When(1500*ms, 0)
		sink += c.When(Horizon*2, 0)
		_ = c.Rate(11 * sec)
	}); n != 0 {
		t.Errorf("Local, When and Rate allocated %v times per run, want 0", n)
	}
	_ = sink
}
