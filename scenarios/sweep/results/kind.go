package results

import (
	"fmt"
	"math"
)

// Kind is what one of the results or raw file's own columns holds: the
// range its values must lie in, whether they are whole numbers, and
// whether a cell may be empty. The sweep runner checks the cells it merges
// and resumes against it; the table reader checks the values it draws.
type Kind struct {
	Min, Max float64
	Integer  bool // a count: 0, 1, 2, ...
	Empty    bool // a cell may be empty (no interval with one run, no p99 without a success)
	What     string
}

var (
	countKind = Kind{Min: 0, Max: math.Inf(1), Integer: true, What: "a count, a whole number from 0"}
	rateKind  = Kind{Min: 0, Max: 1, What: "a fraction of runs, from 0 to 1"}
	// Every mean, ratio, duration and interval bound the files hold is of
	// values that are never negative (interval lows are clamped at 0).
	amountKind = Kind{Min: 0, Max: math.Inf(1), Empty: true, What: "a number from 0"}
)

// rateColumns are the columns that hold a fraction of runs.
var rateColumns = map[string]bool{
	"mutex_violation_rate": true, "mutex_ci_low": true, "mutex_ci_high": true,
	"resource_violation_rate": true, "resource_ci_low": true, "resource_ci_high": true,
}

// countColumns are the columns that hold whole numbers from 0.
var countColumns = map[string]bool{
	"point": true, "replicate": true, "seed": true, "runs": true,
	"mutex_violation_runs": true, "resource_violation_runs": true,
	"mutex_violations": true, "lost_updates": true, "stale_writes_accepted": true, "stale_writes_rejected": true,
	"writes_accepted": true, "acquire_attempts": true, "acquire_successes": true, "acquire_failures": true,
}

// KindOf returns the kind of a column the results (Summary) or raw (Raw)
// files write; ok is false for any other column (a spec's keys, replay,
// the Rates columns, the extra columns of compare --sweep).
func KindOf(name string) (k Kind, ok bool) {
	switch {
	case rateColumns[name]:
		return rateKind, true
	case countColumns[name]:
		return countKind, true
	case name == "replay":
		return Kind{}, false
	}
	for _, cols := range [][]Column{Summary, Raw} {
		for _, c := range Names(cols) {
			if c == name {
				return amountKind, true
			}
		}
	}
	return Kind{}, false
}

// Check returns an error saying what is wrong with value v of a column of
// this kind, or nil if it is in range.
func (k Kind) Check(v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("must be %s, got %g", k.What, v)
	case v < k.Min || v > k.Max:
		return fmt.Errorf("must be %s, got %g", k.What, v)
	case k.Integer && v != math.Trunc(v):
		return fmt.Errorf("must be %s, got %g", k.What, v)
	}
	return nil
}
