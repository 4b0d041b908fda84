package sim

import (
	"math"
	"slices"
	"testing"
	"time"
)

// A stream taken from a kernel with a Sampling whose rules do not tilt it,
// or tilt it with the zero Tilt, draws exactly what a plain stream draws,
// and a zero Tilt adds nothing to the likelihood ratio.
func TestSamplingWithoutTiltDrawsAsPlain(t *testing.T) {
	plain := New(7)
	a := plain.Stream("pauses:c1")
	tilted := New(7)
	smp := &Sampling{Tilts: []Tilt{{Stream: "pauses:*"}}}
	tilted.SetSampling(smp)
	b := tilted.Stream("pauses:c1")
	ref := NewStream(7, "pauses:c1")
	for i := 0; i < 200; i++ {
		want := ref.NormFloat64()
		if x, y := a.Normal("length"), b.Normal("length"); x != want || y != want {
			t.Fatalf("draw %d: normal %v, %v; want %v", i, x, y, want)
		}
		want = ref.ExpFloat64()
		if x, y := a.Exp("every"), b.Exp("every"); x != want || y != want {
			t.Fatalf("draw %d: exp %v, %v; want %v", i, x, y, want)
		}
		want = ref.Float64()
		if x, y := a.Below("loss", 0.1), b.Below("loss", 0.1); x != want || y != want {
			t.Fatalf("draw %d: uniform %v, %v; want %v", i, x, y, want)
		}
	}
	if smp.LogLR != 0 {
		t.Errorf("LogLR = %v after untilted draws; want 0", smp.LogLR)
	}
	if got := smp.Sites[0].N; got != 600 {
		t.Errorf("the rule counted %d draws; want 600", got)
	}
}

// isEstimate is the importance-sampling estimate of P(event) from n runs
// of one draw each under tilt, and the mean weight (which must be near 1:
// the likelihood ratio integrates to one under the tilt).
func isEstimate(n int, tilt Tilt, draw func(*Stream) bool) (p, meanW float64) {
	for seed := uint64(1); seed <= uint64(n); seed++ {
		k := New(seed)
		smp := &Sampling{Tilts: []Tilt{tilt}}
		k.SetSampling(smp)
		hit := draw(k.Stream("s"))
		w := math.Exp(smp.LogLR)
		meanW += w
		if hit {
			p += w
		}
	}
	return p / float64(n), meanW / float64(n)
}

// Tilted draws with their likelihood ratios give unbiased estimates of
// tail probabilities far below what the same number of plain draws could
// see: the normal's, the exponential's and a Bernoulli's.
func TestTiltedDrawsEstimateTails(t *testing.T) {
	const n = 20000
	cases := []struct {
		name string
		tilt Tilt
		draw func(*Stream) bool
		want float64
		// bounded: the weights are bounded (mixtures, Bernoulli), so
		// their sample mean is near 1; a full tilt's weights have a
		// variance of e^(shift²), and their mean is not.
		bounded bool
	}{
		{"normal shift", Tilt{Stream: "s", Q: 1, Shift: 5}, func(s *Stream) bool { return s.Normal("x") > 5 }, 0.5 * math.Erfc(5/math.Sqrt2), false},
		{"normal mixture", Tilt{Stream: "s", Q: 0.3, Shift: 5}, func(s *Stream) bool { return s.Normal("x") > 5 }, 0.5 * math.Erfc(5/math.Sqrt2), true},
		{"exponential mixture", Tilt{Stream: "s", Q: 0.5, Scale: 12}, func(s *Stream) bool { return s.Exp("x") > 12 }, math.Exp(-12), true},
		{"exponential stretch", Tilt{Stream: "s", Q: 1, Scale: 12}, func(s *Stream) bool { return s.Exp("x") > 12 }, math.Exp(-12), false},
		{"bernoulli, three in a row", Tilt{Stream: "s", P: 0.5}, func(s *Stream) bool {
			return s.Below("x", 0.01) < 0.01 && s.Below("x", 0.01) < 0.01 && s.Below("x", 0.01) < 0.01
		}, 1e-6, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, meanW := isEstimate(n, c.tilt, c.draw)
			if math.Abs(p/c.want-1) > 0.1 {
				t.Errorf("estimate %.4g; want %.4g within 10%%", p, c.want)
			}
			if c.bounded && math.Abs(meanW-1) > 0.1 {
				t.Errorf("mean weight %.4g; want 1 within 0.1", meanW)
			}
		})
	}
}

// A Below tilted to P keeps the caller's comparison: the event happens
// with probability P, and the variate is uniform within each side of p.
func TestBelowTiltKeepsTheComparison(t *testing.T) {
	k := New(3)
	k.SetSampling(&Sampling{Tilts: []Tilt{{Stream: "s", P: 0.4}}})
	s := k.Stream("s")
	const n, p = 50000, 0.05
	hits, low := 0, 0
	for i := 0; i < n; i++ {
		u := s.Below("loss", p)
		if u < 0 || u >= 1 {
			t.Fatalf("u = %v outside [0, 1)", u)
		}
		if u < p {
			hits++
			if u < p/2 {
				low++
			}
		}
	}
	if f := float64(hits) / n; math.Abs(f-0.4) > 0.01 {
		t.Errorf("event frequency %.4f; want 0.4", f)
	}
	if f := float64(low) / float64(hits); math.Abs(f-0.5) > 0.02 {
		t.Errorf("%.3f of the events below p/2; want half", f)
	}
}

// A branched run draws what the plain run draws until the branch time,
// then something else, the same for the same salt; a stream taken after
// the branch is seeded from the branch too.
func TestBranchReplaysThePrefix(t *testing.T) {
	draws := func(smp *Sampling) (before, after []uint64, late uint64) {
		k := New(11)
		if smp != nil {
			k.SetSampling(smp)
		}
		s := k.Stream("actor:c1")
		for i := 1; i <= 10; i++ {
			k.Schedule(time.Duration(i)*time.Second, func(uint64) {
				if k.Now() <= 5*time.Second {
					before = append(before, s.Uint64())
				} else {
					after = append(after, s.Uint64())
				}
			}, 0)
		}
		k.Schedule(7*time.Second, func(uint64) { late = k.Stream("late").Uint64() }, 0)
		k.Run()
		return before, after, late
	}
	b0, a0, l0 := draws(nil)
	b1, a1, l1 := draws(&Sampling{Branch: true, BranchAt: 5500 * time.Millisecond, BranchSalt: 1})
	b2, a2, l2 := draws(&Sampling{Branch: true, BranchAt: 5500 * time.Millisecond, BranchSalt: 1})
	_, a3, _ := draws(&Sampling{Branch: true, BranchAt: 5500 * time.Millisecond, BranchSalt: 2})
	if !slices.Equal(b0, b1) {
		t.Errorf("the prefix differs: %v vs %v", b0, b1)
	}
	if a0[0] == a1[0] || a1[0] == a3[0] || l0 == l1 {
		t.Errorf("the continuation did not change: plain %v, salt 1 %v, salt 2 %v", a0, a1, a3)
	}
	if !slices.Equal(b1, b2) || !slices.Equal(a1, a2) || l1 != l2 {
		t.Errorf("the same branch drew differently")
	}
}

// A run with branch points [b1, b2] is the run with [b1] up to b2's time,
// and a second branch changes what follows it; the points replay exactly.
func TestBranchesChain(t *testing.T) {
	draws := func(smp *Sampling) (out []uint64, hooks int) {
		k := New(11)
		smp.AtBranch(func() { hooks++ })
		k.SetSampling(smp)
		s := k.Stream("actor:c1")
		for i := 1; i <= 10; i++ {
			k.Schedule(time.Duration(i)*time.Second, func(uint64) { out = append(out, s.Uint64()) }, 0)
		}
		k.Run()
		return out, hooks
	}
	one, h1 := draws(&Sampling{Branches: []BranchPoint{{At: 3 * time.Second, Salt: 5}}})
	two, h2 := draws(&Sampling{Branches: []BranchPoint{{At: 3 * time.Second, Salt: 5}, {At: 6500 * time.Millisecond, Salt: 9}}})
	again, _ := draws(&Sampling{Branches: []BranchPoint{{At: 3 * time.Second, Salt: 5}, {At: 6500 * time.Millisecond, Salt: 9}}})
	plain, _ := draws(&Sampling{})
	if h1 != 1 || h2 != 2 {
		t.Errorf("hooks ran %d and %d times; want 1 and 2", h1, h2)
	}
	if !slices.Equal(plain[:2], one[:2]) || slices.Equal(plain[2:3], one[2:3]) {
		t.Errorf("the first branch point: plain %v, branched %v", plain, one)
	}
	if !slices.Equal(one[:6], two[:6]) || slices.Equal(one[6:7], two[6:7]) {
		t.Errorf("the second branch point: one %v, two %v", one, two)
	}
	if !slices.Equal(two, again) {
		t.Errorf("the same branch points drew differently")
	}
}

// Uniform draws: untilted (no rule, or a zero rule) they are Float64's;
// tilted toward a narrow window by a Beta mixture, the weighted indicator
// estimates the window's width without bias, at either end and inside.
func TestUniformTilt(t *testing.T) {
	plain, zero := New(3), New(3)
	smp := &Sampling{Tilts: []Tilt{{Stream: "*"}}}
	zero.SetSampling(smp)
	a, b, ref := plain.Stream("clock:c1"), zero.Stream("clock:c1"), NewStream(3, "clock:c1")
	for i := 0; i < 100; i++ {
		want := ref.Float64()
		if x, y := a.Uniform("rate"), b.Uniform("rate"); x != want || y != want {
			t.Fatalf("draw %d: %v, %v; want %v", i, x, y, want)
		}
	}
	if smp.LogLR != 0 || smp.Sites[0].N != 100 || smp.Sites[0].Kind != DrawUniform {
		t.Errorf("zero tilt: LogLR %v, %+v", smp.LogLR, smp.Sites[0])
	}
	const n = 20000
	for _, c := range []struct {
		name   string
		tilt   Tilt
		lo, hi float64
	}{
		{"near 1", Tilt{Stream: "s", Q: 0.5, A: 30, B: 0.5}, 0.999, 1},
		{"near 0", Tilt{Stream: "s", Q: 0.5, A: 0.4, B: 20}, 0, 0.0005},
		{"inside", Tilt{Stream: "s", Q: 0.8, A: 400, B: 600}, 0.4, 0.4015},
	} {
		p, meanW := isEstimate(n, c.tilt, func(s *Stream) bool { u := s.Uniform("x"); return c.lo <= u && u < c.hi })
		want := c.hi - c.lo
		// A plain estimate from n draws has a relative error of about
		// 1/sqrt(n·want) ≈ 30%; the tilted one must do far better.
		if math.Abs(p-want) > 0.1*want || math.Abs(meanW-1) > 0.05 {
			t.Errorf("%s: estimate %.4g, want %.4g; mean weight %.4f", c.name, p, want, meanW)
		}
	}
}
