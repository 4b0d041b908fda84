package clocks

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// scale sets the magnitudes a generated spec uses.
type scale struct {
	gap      time.Duration // between consecutive events
	offset   time.Duration
	step     time.Duration
	slew     time.Duration
	slewPPM  []float64 // MaxPPM values to draw from; 0 means the default
	backward bool      // whether steps may go backwards
}

// realistic: events days apart over months, steps of minutes, slews of
// seconds, rates anywhere in the allowed range.
var realistic = scale{
	gap: 10 * day, offset: time.Hour, step: 10 * time.Minute, slew: 2 * sec,
	slewPPM: []float64{0, 1, 500, 1234.567, MaxRatePPM}, backward: true,
}

// tiny: a few microseconds in all, small enough to check every nanosecond,
// with extreme rates so that flooring matters at every step.
var tiny = scale{
	gap: 300, offset: 100, step: 200, slew: 40,
	slewPPM: []float64{MaxRatePPM, 50_000, 33_333.333, 77_777.777}, backward: true,
}

func drawPPM(t *rapid.T, label string) float64 {
	ppb := rapid.OneOf(
		rapid.Int64Range(-MaxRatePPM*1000, MaxRatePPM*1000),
		rapid.Int64Range(-1_000_000, 1_000_000), // within ±1000 ppm
		rapid.Just(int64(0)),
	).Draw(t, label)
	return float64(ppb) / 1000
}

func drawDur(t *rapid.T, lo, hi time.Duration, label string) time.Duration {
	return time.Duration(rapid.Int64Range(int64(lo), int64(hi)).Draw(t, label))
}

// drawProcess draws a spec at scale sc and builds its process.
func drawProcess(t *rapid.T, sc scale) (Spec, *Process) {
	s := drawSpec(t, sc)
	p, err := NewProcess(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// interval draws two interesting times of s, in order.
func interval(t *rapid.T, s Spec) (t1, t2 time.Duration) {
	t1, t2 = interesting(t, s, "t1"), interesting(t, s, "t2")
	return min(t1, t2), max(t1, t2)
}

// drawSpec draws a valid spec: rate changes on their own timeline, steps and
// slews interleaved on another so that no step falls inside a slew.
func drawSpec(t *rapid.T, sc scale) Spec {
	s := Spec{Offset: drawDur(t, -sc.offset, sc.offset, "offset"), RatePPM: drawPPM(t, "rate_ppm")}
	at := time.Duration(0)
	for i := range rapid.IntRange(0, 4).Draw(t, "rate_changes") {
		at += drawDur(t, time.Duration(min(i, 1)), sc.gap, "rate_change_gap")
		s.RateChanges = append(s.RateChanges, RateChange{At: at, RatePPM: drawPPM(t, "rate_change_ppm")})
	}
	at = 0
	lo := time.Duration(0) // the first event may be at 0, later ones must be strictly later
	for range rapid.IntRange(0, 6).Draw(t, "events") {
		at += drawDur(t, lo, sc.gap, "gap")
		lo = 1
		if rapid.Bool().Draw(t, "is_slew") {
			sl := Slew{At: at, By: drawDur(t, -sc.slew, sc.slew, "slew_by"), MaxPPM: rapid.SampledFrom(sc.slewPPM).Draw(t, "slew_ppm")}
			p, err := resolveSlew(len(s.Slews), sl)
			if err != nil {
				t.Fatalf("generator: %v", err)
			}
			s.Slews = append(s.Slews, sl)
			if p.end > at {
				// The next event may start exactly when the slew ends.
				at, lo = p.end, 0
			}
			continue
		}
		minStep := time.Duration(0)
		if sc.backward {
			minStep = -sc.step
		}
		s.Steps = append(s.Steps, Step{At: at, By: drawDur(t, minStep, sc.step, "step_by")})
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("generator made an invalid spec: %v\n%+v", err, s)
	}
	return s
}

// eventTimes lists the true times at which something in s changes: each
// rate change, each step, and each slew's start, full-rate end and end.
func eventTimes(s Spec) []time.Duration {
	var out []time.Duration
	for _, rc := range s.RateChanges {
		out = append(out, rc.At)
	}
	for _, st := range s.Steps {
		out = append(out, st.At)
	}
	for i, sl := range s.Slews {
		p, _ := resolveSlew(i, sl)
		out = append(out, p.at, p.full, p.end)
	}
	return out
}

// lastEvent is the latest true time at which anything in s changes (0 for
// none).
func lastEvent(s Spec) time.Duration {
	return slices.Max(append(eventTimes(s), 0))
}

// oracle computes a reading straight from the spec's definition with big
// integers, in units of 1e-9 ns: the oscillator integrated piece by piece,
// plus offset and steps, plus each slew's applied correction
// min(rate·elapsed, |By|·1e9) with the sign of By; then floored.
func oracle(s Spec, wall bool, t time.Duration) time.Duration {
	bi := func(x int64) *big.Int { return big.NewInt(x) }
	ppb := func(ppm float64) int64 { return int64(math.Round(ppm * 1000)) }
	total := new(big.Int)
	addPiece := func(from, to time.Duration, rate int64) {
		total.Add(total, new(big.Int).Mul(bi(int64(to-from)), bi(1e9+rate)))
	}
	prev, rate := time.Duration(0), ppb(s.RatePPM)
	for _, rc := range s.RateChanges {
		if rc.At > t {
			break
		}
		addPiece(prev, rc.At, rate)
		prev, rate = rc.At, ppb(rc.RatePPM)
	}
	addPiece(prev, t, rate)
	if wall {
		total.Add(total, new(big.Int).Mul(bi(int64(s.Offset)), bi(1e9)))
		for _, st := range s.Steps {
			if st.At <= t {
				total.Add(total, new(big.Int).Mul(bi(int64(st.By)), bi(1e9)))
			}
		}
		for _, sl := range s.Slews {
			if sl.At > t {
				continue
			}
			maxPPM := sl.MaxPPM
			if maxPPM == 0 {
				maxPPM = 500
			}
			applied := new(big.Int).Mul(bi(int64(t-sl.At)), bi(ppb(maxPPM)))
			whole := new(big.Int).Abs(new(big.Int).Mul(bi(int64(sl.By)), bi(1e9)))
			if applied.Cmp(whole) > 0 {
				applied = whole
			}
			if sl.By < 0 {
				applied.Neg(applied)
			}
			total.Add(total, applied)
		}
	}
	// Div is Euclidean division: for a positive divisor, the floor.
	return time.Duration(new(big.Int).Div(total, bi(1e9)).Int64())
}

// interesting draws a true time near the spec's events or anywhere.
func interesting(t *rapid.T, s Spec, label string) time.Duration {
	near := eventTimes(s)
	last := lastEvent(s)
	if len(near) > 0 && rapid.Bool().Draw(t, label+"_near_event") {
		x := rapid.SampledFrom(near).Draw(t, label+"_event") + drawDur(t, -2, 2, label+"_delta")
		return min(max(x, 0), Horizon)
	}
	return drawDur(t, 0, min(2*last+1000, Horizon), label)
}

func TestLocalMatchesOracle(t *testing.T) {
	for name, sc := range map[string]scale{"realistic": realistic, "tiny": tiny} {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s, p := drawProcess(t, sc)
				for range 10 {
					x := interesting(t, s, "t")
					if got, want := p.Wall.Local(x), oracle(s, true, x); got != want {
						t.Fatalf("Wall.Local(%v) = %v, want %v\nclock: %v", x, got, want, p.Wall)
					}
					if got, want := p.Mono.Local(x), oracle(s, false, x); got != want {
						t.Fatalf("Mono.Local(%v) = %v, want %v\nclock: %v", x, got, want, p.Mono)
					}
				}
				if got, want := p.Wall.Local(Horizon), oracle(s, true, Horizon); got != want {
					t.Fatalf("Wall.Local(Horizon) = %v, want %v", got, want)
				}
			})
		})
	}
}

// TestWhenBruteForce compares When with a scan of every nanosecond.
func TestWhenBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, p := drawProcess(t, tiny)
		c := p.Wall
		n := lastEvent(s) + 1000
		readings := make([]time.Duration, n+1)
		for x := range readings {
			readings[x] = c.Local(time.Duration(x))
		}
		lo, hi := readings[0], readings[0]
		for _, r := range readings {
			lo, hi = min(lo, r), max(hi, r)
		}
		for range 20 {
			from := drawDur(t, 0, n, "from")
			l := drawDur(t, lo-5, hi, "l")
			want := time.Duration(-1)
			for x := from; x <= n; x++ {
				if readings[x] >= l {
					want = x
					break
				}
			}
			if want < 0 {
				continue // reached only after n: TestWhenExact covers it
			}
			if got := c.When(l, from); got != want {
				t.Fatalf("When(%v, from %v) = %v, want %v\nclock: %v", l, from, got, want, c)
			}
		}
	})
}

// TestWhenExact checks When's contract on realistic clocks: the answer reads
// at least l, and nothing in [from, answer) does. Between backward steps the
// clock never decreases, so the largest reading in [from, w) is at w-1 or
// just before a backward step in (from, w).
func TestWhenExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, p := drawProcess(t, realistic)
		c := p.Wall
		from := interesting(t, s, "from")
		var l time.Duration
		if rapid.IntRange(0, 9).Draw(t, "beyond") == 0 {
			l = c.Local(Horizon) + drawDur(t, 0, 1, "beyond_by")
		} else {
			l = c.Local(interesting(t, s, "target")) + drawDur(t, -3, 3, "l_delta")
		}
		w := c.When(l, from)
		below := func(x time.Duration) {
			if got := c.Local(x); got >= l {
				t.Fatalf("When(%v, from %v) = %v, but Local(%v) = %v already reads it\nclock: %v", l, from, w, x, got, c)
			}
		}
		end := w
		if w == Never {
			end = Horizon + 1
		} else {
			if w < from || w > Horizon {
				t.Fatalf("When(%v, from %v) = %v, outside [from, Horizon]", l, from, w)
			}
			if got := c.Local(w); got < l {
				t.Fatalf("When(%v, from %v) = %v, but Local there is %v\nclock: %v", l, from, w, got, c)
			}
		}
		if end > from {
			below(end - 1)
		}
		for _, st := range s.Steps {
			if st.By < 0 && st.At > from && st.At < end {
				below(st.At - 1)
			}
		}
	})
}

// TestAfterIsWhenOfReadingPlus: After(from, d) is When(Local(from)+d,
// from), on wall clocks with steps and slews and on monotonic ones, for
// spans forward, zero and back.
func TestAfterIsWhenOfReadingPlus(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, p := drawProcess(t, realistic)
		from := interesting(t, s, "from")
		d := drawDur(t, -time.Second, time.Hour, "d")
		for _, c := range []*Clock{p.Wall, p.Mono} {
			if got, want := c.After(from, d), c.When(c.Local(from)+d, from); got != want {
				t.Fatalf("After(%v, %v) = %v; When(Local+d) = %v\nclock: %v", from, d, got, want, c)
			}
		}
	})
}

// TestMonotone: a clock only goes back at a backward step, and the
// monotonic clock never does; at rate >= 0.8 it gains at least one ns in two.
func TestMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, p := drawProcess(t, realistic)
		t1, t2 := interval(t, s)
		if m1, m2 := p.Mono.Local(t1), p.Mono.Local(t2); m1 > m2 || (t2-t1 >= 2 && m1 == m2) {
			t.Fatalf("Mono.Local(%v) = %v, Mono.Local(%v) = %v", t1, m1, t2, m2)
		}
		for _, st := range s.Steps {
			if st.By < 0 && st.At > t1 && st.At <= t2 {
				return
			}
		}
		if w1, w2 := p.Wall.Local(t1), p.Wall.Local(t2); w1 > w2 {
			t.Fatalf("Wall.Local(%v) = %v > Wall.Local(%v) = %v with no backward step between\nclock: %v", t1, w1, t2, w2, p.Wall)
		}
	})
}

// TestSlewBound compares the wall clock with the monotonic one, which shares
// its oscillator: over any interval they differ by the offset, the steps and
// the slews, and a slew contributes at most its MaxPPM times its overlap
// with the interval (plus rounding), and exactly By once it is over.
func TestSlewBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, p := drawProcess(t, realistic)
		t1, t2 := interval(t, s)
		dev := (p.Wall.Local(t2) - p.Wall.Local(t1)) - (p.Mono.Local(t2) - p.Mono.Local(t1))
		var bound big.Int // in units of 1e-9 ns
		for i, sl := range s.Slews {
			sp, _ := resolveSlew(i, sl)
			lo, hi := max(t1, sp.at), min(t2, sp.end)
			if hi > lo {
				rate := sp.rate
				if rate < 0 {
					rate = -rate
				}
				bound.Add(&bound, new(big.Int).Mul(big.NewInt(int64(hi-lo)), big.NewInt(rate)))
			}
			if sp.at >= t1 && sp.end <= t2 {
				dev -= sl.By // wholly inside: exactly By
			}
		}
		for _, st := range s.Steps {
			if st.At > t1 && st.At <= t2 {
				dev -= st.By
			}
		}
		// Partially covered slews remain in dev; each of the four
		// readings is floored, which moves dev by less than 2.
		lim := new(big.Int).Add(new(big.Int).Div(&bound, big.NewInt(1e9)), big.NewInt(2))
		if new(big.Int).Abs(big.NewInt(int64(dev))).Cmp(lim) > 0 {
			t.Fatalf("over [%v, %v] wall and mono differ by %v beyond steps and whole slews; bound %v ns", t1, t2, dev, lim)
		}
		// The extra rate of every segment stays within its slew's bound.
		for _, g := range p.Wall.segs {
			var allowed int64
			for i, sl := range s.Slews {
				if sp, _ := resolveSlew(i, sl); g.at >= sp.at && g.at < sp.end {
					allowed = toPPB(cmp.Or(sl.MaxPPM, DefaultSlewPPM))
				}
			}
			if g.slew > allowed || g.slew < -allowed {
				t.Fatalf("segment at %v slews %d ppb, bound %d", g.at, g.slew, allowed)
			}
		}
	})
}

// TestWallMinusMonoIsExact: with no slew running, wall minus mono is the
// offset plus every step and slew so far, to the nanosecond.
func TestWallMinusMonoIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, p := drawProcess(t, realistic)
		x := interesting(t, s, "t")
		want := s.Offset
		for _, st := range s.Steps {
			if st.At <= x {
				want += st.By
			}
		}
		for i, sl := range s.Slews {
			sp, _ := resolveSlew(i, sl)
			if x >= sp.at && x < sp.end {
				return // mid-slew: TestSlewBound's business
			}
			if sp.end <= x {
				want += sl.By
			}
		}
		if got := p.Wall.Local(x) - p.Mono.Local(x); got != want {
			t.Fatalf("at %v wall - mono = %v, want %v", x, got, want)
		}
	})
}

// TestFlatIsTheGeneralPath: a flat clock (one segment at the ideal rate)
// reads and reaches readings by its short forms; they answer as the
// general segment arithmetic does, at any offset, for readings behind,
// at and past the horizon, and spans forward and back.
func TestFlatIsTheGeneralPath(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		offset := rapid.OneOf(
			rapid.Int64Range(-int64(time.Hour), int64(time.Hour)),
			rapid.Int64Range(math.MinInt64/2, math.MaxInt64/2),
			rapid.Just(int64(0)),
		).Draw(t, "offset")
		p, err := NewProcess(Spec{Offset: time.Duration(offset)})
		if err != nil {
			t.Skip(err) // an offset that overflows before the horizon
		}
		for _, c := range []*Clock{p.Wall, p.Mono} {
			if !c.flat {
				t.Fatalf("clock %v is not flat", c)
			}
			g := *c
			g.flat = false // the general path
			from := rapid.OneOf(drawDur2(0, Horizon), rapid.Just(time.Duration(0)), rapid.Just(Horizon)).Draw(t, "from")
			d := rapid.OneOf(drawDur2(-time.Hour, time.Hour), drawDur2(-Horizon, 2*Horizon), rapid.Just(time.Duration(0))).Draw(t, "d")
			l := c.segs[0].local + rapid.OneOf(drawDur2(-time.Hour, 2*Horizon), rapid.Just(Horizon), rapid.Just(Horizon+1)).Draw(t, "l_from_offset")
			if got, want := c.Local(from), g.Local(from); got != want {
				t.Fatalf("Local(%v) = %v, general %v", from, got, want)
			}
			if got, want := c.When(l, from), g.When(l, from); got != want {
				t.Fatalf("When(%v, %v) = %v, general %v", l, from, got, want)
			}
			if got, want := c.After(from, d), g.After(from, d); got != want {
				t.Fatalf("After(%v, %v) = %v, general %v", from, d, got, want)
			}
		}
	})
}

func drawDur2(lo, hi time.Duration) *rapid.Generator[time.Duration] {
	return rapid.Custom(func(t *rapid.T) time.Duration {
		return time.Duration(rapid.Int64Range(int64(lo), int64(hi)).Draw(t, "ns"))
	})
}
