package network

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redlocksim/redlocksim/sim"
	"github.com/redlocksim/redlocksim/sim/field"
)

// LatencyKind names a one-way latency distribution. The zero value is
// invalid, so a Latency nobody filled in is caught by Validate.
type LatencyKind uint8

const (
	LatencyConstant    LatencyKind = 1 + iota // always Value
	LatencyUniform                            // uniform on [Min, Max], nanosecond grain
	LatencyExponential                        // Min + exponential, with overall mean Mean
	LatencyLognormal                          // Median * exp(Sigma * N(0,1))
	LatencyEmpirical                          // measured data with a fitted tail (Table)
)

var latencyKindNames = [...]string{
	LatencyConstant:    "constant",
	LatencyUniform:     "uniform",
	LatencyExponential: "exponential",
	LatencyLognormal:   "lognormal",
	LatencyEmpirical:   "empirical",
}

const latencyKindsWant = "want one of constant, uniform, exponential, lognormal, empirical"

// String is the kind's name as written in scenario files.
func (k LatencyKind) String() string { return kindName(latencyKindNames[:], k, "LatencyKind") }

// ParseLatencyKind is the inverse of LatencyKind.String.
func ParseLatencyKind(s string) (LatencyKind, error) {
	if k, ok := parseKind[LatencyKind](latencyKindNames[:], s); ok {
		return k, nil
	}
	return 0, fmt.Errorf("unknown latency kind %q; %s", s, latencyKindsWant)
}

// Latency is a one-way message delay distribution. Only the fields of its
// Kind may be set; Validate rejects the others so that a misplaced field in a
// scenario file is an error rather than silently ignored.
type Latency struct {
	Kind   LatencyKind
	Value  time.Duration // constant
	Min    time.Duration // uniform lower bound; exponential floor (0 for a plain exponential)
	Max    time.Duration // uniform upper bound, inclusive
	Mean   time.Duration // exponential mean, floor included
	Median time.Duration // lognormal
	Sigma  float64       // lognormal shape, unitless (the standard deviation of ln delay)
	// Table is an empirical latency's data, loaded by whoever read the
	// file (the scenario loader): this package never reads files.
	Table *Empirical
}

// FromTable returns the empirical latency of t.
func FromTable(t *Empirical) Latency { return Latency{Kind: LatencyEmpirical, Table: t} }

// FromTail reports whether d, a draw of l, came from an empirical table's
// fitted tail rather than its data; always false for the other kinds.
// The estimator names with it which tail produced a failure path.
func (l Latency) FromTail(d time.Duration) bool {
	return l.Kind == LatencyEmpirical && l.Table != nil && l.Table.FromTail(d)
}

// Constant returns a latency that is always d.
func Constant(d time.Duration) Latency { return Latency{Kind: LatencyConstant, Value: d} }

// Uniform returns a latency uniform on [min, max].
func Uniform(min, max time.Duration) Latency {
	return Latency{Kind: LatencyUniform, Min: min, Max: max}
}

// Exponential returns an exponential latency with the given mean. Set Min on
// the result for a shifted exponential that never goes below Min.
func Exponential(mean time.Duration) Latency {
	return Latency{Kind: LatencyExponential, Mean: mean}
}

// Lognormal returns a lognormal latency: half the samples fall below median,
// and sigma sets the tail (0 is a constant, 1 is a heavy tail).
func Lognormal(median time.Duration, sigma float64) Latency {
	return Latency{Kind: LatencyLognormal, Median: median, Sigma: sigma}
}

// Validate reports the first problem with l, naming the field as scenario
// files spell it.
func (l Latency) Validate() error {
	if l.Kind == 0 {
		return fmt.Errorf("latency kind is not set; %s", latencyKindsWant)
	}
	if int(l.Kind) >= len(latencyKindNames) {
		return fmt.Errorf("latency kind %d is unknown; %s", l.Kind, latencyKindsWant)
	}
	// Fields foreign to the kind: which kinds each field belongs to.
	uses := [...]struct {
		name  string
		set   bool
		kinds string
		ok    bool
	}{
		{"value", l.Value != 0, "constant", l.Kind == LatencyConstant},
		{"min", l.Min != 0, "uniform and exponential", l.Kind == LatencyUniform || l.Kind == LatencyExponential},
		{"max", l.Max != 0, "uniform", l.Kind == LatencyUniform},
		{"mean", l.Mean != 0, "exponential", l.Kind == LatencyExponential},
		{"median", l.Median != 0, "lognormal", l.Kind == LatencyLognormal},
		{"sigma", l.Sigma != 0, "lognormal", l.Kind == LatencyLognormal},
		{"file", l.Table != nil, "empirical", l.Kind == LatencyEmpirical},
	}
	for _, u := range uses {
		if u.set && !u.ok {
			return fmt.Errorf("%v latency sets %s, which only %s latency uses", l.Kind, u.name, u.kinds)
		}
	}
	switch l.Kind {
	case LatencyConstant:
		if l.Value < 0 {
			return fmt.Errorf("constant latency value is %v; want >= 0", l.Value)
		}
	case LatencyUniform:
		if l.Min < 0 {
			return fmt.Errorf("uniform latency min is %v; want >= 0", l.Min)
		}
		if l.Max < l.Min {
			return fmt.Errorf("uniform latency max %v is below min %v; want max >= min", l.Max, l.Min)
		}
	case LatencyExponential:
		if l.Min < 0 {
			return fmt.Errorf("exponential latency min is %v; want >= 0", l.Min)
		}
		if l.Mean <= l.Min {
			if l.Min == 0 {
				return fmt.Errorf("exponential latency mean is %v; want > 0", l.Mean)
			}
			return fmt.Errorf("exponential latency mean %v is not above min %v; want mean > min", l.Mean, l.Min)
		}
	case LatencyLognormal:
		if l.Median <= 0 {
			return fmt.Errorf("lognormal latency median is %v; want > 0", l.Median)
		}
		// The one check of sigma's sign: the scenario loader leaves it
		// here and names the key from the Sigma path.
		if math.IsNaN(l.Sigma) || math.IsInf(l.Sigma, 0) {
			return field.Errorf(field.Of("Sigma"), "lognormal latency sigma is %v; want a finite number >= 0", l.Sigma)
		}
		if l.Sigma < 0 {
			return field.Errorf(field.Of("Sigma"), "must not be negative, got %v", l.Sigma)
		}
	case LatencyEmpirical:
		if l.Table == nil {
			return fmt.Errorf("empirical latency has no data; set file")
		}
	}
	return nil
}

// Expected is the distribution's mean, for planners that need one number
// (a lognormal's is its median × e^(σ²/2)).
func (l Latency) Expected() time.Duration {
	switch l.Kind {
	case LatencyConstant:
		return l.Value
	case LatencyUniform:
		return l.Min + (l.Max-l.Min)/2
	case LatencyExponential:
		return l.Mean
	case LatencyLognormal:
		return round(float64(l.Median) * math.Exp(l.Sigma*l.Sigma/2))
	case LatencyEmpirical:
		return l.Table.Mean()
	}
	return 0
}

// Longest is the longest delay the distribution can give, and whether it
// has one: a constant's value and a uniform's upper bound; an
// exponential, a lognormal or an empirical table (whose tail is fitted)
// has none.
func (l Latency) Longest() (time.Duration, bool) {
	switch l.Kind {
	case LatencyConstant:
		return l.Value, true
	case LatencyUniform:
		return l.Max, true
	}
	return 0, false
}

// Sample draws one delay from r. It is a fixed function of r's state: the
// same stream gives the same delays. l must be valid; an unknown kind panics.
//
// Draws per sample: constant none, uniform one Uint64N, exponential one
// ExpFloat64, lognormal and empirical one NormFloat64. Float results are rounded to the
// nearest nanosecond, saturating at the largest Duration.
func (l Latency) Sample(r *rand.Rand) time.Duration {
	switch l.Kind {
	case LatencyConstant:
		return l.Value
	case LatencyUniform:
		// Max-Min fits in int64, so +1 cannot overflow uint64.
		return l.Min + time.Duration(r.Uint64N(uint64(l.Max-l.Min)+1))
	case LatencyExponential:
		// Shifted so that Mean is the mean of the whole distribution.
		return addSat(l.Min, round(float64(l.Mean-l.Min)*r.ExpFloat64()))
	case LatencyLognormal:
		return round(float64(l.Median) * math.Exp(l.Sigma*r.NormFloat64()))
	case LatencyEmpirical:
		return l.Table.Sample(r)
	}
	panic(fmt.Sprintf("network: Sample of invalid latency kind %v", l.Kind))
}

// Draw draws one delay from s as Sample does, the same delays from the
// same stream, unless the run's sampling tilts site on s (see sim.Tilt):
// then an exponential's unit variate and a lognormal's normal one come
// from the tilted distribution, and the run's likelihood ratio takes the
// draw; an empirical table's normal variate (Empirical.FromNormal) tilts
// the same way. Constant and uniform latencies are never tilted.
func (l Latency) Draw(s *sim.Stream, site string) time.Duration { return l.draw(s, site) }

// draw is Draw through a pointer: Send's latency is 64 bytes, copied
// twice per message when passed by value.
func (l *Latency) draw(s *sim.Stream, site string) time.Duration {
	if !s.Tilted() {
		if l.Kind == LatencyUniform {
			// As Sample, from the stream's own Uint64N (no interface call).
			return l.Min + time.Duration(s.Uint64N(uint64(l.Max-l.Min)+1))
		}
		return l.Sample(&s.Rand)
	}
	switch l.Kind {
	case LatencyExponential:
		return addSat(l.Min, round(float64(l.Mean-l.Min)*s.Exp(site)))
	case LatencyLognormal:
		return round(float64(l.Median) * math.Exp(l.Sigma*s.Normal(site)))
	case LatencyEmpirical:
		return l.Table.FromNormal(s.Normal(site))
	}
	return l.Sample(&s.Rand)
}

// String is a compact form for traces and error messages, e.g.
// "uniform(1ms,5ms)".
func (l Latency) String() string {
	switch l.Kind {
	case LatencyConstant:
		return fmt.Sprintf("constant(%v)", l.Value)
	case LatencyUniform:
		return fmt.Sprintf("uniform(%v,%v)", l.Min, l.Max)
	case LatencyExponential:
		if l.Min != 0 {
			return fmt.Sprintf("exponential(mean=%v,min=%v)", l.Mean, l.Min)
		}
		return fmt.Sprintf("exponential(%v)", l.Mean)
	case LatencyLognormal:
		return fmt.Sprintf("lognormal(%v,%v)", l.Median, strconv.FormatFloat(l.Sigma, 'g', -1, 64))
	case LatencyEmpirical:
		if l.Table != nil {
			return l.Table.String()
		}
	}
	return l.Kind.String()
}

// round converts a non-negative float nanosecond count to a Duration.
func round(ns float64) time.Duration {
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(math.Round(ns))
}

// addSat adds two non-negative durations, saturating instead of wrapping:
// a wrapped delivery time would land in the past and panic the kernel.
func addSat(a, b time.Duration) time.Duration {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxInt64
}
