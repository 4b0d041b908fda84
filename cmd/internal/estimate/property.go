package estimate

import (
	"fmt"

	"github.com/redlocksim/redlocksim/model"
)

// Property is what a run may violate.
type Property int

const (
	Mutex    Property = 1 + iota // two clients believed they held the lock at once
	Resource                     // the resource lost an update or accepted a stale write
)

func (p Property) String() string {
	switch p {
	case Mutex:
		return "mutex"
	case Resource:
		return "resource"
	}
	return fmt.Sprintf("Property(%d)", int(p))
}

// ParseProperty reads mutex or resource.
func ParseProperty(s string) (Property, error) {
	switch s {
	case "mutex":
		return Mutex, nil
	case "resource":
		return Resource, nil
	}
	return 0, fmt.Errorf("unknown property %q; want mutex or resource", s)
}

func (p Property) violated(r *model.Result) bool {
	if p == Mutex {
		return !r.MutexSafe()
	}
	return !r.ResourceSafe()
}

// CanViolate says why a scenario cannot violate p, or "" if it can: mutual
// exclusion needs two clients.
func (p Property) CanViolate(cfg *model.Config) string {
	if p == Mutex && len(cfg.Clients) < 2 {
		return fmt.Sprintf("mutual exclusion needs two clients, and the scenario has %d", len(cfg.Clients))
	}
	return ""
}
