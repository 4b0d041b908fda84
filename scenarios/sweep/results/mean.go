package results

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The averaged columns of a results file carry a 95% Student t interval
// on the point's per-run values: mean ± t(0.975, n−1) · s/√n, with s the
// sample standard deviation. Every per-run value is non-negative, so the
// low end is clamped at 0. A ratio of sums Σy/Σx gets the delta-method
// interval of a ratio estimator, R ± t · s_d/(√n · x̄), with d = y − R·x
// per run. Both are computed in one pass over the runs in replicate order
// (Welford's updates), so they depend only on the point's runs, never on
// the worker count. With fewer than two runs there is no spread to
// estimate; with no spread among the runs the interval is the mean itself.

// Spread accumulates the sample variance of one per-run value (Welford):
// numerically stable and exact in its order of additions.
type Spread struct {
	n        int
	mean, m2 float64
}

// Add counts one value.
func (s *Spread) Add(x float64) {
	s.n++
	d := x - s.mean
	s.mean += d / float64(s.n)
	s.m2 += d * (x - s.mean)
}

// TQuantile95 is the two-sided 95% quantile of Student's t with n−1
// degrees of freedom (1.96 as n grows).
func TQuantile95(n int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
}

// Interval is the t interval around mean, which the caller computed from
// the same values (so a column keeps its exact bytes), in the values' unit
// divided by unit (1e6: ns to ms). ok is false with fewer than two values.
func (s *Spread) Interval(mean, unit float64) (lo, hi float64, ok bool) {
	if s.n < 2 {
		return 0, 0, false
	}
	half := TQuantile95(s.n) * math.Sqrt(s.m2/float64(s.n-1)/float64(s.n)) / unit
	return max(0, mean-half), mean + half, true
}

// CoSpread accumulates what the delta-method interval of Σy/Σx needs:
// both variances and the covariance (Welford's co-moment update).
type CoSpread struct {
	n             int
	mx, my        float64
	mxx, myy, mxy float64
}

// Add counts one run's pair.
func (c *CoSpread) Add(x, y float64) {
	c.n++
	dx := x - c.mx
	c.mx += dx / float64(c.n)
	dy := y - c.my
	c.my += dy / float64(c.n)
	c.mxx += dx * (x - c.mx)
	c.myy += dy * (y - c.my)
	c.mxy += dx * (y - c.my)
}

// RatioInterval is the interval around r = Σy/Σx, times scale, clamped
// at 0 below; ok is false with fewer than two runs or Σx = 0. At Σy = 0 it
// is [0, 0]: the delta method sees no spread. PoissonRate is the honest
// interval for a rate of rare events.
func (c *CoSpread) RatioInterval(r, scale float64) (lo, hi float64, ok bool) {
	if c.n < 2 || c.mx <= 0 {
		return 0, 0, false
	}
	vd := max(0, (c.myy-2*r*c.mxy+r*r*c.mxx)/float64(c.n-1))
	half := TQuantile95(c.n) * math.Sqrt(vd/float64(c.n)) / c.mx
	return max(0, (r-half)*scale), (r + half) * scale, true
}

// MeanInterval is the mean of xs with its 95% Student t interval (low end
// clamped at 0: for non-negative values, such as times); ok is false with
// fewer than two values, when lo and hi are the mean itself.
func MeanInterval(xs []float64) (mean, lo, hi float64, ok bool) {
	var s Spread
	for _, x := range xs {
		s.Add(x)
	}
	if lo, hi, ok = s.Interval(s.mean, 1); !ok {
		return s.mean, s.mean, s.mean, false
	}
	return s.mean, lo, hi, true
}
