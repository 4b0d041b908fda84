package model

import (
	"math"
	"time"

	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// A branch of a run (sim.Sampling's branch points, multilevel splitting's
// clones) re-seeds every stream, but a random pause is drawn ahead: its
// length when it starts, the next one's start and length when it fires.
// Those values are in the world's state, unseen yet, and a clone that kept
// them would only replay its parent. So a branch redraws them from their
// law given what the run has shown so far: a pause in force that has
// lasted e gets a length drawn from the length's law above e; the next
// arrival of a Poisson process is now plus a fresh exponential gap
// (memoryless), with a fresh length. Both are exact: the continuation is
// a draw of the model's own future given the state at the branch. Only
// branched runs do this; every other run draws as before.

// pauseState is one client's random pauses.
type pauseState struct {
	d   *PauseDraws
	p   *proc
	cfg PauseConfig

	at, length time.Duration // the next pause, if ok
	ok         bool
	ev         sim.EventID
	fire       sim.Func

	spans []pauseSpan // the pauses made, in a sampled run
}

// pauseSpan is one random pause made: from start to end (true time).
type pauseSpan struct{ start, end time.Duration }

// randomPause starts a random pause of ps's client, for d.
func (w *World) randomPause(ps *pauseState, d time.Duration) {
	now := w.k.Now()
	end := now + min(d, math.MaxInt64-now)
	if w.sampled {
		ps.spans = append(ps.spans, pauseSpan{start: now, end: end})
	}
	w.pauseUntil(ps.p, d, end, "GC")
}

// redrawPauses is the branch hook: it redraws, from the streams just
// re-seeded, the ends of the random pauses in force and every client's
// next random pause.
func (w *World) redrawPauses() {
	now := w.k.Now()
	for _, ps := range w.pauses {
		r := ps.d.r
		changed := false
		for i := range ps.spans {
			sp := &ps.spans[i]
			if sp.end <= now {
				continue
			}
			if l, ok := lengthAbove(ps.cfg.Length, r, now-sp.start); ok {
				sp.end = sp.start + min(l, math.MaxInt64-sp.start)
				changed = true
			}
		}
		if changed && ps.p.paused {
			end := ps.p.fixedResume
			for _, sp := range ps.spans {
				end = max(end, sp.end)
			}
			ps.p.resume = end
			w.k.Schedule(max(end, now), ps.p.wake, 0)
		}
		if len(ps.cfg.Arrivals) > 0 {
			// The log's arrivals are not memoryless: keep the next
			// arrival, redraw its length.
			if ps.ok {
				ps.length = ps.cfg.Length.Draw(r, "length")
			}
			continue
		}
		if ps.ok {
			w.k.Cancel(ps.ev)
		}
		ps.d.cfg.Every = ps.cfg.Every // a spent draw is a hidden value too
		ps.d.at, ps.d.started = now, true
		ps.next(w)
	}
}

// SampledPausesOf are the random pauses a sampled run made, with the
// lengths they had in the end (a branch redraws them), in client order
// and then time order.
func (w *World) sampledPauses() []RandomPause {
	var out []RandomPause
	for _, ps := range w.pauses {
		for _, sp := range ps.spans {
			out = append(out, RandomPause{Client: ps.p.Name(), At: sp.start, For: sp.end - sp.start})
		}
	}
	return out
}

// lengthAbove draws a length from l given that it exceeds e, and whether
// l's kind has a law to draw it from (a constant has nothing to redraw).
// Lognormal and empirical lengths are a monotone function of one normal
// variate, so the condition is the variate's, drawn from the normal's
// tail; an exponential is memoryless; a uniform stays uniform above e.
func lengthAbove(l network.Latency, r *sim.Stream, e time.Duration) (time.Duration, bool) {
	switch l.Kind {
	case network.LatencyLognormal:
		if l.Sigma == 0 {
			return 0, false
		}
		z0 := math.Inf(-1)
		if e > 0 {
			z0 = math.Log(float64(e)/float64(l.Median)) / l.Sigma
		}
		return max(e+1, durationOf(float64(l.Median)*math.Exp(l.Sigma*normalAbove(r, z0)))), true
	case network.LatencyEmpirical:
		if l.Table == nil {
			return 0, false
		}
		f := l.Table.FromNormal
		lo, hi := -40.0, 40.0
		if f(hi) <= e {
			return 0, false // beyond what the table can draw
		}
		for range 64 {
			mid := (lo + hi) / 2
			if f(mid) > e {
				hi = mid
			} else {
				lo = mid
			}
		}
		return max(e+1, f(normalAbove(r, lo))), true
	case network.LatencyExponential:
		scale := float64(l.Mean - l.Min)
		if e < l.Min {
			return l.Min + durationOf(scale*r.ExpFloat64()), true
		}
		return e + max(1, durationOf(scale*r.ExpFloat64())), true
	case network.LatencyUniform:
		lo := max(l.Min, e+1)
		if lo > l.Max {
			return 0, false
		}
		return lo + time.Duration(r.Uint64N(uint64(l.Max-lo)+1)), true
	}
	return 0, false
}

func durationOf(ns float64) time.Duration {
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(math.Round(ns))
}

// normalAbove draws a standard normal variate given that it exceeds z0:
// by rejection from the normal near the middle, from Robert's (1995)
// exponential proposal in the tail, where it accepts at least 3 in 4.
func normalAbove(r *sim.Stream, z0 float64) float64 {
	if z0 < 0.5 {
		for {
			if z := r.NormFloat64(); z > z0 {
				return z
			}
		}
	}
	a := (z0 + math.Sqrt(z0*z0+4)) / 2
	for {
		x := z0 + r.ExpFloat64()/a
		if r.Float64() < math.Exp(-(x-a)*(x-a)/2) {
			return x
		}
	}
}
