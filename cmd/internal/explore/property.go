package explore

import (
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/model"
)

// Property is what a run must keep. The zero value is invalid.
type Property uint8

const (
	_        Property = iota
	Mutex             // no two clients both believe they hold the lock
	Resource          // no lost update, no stale write accepted
	Liveness          // a client that wants the lock gets it within a limit once the faults have healed
)

var propertyNames = [...]string{"", "mutex", "resource", "liveness"}

func (p Property) String() string {
	if p > 0 && int(p) < len(propertyNames) {
		return propertyNames[p]
	}
	return fmt.Sprintf("Property(%d)", p)
}

// ParseProperty is the inverse of String.
func ParseProperty(s string) (Property, error) {
	for i, n := range propertyNames {
		if i > 0 && n == s {
			return Property(i), nil
		}
	}
	return 0, fmt.Errorf("--property: unknown property %q; valid: mutex, resource, liveness", s)
}

// verdict judges one run against the property; limit is the liveness
// bound, counted from when the run's faults have all ended
// (model.HealedBy, which the run judged online).
func (p Property) verdict(r *model.Result, limit time.Duration) (bad bool, what string) {
	switch p {
	case Mutex:
		rep := r.Report
		if r.MutexSafe() {
			return false, ""
		}
		return true, fmt.Sprintf("%d overlap%s (%v in all, longest %v)", rep.MutexViolations, plural(rep.MutexViolations), rep.MutexOverlapTotal, rep.MutexOverlapMax)
	case Resource:
		if r.ResourceSafe() {
			return false, ""
		}
		rep := r.Report
		return true, fmt.Sprintf("%d lost update%s, %d stale write%s accepted", rep.LostUpdates, plural(rep.LostUpdates), rep.StaleWritesAccepted, plural(rep.StaleWritesAccepted))
	case Liveness:
		w, ok := r.Starved(limit)
		if !ok {
			return false, ""
		}
		return true, w.String()
	}
	panic("explore: invalid property")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
