package clocks

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/sim/field"
)

// Clock maps true time to one clock's local time. It is immutable after
// construction, so it may be read from several goroutines. The zero Clock
// is not usable; build one with New, NewMonotonic or Ideal.
type Clock struct {
	segs []segment
	// tree is a max segment tree over the last reading of each segment
	// (leaves at n2+i, padding math.MinInt64). When uses it to find the
	// first later segment that reaches a reading in O(log n), which a plain
	// binary search cannot do once a backward step breaks monotonicity.
	tree []time.Duration
	n2   int
	// flat: one segment at the ideal rate (no rate error, no step, no
	// slew), so that the reading at t is segs[0].local + t. Most clocks of
	// most worlds are flat, and every actor timer reads one twice (its
	// reading, then the true time of the deadline): the flat forms skip
	// the segment search and the general arithmetic (see flatWhen).
	flat bool
}

// segment is a stretch of true time at one rate. Its reading at true time
// t in [at, next.at) is local + floor((frac + (t-at)·k) / 1e9): the exact
// rational reading is carried across boundaries in frac, so segment
// boundaries lose nothing and Local is the floor of the exact reading.
type segment struct {
	at    time.Duration // true time the segment starts
	local time.Duration // whole local ns at at
	frac  int64         // plus frac/1e9 local ns, 0 <= frac < 1e9
	k     int64         // local ns per 1e9 true ns: 1e9 + oscillator ppb + slew ppb
	slew  int64         // the slew's part of k, in ppb
}

// Process is the pair of clocks one simulated process reads.
type Process struct {
	Wall *Clock // CLOCK_REALTIME: stepped and slewed; Redis expires keys by it
	Mono *Clock // CLOCK_MONOTONIC_RAW: the oscillator alone, from 0
}

// New returns the wall clock that spec describes.
func New(spec Spec) (*Clock, error) { return build(spec, true) }

// NewMonotonic returns the monotonic clock of the process spec describes:
// the same oscillator (RatePPM and RateChanges) starting at 0 at true time 0,
// with no steps and no slews. That is Linux's CLOCK_MONOTONIC_RAW. The
// CLOCK_MONOTONIC that Go's time.Now reads is also slewed by NTP; the
// difference is at most the slew rate (500 ppm) and is not modelled. The
// whole spec is validated, wall-clock fields included.
func NewMonotonic(spec Spec) (*Clock, error) { return build(spec, false) }

// NewProcess returns both clocks of the process spec describes.
func NewProcess(spec Spec) (*Process, error) {
	wall, err := New(spec)
	if err != nil {
		return nil, err
	}
	mono, err := NewMonotonic(spec)
	if err != nil {
		return nil, err
	}
	return &Process{Wall: wall, Mono: mono}, nil
}

// Ideal returns a perfect clock: Local(t) == t.
func Ideal() *Clock {
	c, err := build(Spec{}, true)
	if err != nil {
		panic(err) // the empty spec is valid
	}
	return c
}

func build(s Spec, wall bool) (*Clock, error) {
	spans, err := s.check()
	if err != nil {
		return nil, err
	}
	steps := s.Steps
	var local time.Duration
	if wall {
		local = s.Offset
	} else {
		steps, spans = nil, nil
	}

	// Every instant where the rate or the reading changes starts a segment.
	times := []time.Duration{0}
	for _, rc := range s.RateChanges {
		times = append(times, rc.At)
	}
	for _, st := range steps {
		times = append(times, st.At)
	}
	for _, p := range spans {
		times = append(times, p.at, p.full, p.end)
	}
	slices.Sort(times)
	times = slices.Compact(times)

	c := &Clock{segs: make([]segment, 0, len(times))}
	var frac int64
	var prev segment // the last segment kept
	for i, t := range times {
		if i > 0 {
			var ok bool
			if local, frac, ok = advance(local, frac, prev.k, t-times[i-1]); !ok {
				return nil, errOverflow
			}
		}
		var jumped bool
		for j, st := range steps {
			if st.At == t && st.By != 0 {
				if (st.By > 0 && local > math.MaxInt64-st.By) || (st.By < 0 && local < math.MinInt64-st.By) {
					return nil, errorf(field.Of("Steps", j, "By"), "steps[%d].by %v overflows the wall clock reading %v", j, st.By, local)
				}
				local += st.By
				jumped = true
			}
		}
		base := toPPB(s.RatePPM)
		for _, rc := range s.RateChanges {
			if rc.At <= t {
				base = toPPB(rc.RatePPM)
			}
		}
		var slew int64
		for _, p := range spans {
			slew += p.extra(t) // slews do not overlap: at most one term is nonzero
		}
		g := segment{at: t, local: local, frac: frac, k: ppbPerUnit + base + slew, slew: slew}
		// Merging an unchanged rate is exact because frac carries the
		// remainder; it keeps When's searches short.
		if i > 0 && !jumped && g.k == prev.k && g.slew == prev.slew {
			continue
		}
		c.segs = append(c.segs, g)
		prev = g
	}

	c.flat = len(c.segs) == 1 && c.segs[0].k == ppbPerUnit
	c.n2 = 1
	for c.n2 < len(c.segs) {
		c.n2 <<= 1
	}
	c.tree = make([]time.Duration, 2*c.n2)
	for i := range c.tree {
		c.tree[i] = math.MinInt64
	}
	for i := range c.segs {
		g := &c.segs[i]
		last, _, ok := advance(g.local, g.frac, g.k, c.end(i)-1-g.at)
		if !ok {
			return nil, errOverflow
		}
		c.tree[c.n2+i] = last
	}
	for v := c.n2 - 1; v >= 1; v-- {
		c.tree[v] = max(c.tree[2*v], c.tree[2*v+1])
	}
	return c, nil
}

var errOverflow = errorf(field.Of("Offset"), "the wall clock reading overflows int64 nanoseconds before the horizon %v; offset or steps too large", Horizon)

// advance returns the reading d true ns after the point (local, frac) of a
// segment at rate k, and whether it fits in an int64; 0 <= d <= Horizon,
// 0 <= frac < 1e9 and 0 < k <= 1.2e9 (rates within MaxRatePPM, slews
// included).
//
// The reading is floor((frac + d·k) / 1e9), computed as
// (d/1e9)·k + (frac + (d%1e9)·k)/1e9 with the remainder of the second
// term: the same quotient and remainder as a 128-bit division, but every
// division is by the constant 1e9, which the compiler turns into a
// multiplication, where bits.Div64 is a hardware divide of tens of cycles,
// and every message reads a clock. Nothing overflows: (d%1e9)·k + frac <
// 1.2e18 + 1e9 and (d/1e9)·k <= 3.2e9·1.2e9 < 2^63.
func advance(local time.Duration, frac, k int64, d time.Duration) (time.Duration, int64, bool) {
	if k == ppbPerUnit {
		// A clock at the ideal rate (no rate error, no slew: most
		// processes of most worlds) reads d more and keeps its fraction;
		// the divisions below give the same, only slower.
		sum := local + d
		return sum, frac, sum >= local
	}
	whole, part := uint64(d)/ppbPerUnit, uint64(d)%ppbPerUnit
	x := uint64(frac) + part*uint64(k)
	q := whole*uint64(k) + x/ppbPerUnit
	sum := local + time.Duration(q)
	return sum, int64(x % ppbPerUnit), sum >= local
}

// end is the true time just after segment i: the next segment's start, or
// Horizon+1 for the last.
func (c *Clock) end(i int) time.Duration {
	if i+1 < len(c.segs) {
		return c.segs[i+1].at
	}
	return Horizon + 1
}

// find returns the segment in force at true time t: the last one starting
// at or before t.
func (c *Clock) find(t time.Duration) int {
	lo, hi := 0, len(c.segs) // segs[lo].at <= t < segs[hi].at
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if c.segs[m].at <= t {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

func checkTrue(method string, t time.Duration) {
	if t < 0 || t > Horizon {
		panic(fmt.Sprintf("clocks: %s at true time %v, outside [0, %v]", method, t, Horizon))
	}
}

// Local is the clock's reading at true time t, 0 <= t <= Horizon. At a step
// instant the step has already happened.
func (c *Clock) Local(t time.Duration) time.Duration {
	checkTrue("Local", t)
	if c.flat {
		return c.segs[0].local + t // advance at the ideal rate, from 0
	}
	g := &c.segs[c.find(t)]
	l, _, _ := advance(g.local, g.frac, g.k, t-g.at)
	return l
}

// When returns the earliest true time t >= from at which the clock reads at
// least l, or Never if it does not by Horizon. It is exact: Local(t) >= l,
// and Local(u) < l for every u in [from, t). If the clock already reads l
// at from, the answer is from. A forward step over l makes the step instant
// the answer; after a backward step a reading can come twice, and the first
// time at or after from counts.
func (c *Clock) When(l, from time.Duration) time.Duration {
	checkTrue("When", from)
	if c.flat {
		return c.flatWhen(l, from)
	}
	return c.when(c.find(from), l, from)
}

// After is When(Local(from)+d, from): the true time at which the clock
// reads d more than it does at from (d may be negative, and the sum wraps
// as it would written out). It finds the segment in force at from once,
// where Local and When would each search for it: every actor timer in a
// world is set this way, one for every message a Redis node serves.
func (c *Clock) After(from, d time.Duration) time.Duration {
	checkTrue("After", from)
	if c.flat {
		return c.flatWhen(c.segs[0].local+from+d, from)
	}
	i := c.find(from)
	g := &c.segs[i]
	now, _, _ := advance(g.local, g.frac, g.k, from-g.at)
	return c.when(i, now+d, from)
}

// when is When(l, from) with i the segment in force at from.
func (c *Clock) when(i int, l, from time.Duration) time.Duration {
	if t, ok := c.reachIn(i, l, from); ok {
		return t
	}
	j := c.firstReaching(i+1, l)
	if j < 0 {
		return Never
	}
	t, ok := c.reachIn(j, l, c.segs[j].at)
	if !ok {
		panic("clocks: broken invariant: segment tree and segment disagree")
	}
	return t
}

// flatWhen is when(0, l, from) for a flat clock: its one segment starts
// at true time 0 at the ideal rate, so ticksTo's answer is the reading
// still needed, and the segment ends past Horizon.
func (c *Clock) flatWhen(l, from time.Duration) time.Duration {
	local := c.segs[0].local
	if l <= local {
		return from
	}
	need := uint64(l) - uint64(local) // exact, as in reachIn
	if need > uint64(Horizon) {
		return Never // no later segment reaches it
	}
	return max(time.Duration(need), from)
}

// reachIn returns the earliest t in [from, end(i)) at which segment i reads
// at least l; from must lie in segment i.
func (c *Clock) reachIn(i int, l, from time.Duration) (time.Duration, bool) {
	g := &c.segs[i]
	if l <= g.local {
		return from, true
	}
	// l > local, so the difference is exact as a uint64 whatever the signs.
	d, ok := ticksTo(uint64(l)-uint64(g.local), g.frac, g.k)
	if !ok || d > uint64(Horizon) {
		return 0, false
	}
	t := max(g.at+time.Duration(d), from)
	return t, t < c.end(i)
}

// ticksTo is the least d with frac + d·k >= need·1e9: the true ns a
// segment at rate k takes from the point (local, frac) to the reading
// local+need, need >= 1. ok is false if d >= 2^64.
func ticksTo(need uint64, frac, k int64) (d uint64, ok bool) {
	if k == ppbPerUnit {
		// At the ideal rate d = ceil(need - frac/1e9) = need, since
		// 0 <= frac < 1e9: no 128-bit hardware divide (tens of cycles)
		// for the clocks without a rate error, most of a world's.
		return need, true
	}
	// d = ceil((need·1e9 - frac) / k), in 128 bits.
	hi, lo := bits.Mul64(need, ppbPerUnit)
	var b, carry uint64
	lo, b = bits.Sub64(lo, uint64(frac), 0) // need·1e9 >= 1e9 > frac
	hi -= b
	lo, carry = bits.Add64(lo, uint64(k-1), 0)
	hi += carry
	if hi >= uint64(k) {
		return 0, false
	}
	d, _ = bits.Div64(hi, lo, uint64(k))
	return d, true
}

// firstReaching returns the first segment at or after lo whose last reading
// is at least l, or -1.
func (c *Clock) firstReaching(lo int, l time.Duration) int {
	if lo >= len(c.segs) {
		return -1
	}
	v := lo + c.n2
	for c.tree[v] < l {
		// Climb while v is a right child, then move to the subtree just
		// right of everything searched so far.
		for v&1 == 1 {
			v >>= 1
		}
		if v == 0 {
			return -1 // climbed past the root
		}
		v++
	}
	for v < c.n2 {
		v *= 2
		if c.tree[v] < l {
			v++
		}
	}
	return v - c.n2
}

// Rate is the rate error in ppm in effect at true time t, slews included.
// It is for narration; the mapping itself never uses floats.
func (c *Clock) Rate(t time.Duration) float64 {
	checkTrue("Rate", t)
	return float64(c.segs[c.find(t)].k-ppbPerUnit) / 1000
}

// String lists the segments: where each starts, the reading there and the
// rate.
func (c *Clock) String() string {
	var b strings.Builder
	for i, g := range c.segs {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "from %v: local %v, %+g ppm", g.at, g.local, float64(g.k-ppbPerUnit)/1000)
		if g.slew != 0 {
			fmt.Fprintf(&b, " (slewing %+g)", float64(g.slew)/1000)
		}
	}
	return b.String()
}

// Segment is one stretch of a clock at one rate, as Segments exports it:
// from true time At until the next segment's At (the last runs to Horizon)
// the clock reads Local + floor((Frac + (t-At)·Rate) / 1e9). The exact
// rational reading at At is Local + Frac/1e9, so a consumer that evaluates
// the segments this way, with 128-bit products, reads exactly what Local
// does.
type Segment struct {
	At    time.Duration // true time the segment starts
	Local time.Duration // whole local ns at At
	Frac  int64         // plus Frac/1e9 local ns, 0 <= Frac < 1e9
	Rate  int64         // local ns per 1e9 true ns: 1e9 + rate error (oscillator and slew) in ppb
}

// Segments returns the clock's segments in true-time order, the first at
// true time 0: steps, rate changes and slews are all in them, since a
// step starts a segment at a new reading and a slew is a stretch at a
// higher or lower rate. The slice is a copy.
func (c *Clock) Segments() []Segment {
	out := make([]Segment, len(c.segs))
	for i, g := range c.segs {
		out[i] = Segment{At: g.at, Local: g.local, Frac: g.frac, Rate: g.k}
	}
	return out
}
