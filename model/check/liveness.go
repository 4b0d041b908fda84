package check

import (
	"fmt"
	"time"
)

// Starvation is the longest wait for the lock that Starved found, and the
// heal and limit it was judged against.
type Starvation struct {
	Client        string
	From, Wait    time.Duration // the wait counted from From
	Healed, Limit time.Duration
}

// String says who waited how long, as explore and run print it.
func (s Starvation) String() string {
	return fmt.Sprintf("%s waits %v for the lock after the faults healed at %v (limit %v)", s.Client, s.Wait, s.Healed, s.Limit)
}

// Starved judges the liveness property on a history: every client that
// wants the lock gets it within limit once the faults have healed at
// healed. It finds the longest wait counted from when the client began to
// want the lock or the faults healed, whichever is later (a want still
// open at the run's end counts to the end), and reports whether it
// exceeds limit. Like Check it is a pure function of its arguments.
func Starved(h History, healed, limit time.Duration) (Starvation, bool) {
	worst := Starvation{Healed: healed, Limit: limit}
	for _, w := range h.Wants {
		from := max(w.Start, healed)
		if w.End <= from {
			continue
		}
		if d := w.End - from; d > worst.Wait {
			worst.Client, worst.From, worst.Wait = w.Client, from, d
		}
	}
	return worst, worst.Wait > limit
}
