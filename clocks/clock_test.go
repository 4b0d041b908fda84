package clocks

import (
	"math"
	"math/bits"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const (
	ns  = time.Nanosecond
	ms  = time.Millisecond
	sec = time.Second
	day = 24 * time.Hour
)

func TestLocal(t *testing.T) {
	type point struct{ t, want time.Duration }
	tests := []struct {
		name   string
		spec   Spec
		points []point
	}{
		{"ideal", Spec{}, []point{{0, 0}, {10 * sec, 10 * sec}, {Horizon, Horizon}}},
		{"offset", Spec{Offset: 1500 * ms}, []point{{0, 1500 * ms}, {10 * sec, 11500 * ms}}},
		{"negative offset", Spec{Offset: -3 * sec}, []point{{0, -3 * sec}, {10 * sec, 7 * sec}}},
		{"fast 100 ppm", Spec{RatePPM: 100}, []point{{10 * sec, 10*sec + ms}}},
		{"slow 50 ppm", Spec{RatePPM: -50}, []point{{10 * sec, 10*sec - 500*time.Microsecond}}},
		{"half a ppm", Spec{RatePPM: 0.5}, []point{{sec, sec + 500*ns}}},
		// 1 ppb: the extra nanosecond accrues only after a full true second.
		{"1 ppb floors", Spec{RatePPM: 0.001}, []point{{sec - ns, sec - ns}, {sec, sec + ns}}},
		// -1 ppb: one true ns reads 0.999999999 ns, which floors to 0.
		{"-1 ppb floors", Spec{RatePPM: -0.001}, []point{{ns, 0}, {sec, sec - ns}}},
		{"rate change", Spec{RatePPM: 100, RateChanges: []RateChange{{At: 10 * sec, RatePPM: -100}}},
			[]point{{10 * sec, 10*sec + ms}, {15 * sec, 15*sec + 500*time.Microsecond}, {20 * sec, 20 * sec}}},
		{"rate change at zero replaces the rate", Spec{RatePPM: 100, RateChanges: []RateChange{{At: 0, RatePPM: 0}}},
			[]point{{10 * sec, 10 * sec}}},
		{"forward step", Spec{Steps: []Step{{At: 5 * sec, By: 2 * sec}}},
			[]point{{5*sec - ns, 5*sec - ns}, {5 * sec, 7 * sec}, {6 * sec, 8 * sec}}},
		{"backward step", Spec{Steps: []Step{{At: 5 * sec, By: -2 * sec}}},
			[]point{{5*sec - ns, 5*sec - ns}, {5 * sec, 3 * sec}, {6 * sec, 4 * sec}}},
		{"step at zero", Spec{Offset: sec, Steps: []Step{{At: 0, By: sec}}}, []point{{0, 2 * sec}}},
		// 2 s at 500 ppm takes 2/500e-6 = 4000 s.
		{"slew +2s at default 500 ppm", Spec{Slews: []Slew{{At: 10 * sec, By: 2 * sec}}},
			[]point{{10 * sec, 10 * sec}, {2010 * sec, 2011 * sec}, {4010 * sec, 4012 * sec}, {5000 * sec, 5002 * sec}}},
		{"slew -2s at default 500 ppm", Spec{Slews: []Slew{{At: 10 * sec, By: -2 * sec}}},
			[]point{{2010 * sec, 2009 * sec}, {4010 * sec, 4008 * sec}, {5000 * sec, 4998 * sec}}},
		{"slew at 100 ppm over a fast oscillator", Spec{RatePPM: 100, Slews: []Slew{{At: 0, By: 100 * ms, MaxPPM: 100}}},
			// 100 ms at 100 ppm takes 1000 s; the oscillator adds 100 ms more.
			[]point{{1000 * sec, 1000*sec + 200*ms}, {2000 * sec, 2000*sec + 300*ms}}},
		// 1 ns at 300 ppm: 3333 ns at 300000 ppb apply 0.9999 ns, then
		// one ns at 100000 ppb applies the rest, exactly.
		{"slew remainder", Spec{Slews: []Slew{{At: sec, By: 1, MaxPPM: 300}}},
			[]point{{sec + 3333, sec + 3333}, {sec + 3334, sec + 3335}, {2 * sec, 2*sec + 1}}},
		{"combination", Spec{
			Offset:      -sec,
			RatePPM:     20,
			RateChanges: []RateChange{{At: 200 * sec, RatePPM: -30}},
			Steps:       []Step{{At: 300 * sec, By: sec}},
			Slews:       []Slew{{At: 100 * sec, By: 100 * ms}}, // 200 s at 500 ppm
		}, []point{
			{100 * sec, 99*sec + 2*ms},
			{200 * sec, 199*sec + 4*ms + 50*ms},
			// Drift +4 ms to 200 s, -3 ms to 300 s; the slew adds 100 ms.
			// One ns before 300 s reads 1.00047 ns less, floored.
			{300*sec - ns, 299*sec + 101*ms - 2*ns},
			{300 * sec, 300*sec + 101*ms},
			{400 * sec, 400*sec + 98*ms},
		}},
		{"100 days at +100000 ppm", Spec{RatePPM: 100_000}, []point{{100 * day, 110 * day}}},
		{"100 days at -100000 ppm", Spec{RatePPM: -100_000}, []point{{100 * day, 90 * day}}},
		{"horizon at +100000 ppm", Spec{RatePPM: 100_000}, []point{{Horizon, Horizon + Horizon/10}}},
		{"largest offset", Spec{Offset: math.MaxInt64 - Horizon}, []point{{Horizon, math.MaxInt64}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.spec)
			require.NoError(t, err)
			for _, p := range tt.points {
				if got := c.Local(p.t); got != p.want {
					t.Errorf("Local(%v) = %v, want %v", p.t, got, p.want)
				}
			}
		})
	}
}

func TestWhen(t *testing.T) {
	type query struct{ l, from, want time.Duration }
	tests := []struct {
		name    string
		spec    Spec
		queries []query
	}{
		{"ideal", Spec{}, []query{
			{5 * sec, 0, 5 * sec},
			{5 * sec, 7 * sec, 7 * sec}, // already passed: from
			{-sec, 0, 0},
			{Horizon, 0, Horizon},
			{Horizon + 1, 0, Never},
			{math.MaxInt64, 0, Never},
			{math.MinInt64, 0, 0},
		}},
		{"fast", Spec{RatePPM: 100}, []query{
			{10*sec + ms, 0, 10 * sec},
			// 10.001000001 s needs 10000000000.9999 true ns: round up.
			{10*sec + ms + 1, 0, 10*sec + 1},
		}},
		{"forward step jumps over l", Spec{Steps: []Step{{At: 5 * sec, By: 2 * sec}}}, []query{
			{6 * sec, 0, 5 * sec},
			{7 * sec, 0, 5 * sec},
			{7*sec + 1, 0, 5*sec + 1},
			{5*sec - ns, 0, 5*sec - ns},
		}},
		{"backward step: first time counts", Spec{Steps: []Step{{At: 5 * sec, By: -2 * sec}}}, []query{
			{4 * sec, 0, 4 * sec},
			{4 * sec, 5 * sec, 6 * sec}, // reached again after the step
			{4500 * ms, 4800 * ms, 4800 * ms},
			{5500 * ms, 0, 7500 * ms}, // never before the step, so after it
			{5*sec - ns, 0, 5*sec - ns},
			{5 * sec, 0, 7 * sec},
		}},
		{"several backward steps", Spec{Steps: []Step{{At: 10 * sec, By: -5 * sec}, {At: 20 * sec, By: -5 * sec}, {At: 30 * sec, By: -5 * sec}}}, []query{
			{9 * sec, 12 * sec, 14 * sec},
			{14500 * ms, 12 * sec, 19500 * ms},
			{16 * sec, 12 * sec, 26 * sec},
			{21 * sec, 0, 36 * sec},
			{9 * sec, 0, 9 * sec},
		}},
		// Segment 0 reaches 10.001 s exactly at its end, 10 s, which
		// belongs to segment 1.
		{"deadline at a rate change", Spec{RatePPM: 100, RateChanges: []RateChange{{At: 10 * sec, RatePPM: 0}}}, []query{
			{10*sec + ms, 0, 10 * sec},
			// 10.000999999 s needs 9999999999.0001 true ns: 10 s again.
			{10*sec + ms - 1, 0, 10 * sec},
			{10*sec + ms - 2, 0, 10*sec - 1},
			{10*sec + ms + 1, 0, 10*sec + 1},
		}},
		{"slew", Spec{Slews: []Slew{{At: 10 * sec, By: 2 * sec}}}, []query{
			{2011 * sec, 0, 2010 * sec},
			{4012 * sec, 0, 4010 * sec},
			{5002 * sec, 0, 5000 * sec},
		}},
		{"past the horizon", Spec{RatePPM: -100_000}, []query{
			{Horizon - Horizon/10, 0, Horizon},
			{Horizon - Horizon/10 + 1, 0, Never},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.spec)
			require.NoError(t, err)
			for _, q := range tt.queries {
				got := c.When(q.l, q.from)
				if got != q.want {
					t.Errorf("When(%v, from %v) = %v, want %v", q.l, q.from, got, q.want)
				}
			}
		})
	}
}

func TestMonotonicIgnoresStepsSlewsAndOffset(t *testing.T) {
	spec := Spec{
		Offset:      time.Hour,
		RatePPM:     100,
		RateChanges: []RateChange{{At: 10 * sec, RatePPM: -100}},
		Steps:       []Step{{At: 5 * sec, By: -2 * sec}},
		Slews:       []Slew{{At: 30 * sec, By: sec}},
	}
	p, err := NewProcess(spec)
	require.NoError(t, err)
	for _, pt := range []struct{ t, want time.Duration }{
		{0, 0},
		{5 * sec, 5*sec + 500*time.Microsecond},
		{20 * sec, 20 * sec},
		{1000 * sec, 1000*sec - 98*ms}, // +1 ms, then -99 ms
	} {
		if got := p.Mono.Local(pt.t); got != pt.want {
			t.Errorf("Mono.Local(%v) = %v, want %v", pt.t, got, pt.want)
		}
	}
	if got, want := p.Wall.Local(0), time.Hour; got != want {
		t.Errorf("Wall.Local(0) = %v, want %v", got, want)
	}
}

func TestMonotonicValidatesWholeSpec(t *testing.T) {
	bad := Spec{Steps: []Step{{At: -sec}}}
	if _, err := NewMonotonic(bad); err == nil {
		t.Error("NewMonotonic accepted a spec with a negative step time")
	}
	if _, err := NewProcess(bad); err == nil {
		t.Error("NewProcess accepted a spec with a negative step time")
	}
}

func TestIdeal(t *testing.T) {
	c := Ideal()
	for _, x := range []time.Duration{0, 1, sec, 100 * day, Horizon} {
		if got := c.Local(x); got != x {
			t.Errorf("Ideal().Local(%v) = %v", x, got)
		}
		if got := c.When(x, 0); got != x {
			t.Errorf("Ideal().When(%v, 0) = %v", x, got)
		}
	}
}

func TestRate(t *testing.T) {
	c, err := New(Spec{RatePPM: 78, RateChanges: []RateChange{{At: 10000 * sec, RatePPM: -12.5}}, Slews: []Slew{{At: 10 * sec, By: -sec}}})
	require.NoError(t, err)
	for _, pt := range []struct {
		t    time.Duration
		want float64
	}{{0, 78}, {10 * sec, -422}, {2010*sec - 1, -422}, {2010 * sec, 78}, {10000 * sec, -12.5}} {
		if got := c.Rate(pt.t); got != pt.want {
			t.Errorf("Rate(%v) = %v, want %v", pt.t, got, pt.want)
		}
	}
}

func TestString(t *testing.T) {
	c, err := New(Spec{Offset: sec, RatePPM: 20, Slews: []Slew{{At: 10 * sec, By: 5 * ms}}})
	require.NoError(t, err)
	want := "from 0s: local 1s, +20 ppm; from 10s: local 11.0002s, +520 ppm (slewing +500); from 20s: local 21.0054s, +20 ppm"
	if got := c.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
}

func TestOutsideRunPanics(t *testing.T) {
	c := Ideal()
	for name, f := range map[string]func(){
		"Local(-1ns)":         func() { c.Local(-1) },
		"Local(Horizon+1ns)":  func() { c.Local(Horizon + 1) },
		"When(0, -1ns)":       func() { c.When(0, -1) },
		"When(0, Horizon+1)":  func() { c.When(0, Horizon+1) },
		"Rate(Horizon+1ns)":   func() { c.Rate(Horizon + 1) },
		"zero Clock Local(0)": func() { new(Clock).Local(0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

func TestSegmentsMerge(t *testing.T) {
	// A rate change to the same rate and a zero step add no segment.
	c, err := New(Spec{RatePPM: 5, RateChanges: []RateChange{{At: sec, RatePPM: 5}}, Steps: []Step{{At: 2 * sec}}})
	require.NoError(t, err)
	if n := len(c.segs); n != 1 {
		t.Errorf("got %d segments, want 1: %v", n, c)
	}
}

func TestStringMentionsEverySegment(t *testing.T) {
	c, err := New(Spec{Steps: []Step{{At: sec, By: sec}, {At: 2 * sec, By: -sec}}})
	require.NoError(t, err)
	if got := strings.Count(c.String(), "from "); got != 3 {
		t.Errorf("String() has %d segments, want 3: %s", got, c)
	}
}

// Segments, evaluated the way its doc says, read what Local reads at every
// boundary and between them.
func TestSegmentsEvaluateToLocal(t *testing.T) {
	c, err := New(Spec{
		Offset: 3 * time.Millisecond, RatePPM: 123.4567,
		RateChanges: []RateChange{{At: 5 * time.Second, RatePPM: -77}},
		Steps:       []Step{{At: 2 * time.Second, By: 4 * time.Second}, {At: 9 * time.Second, By: -7 * time.Second}},
		Slews:       []Slew{{At: 3 * time.Second, By: 333 * time.Microsecond, MaxPPM: 700}},
	})
	if err != nil {
		t.Fatal(err)
	}
	segs := c.Segments()
	if segs[0].At != 0 || len(segs) < 5 {
		t.Fatalf("segments %+v: want the first at 0 and one per change", segs)
	}
	eval := func(t time.Duration) time.Duration {
		i := len(segs) - 1
		for segs[i].At > t {
			i--
		}
		g := segs[i]
		hi, lo := bits.Mul64(uint64(t-g.At), uint64(g.Rate))
		lo, carry := bits.Add64(lo, uint64(g.Frac), 0)
		q, _ := bits.Div64(hi+carry, lo, 1e9)
		return g.Local + time.Duration(q)
	}
	for _, g := range segs {
		for _, d := range []time.Duration{-1, 0, 1, 999_999_937, 1500 * time.Millisecond} {
			at := g.At + d
			if at < 0 {
				continue
			}
			if got, want := eval(at), c.Local(at); got != want {
				t.Errorf("at %v: segments read %v, Local %v", at, got, want)
			}
		}
	}
	segs[0].Local = 42
	if c.Segments()[0].Local == 42 {
		t.Error("Segments shares the clock's own slice")
	}
}
