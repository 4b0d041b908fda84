package danger

import (
	"math"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/network"
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

// LogSurvival is log P(L > d) for a pause length L drawn from l, and
// whether l's kind has it here (lognormal, exponential, uniform).
func LogSurvival(l network.Latency) (func(d time.Duration) float64, bool) {
	switch l.Kind {
	case network.LatencyLognormal:
		if l.Sigma <= 0 {
			return nil, false
		}
		return func(d time.Duration) float64 {
			if d <= 0 {
				return 0
			}
			return math.Log(0.5 * math.Erfc(math.Log(float64(d)/float64(l.Median))/l.Sigma/math.Sqrt2))
		}, true
	case network.LatencyExponential:
		return func(d time.Duration) float64 {
			if d <= l.Min {
				return 0
			}
			return -float64(d-l.Min) / float64(l.Mean-l.Min)
		}, true
	case network.LatencyUniform:
		return func(d time.Duration) float64 {
			switch {
			case d < l.Min:
				return 0
			case d >= l.Max:
				return math.Inf(-1)
			}
			return math.Log(float64(l.Max-d) / float64(l.Max-l.Min+1))
		}, true
	}
	return nil, false
}

// Outlasts is a holder's score when its pauses' law is known: the chance
// that its pause outlasts its keys, S(frozen + free) / S(frozen), for a
// holder frozen for frozen (0: not paused, and a pause would start now)
// whose lock is free to others in free. It is the probability that the
// path the rare event takes from here (one long pause) completes: a
// committor, the ideal splitting score, which ranks a pause that started
// late in the keys' life above an equally long one that started early.
// It is 1 when the keys are gone, 0 when the lock is never free.
func Outlasts(logS func(time.Duration) float64, frozen, free time.Duration) float64 {
	if free == Down {
		return 0
	}
	if free <= 0 {
		return 1
	}
	return math.Exp(logS(frozen+free) - logS(frozen))
}
