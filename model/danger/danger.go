package danger

import (
	"slices"
	"time"
)

// Top is the score of a violation: above every margin (at most 1), so
// that a violating run is above every level below it.
const Top = 2.0

// Step is one rise of a run's running maximum score: after the events at
// At, the score was Score.
type Step struct {
	At    time.Duration
	Score float64
}

// Trace is a run's running maximum score, a step each time it rises, in
// time order.
type Trace []Step

// Note records a score seen at time at, if it raises the maximum.
func (t *Trace) Note(at time.Duration, score float64) {
	if n := len(*t); n == 0 || score > (*t)[n-1].Score {
		*t = append(*t, Step{At: at, Score: score})
	}
}

// Max is the run's largest score (0 for a run never scored).
func (t Trace) Max() float64 {
	if len(t) == 0 {
		return 0
	}
	return t[len(t)-1].Score
}

// Crossing is the time of the first step above z: the run's state just
// after the events at that time is above z.
func (t Trace) Crossing(z float64) (time.Duration, bool) {
	for _, s := range t {
		if s.Score > z {
			return s.At, true
		}
	}
	return 0, false
}

// Gone is a node's remaining key life for a node where the holder's key is
// not there (expired, deleted, never set).
const Gone = time.Duration(0)

// Down is a node's remaining key life for a node that is down: no client
// can take the lock there, whatever it held.
const Down = time.Duration(1<<63 - 1)

// FreeIn is the time until another client could take the lock, given each
// node's remaining life of the holder's key (Gone, Down, or the time left
// by the node's wall clock) and the number of nodes a client needs: the
// quorum-th shortest. With fewer nodes than the quorum, never (Down).
func FreeIn(remaining []time.Duration, quorum int) time.Duration {
	if quorum < 1 || quorum > len(remaining) {
		return Down
	}
	r := slices.Clone(remaining)
	slices.Sort(r)
	return max(0, r[quorum-1])
}

// Margin is a holder's score: the share of its keys' life gone, 1 − free
// / ttl, in [0, 1].
func Margin(free, ttl time.Duration) float64 {
	if ttl <= 0 {
		return 0
	}
	return min(1, max(0, 1-float64(free)/float64(ttl)))
}
