package network

import (
	"fmt"
	"math"
	"time"
)

// Quantile is one measured quantile of a distribution: P(X <= At) = P.
type Quantile struct {
	P  float64       // in (0, 1)
	At time.Duration // > 0
}

// normalQuantile is the standard normal's inverse CDF, Φ⁻¹(p).
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// LognormalFromQuantiles is the lognormal through two quantiles: with
// z = Φ⁻¹(p), ln x_p = ln median + sigma·z, so two points fix the line.
// The quantiles may come in either order; the higher one must be larger,
// else no lognormal (and no distribution at all) has them.
func LognormalFromQuantiles(a, b Quantile) (Latency, error) {
	if a.P > b.P {
		a, b = b, a
	}
	for _, q := range []Quantile{a, b} {
		if !(q.P > 0 && q.P < 1) {
			return Latency{}, fmt.Errorf("quantile level %v is outside (0, 1)", q.P)
		}
		if q.At <= 0 {
			return Latency{}, fmt.Errorf("the %v quantile is %v; want > 0", q.P, q.At)
		}
	}
	if a.P == b.P {
		return Latency{}, fmt.Errorf("two different quantiles are needed, got the %v quantile twice", a.P)
	}
	if b.At <= a.At {
		return Latency{}, fmt.Errorf("the %v quantile %v is not above the %v quantile %v: a higher quantile is always larger", b.P, b.At, a.P, a.At)
	}
	za, zb := normalQuantile(a.P), normalQuantile(b.P)
	la, lb := math.Log(float64(a.At)), math.Log(float64(b.At))
	sigma := (lb - la) / (zb - za)
	median := round(math.Exp(la - sigma*za))
	if median <= 0 {
		return Latency{}, fmt.Errorf("the quantiles %v at %v and %v at %v put the median below 1ns", a.P, a.At, b.P, b.At)
	}
	return Lognormal(median, sigma), nil
}
