package differ

import "github.com/redlocksim/redlocksim/scenarios/sweep/results"

// Side is one mode's runs of a property: K of N violated it. An Exact side
// is one deterministic outcome (the simulator's run of one drawn
// schedule), whose rate is a point rather than an estimate.
type Side struct {
	K, N  int
	Exact bool
}

// Violated is the verdict most runs gave: violation when at least half
// did.
func (s Side) Violated() bool { return 2*s.K >= s.N }

// Interval is the side's 95% interval on its violation rate: Wilson's,
// or the point of an exact side.
func (s Side) Interval() (lo, hi float64) {
	if s.Exact {
		r := float64(s.K) / float64(s.N)
		return r, r
	}
	return results.Wilson(s.K, s.N)
}

// Part is a property on which the simulator and reality part.
type Part struct {
	Property  string // "mutex" or "resource"
	Sim, Real Side
	// Verdicts is true when the two give different verdicts; false when
	// only their intervals do not overlap.
	Verdicts bool
}

// Judge is the one rule by which the simulator and reality agree on a
// property, used by compare and by the differential search: they part when
// their verdicts (what most runs gave) differ, or when their intervals on
// the violation rate do not overlap.
func Judge(property string, sim, real Side) (Part, bool) {
	p := Part{Property: property, Sim: sim, Real: real}
	if sim.Violated() != real.Violated() {
		p.Verdicts = true
		return p, true
	}
	slo, shi := sim.Interval()
	rlo, rhi := real.Interval()
	return p, !(slo <= rhi && rlo <= shi)
}
