package model

import "time"

// HealedBy is when every fault of a run has ended, for the liveness
// property's clock: a fault whose kind takes a For (a pause, crash, power
// loss, spike or election) once it is over, a partition or cut at the next
// heal after it (at end when none follows), a clock fault or a loss change
// at once (a stepped clock stays stepped, but nothing waits on it), a
// pause on acquisition at end. It is a pure function of the
// fault list, so that explore, which judges a schedule, and run, which
// replays the file explore wrote, count from the same moment.
func HealedBy(faults []Fault, end time.Duration) time.Duration {
	var healed time.Duration
	for i, f := range faults {
		done := f.At + f.AtSpread // a drawn time: its latest
		switch {
		case f.OnAcquire:
			// It strikes at an acquisition the list does not foretell.
			done = end
		case f.Kind.Takes("For"):
			done += f.For + f.ForSpread
		case f.Kind == Partition || f.Kind == Cut:
			done = end
			for j, g := range faults {
				if g.Kind == Heal && (g.At > f.At || g.At == f.At && j > i) {
					done = min(done, g.At+g.AtSpread)
				}
			}
		}
		healed = max(healed, done)
	}
	return healed
}
