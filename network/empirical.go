package network

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// TailKind names how an empirical table extends beyond its data. The zero
// value is invalid.
type TailKind uint8

const (
	TailNone      TailKind = 1 + iota // the data only: nothing longer than the longest seen
	TailLognormal                     // above the threshold, threshold + a lognormal excess
	TailPareto                        // above the threshold, a Pareto with the threshold as its scale
)

var tailKindNames = [...]string{TailNone: "none", TailLognormal: "lognormal", TailPareto: "pareto"}

// DefaultTail is the tail an empirical table gets when the file does not
// say: a lognormal, which follows GC pause tails well without the
// Pareto's infinite moments for a small fitted alpha.
const DefaultTail = TailLognormal

// DefaultTailAbove is the quantile of the data above which the tail is
// fitted when the file does not say.
const DefaultTailAbove = 0.9

// MinTailSamples is the fewest samples above the threshold a tail is
// fitted to: with fewer, the fitted shape is mostly noise, and the tail
// is where the violations come from.
const MinTailSamples = 100

func (k TailKind) String() string { return kindName(tailKindNames[:], k, "TailKind") }

// ParseTailKind is the inverse of TailKind.String.
func ParseTailKind(s string) (TailKind, error) {
	if k, ok := parseKind[TailKind](tailKindNames[:], s); ok {
		return k, nil
	}
	return 0, fmt.Errorf("unknown tail %q; want one of none, lognormal, pareto", s)
}

// Empirical is a distribution measured from data: the samples themselves
// below a threshold, and above it a tail fitted to the samples there
// (peaks over threshold). It is immutable once made; share it freely.
type Empirical struct {
	// Source names the data for String and provenance: the file as the
	// scenario wrote it, its format, and its SHA-256 (short).
	Source, Format, Digest string

	samples []time.Duration // sorted
	body    int             // samples[:body] are at or below above
	tail    TailKind
	above   time.Duration // the threshold; meaningless for TailNone
	// The tail's fit, by maximum likelihood on the exceedances:
	// lognormal: ln(x - above) ~ N(mu, sigma²); pareto: P(X > x) =
	// (x/above)^-alpha.
	mu, sigma, alpha float64
	mean             time.Duration
}

// TailFit says how to extend an empirical table: the tail's kind, and the
// threshold, as a duration (Above) or as a quantile of the data
// (AboveQuantile, used when Above is 0).
type TailFit struct {
	Kind          TailKind
	Above         time.Duration
	AboveQuantile float64
}

// NewEmpirical makes the table of samples (in any order; not kept) with
// the tail fit. Errors say what is wrong with the data for the fit.
func NewEmpirical(samples []time.Duration, fit TailFit) (*Empirical, error) {
	if len(samples) == 0 {
		return nil, fmt.Errorf("no samples")
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	if s[0] < 0 {
		return nil, fmt.Errorf("a sample is negative (%v)", s[0])
	}
	e := &Empirical{samples: s, body: len(s), tail: fit.Kind}
	if fit.Kind == 0 || int(fit.Kind) >= len(tailKindNames) {
		return nil, fmt.Errorf("tail kind %v is unknown; want one of none, lognormal, pareto", fit.Kind)
	}
	if fit.Kind != TailNone {
		e.above = fit.Above
		if e.above == 0 {
			if !(fit.AboveQuantile > 0 && fit.AboveQuantile < 1) {
				return nil, fmt.Errorf("tail threshold quantile %v is outside (0, 1)", fit.AboveQuantile)
			}
			e.above = s[int(fit.AboveQuantile*float64(len(s)-1))]
		}
		if e.above <= 0 {
			return nil, fmt.Errorf("the tail threshold is %v; want > 0", e.above)
		}
		e.body, _ = slices.BinarySearch(s, e.above+1)
		if err := e.fit(); err != nil {
			return nil, err
		}
	}
	e.mean = e.expected()
	return e, nil
}

// fit estimates the tail's parameters from the exceedances.
func (e *Empirical) fit() error {
	ex := e.samples[e.body:]
	if len(ex) < MinTailSamples {
		return fmt.Errorf("a %v tail is fitted to the samples above the threshold %v, and %d of the %d samples are above it; a fit needs at least %d (give more data, a lower threshold, or tail = \"none\")",
			e.tail, e.above, len(ex), len(e.samples), MinTailSamples)
	}
	if ex[0] == ex[len(ex)-1] {
		return fmt.Errorf("the %d samples above the threshold %v are all equal (%v): a %v tail has nothing to fit", len(ex), e.above, ex[0], e.tail)
	}
	n := float64(len(ex))
	switch e.tail {
	case TailLognormal:
		var sum, sq float64
		for _, x := range ex {
			sum += math.Log(float64(x - e.above))
		}
		e.mu = sum / n
		for _, x := range ex {
			d := math.Log(float64(x-e.above)) - e.mu
			sq += d * d
		}
		e.sigma = math.Sqrt(sq / n)
	case TailPareto:
		var sum float64
		for _, x := range ex {
			sum += math.Log(float64(x) / float64(e.above))
		}
		e.alpha = n / sum
	}
	return nil
}

// N is the number of samples.
func (e *Empirical) N() int { return len(e.samples) }

// Tail is the tail's kind and the threshold above which it draws.
func (e *Empirical) Tail() (TailKind, time.Duration) { return e.tail, e.above }

// TailShare is the probability that a draw comes from the tail: the share
// of the samples above the threshold.
func (e *Empirical) TailShare() float64 {
	return float64(len(e.samples)-e.body) / float64(len(e.samples))
}

// Params is the tail's fit: mu and sigma of a lognormal tail's ln excess,
// or a Pareto tail's alpha (the others 0).
func (e *Empirical) Params() (mu, sigma, alpha float64) { return e.mu, e.sigma, e.alpha }

// FromTail reports whether the draw d was produced by the fitted tail
// rather than the data: a tail draw is always above the threshold, and a
// data draw never is.
func (e *Empirical) FromTail(d time.Duration) bool {
	return e.tail != TailNone && d > e.above
}

// Quantile is the table's inverse CDF at u in [0, 1).
func (e *Empirical) Quantile(u float64) time.Duration { return e.at(u, 1-u) }

// at is the inverse CDF at u, with q = 1-u given separately so that a
// draw deep in the tail keeps its precision (1-u rounds to 0 near 1e-16,
// q does not).
func (e *Empirical) at(u, q float64) time.Duration {
	n := float64(len(e.samples))
	if i := int(u * n); i < e.body {
		return e.samples[min(i, len(e.samples)-1)]
	}
	// The tail's own exceedance probability: where q falls within the
	// tail's share.
	qt := min(q*n/(n-float64(e.body)), 1)
	var x time.Duration
	switch e.tail {
	case TailLognormal:
		x = addSat(e.above, round(math.Exp(e.mu-e.sigma*normalQuantile(qt))))
	case TailPareto:
		x = round(float64(e.above) * math.Pow(qt, -1/e.alpha))
	}
	return max(x, e.above+1) // above the threshold, so FromTail can tell
}

// FromNormal is the table's draw for a standard normal variate z: the
// inverse CDF at Φ(z). Sample and a tilted draw (Latency.Draw) both go
// through it, so that an empirical table tilts as a lognormal does, by
// shifting z toward its tail.
func (e *Empirical) FromNormal(z float64) time.Duration {
	return e.at(0.5*math.Erfc(-z/math.Sqrt2), 0.5*math.Erfc(z/math.Sqrt2))
}

// Sample draws one value with one r.NormFloat64, by inversion: u = Φ(z)
// picks an index into the sorted samples, or the tail's quantile at u's
// position within the tail's share.
func (e *Empirical) Sample(r *rand.Rand) time.Duration {
	return e.FromNormal(r.NormFloat64())
}

// Mean is the table's mean: the data's below the threshold, the tail's
// above. A Pareto tail with alpha <= 1 has no mean; the data's mean above
// the threshold stands for it.
func (e *Empirical) Mean() time.Duration { return e.mean }

func (e *Empirical) expected() time.Duration {
	var sum float64
	for _, x := range e.samples[:e.body] {
		sum += float64(x)
	}
	n := float64(len(e.samples))
	k := n - float64(e.body)
	var tail float64
	switch {
	case e.tail == TailLognormal:
		tail = float64(e.above) + math.Exp(e.mu+e.sigma*e.sigma/2)
	case e.tail == TailPareto && e.alpha > 1:
		tail = float64(e.above) * e.alpha / (e.alpha - 1)
	default:
		for _, x := range e.samples[e.body:] {
			tail += float64(x) / k
		}
	}
	if k == 0 {
		tail = 0
	}
	return round(sum/n + tail*k/n)
}

// String is a compact form for traces and messages, e.g.
// "empirical(gc.log,n=1200,lognormal>35ms)".
func (e *Empirical) String() string {
	s := fmt.Sprintf("empirical(%s,n=%d", e.Source, len(e.samples))
	if e.tail != TailNone {
		s += fmt.Sprintf(",%v>%v", e.tail, e.above)
	}
	return s + ")"
}

// Scaled is the table with every time divided by f > 0: the samples, the
// threshold and the tail (a lognormal excess's median; a Pareto's alpha
// has no unit). The real harness runs scenarios slowed or sped up by f.
func (e *Empirical) Scaled(f float64) *Empirical {
	s := *e
	s.samples = make([]time.Duration, len(e.samples))
	for i, x := range e.samples {
		s.samples[i] = round(float64(x) / f)
	}
	s.above = round(float64(e.above) / f)
	s.mu = e.mu - math.Log(f)
	s.mean = round(float64(e.mean) / f)
	return &s
}
