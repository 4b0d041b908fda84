package explore

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// shrink makes a violating schedule 1-minimal on the same seed (see the
// package comment). It stops early, keeping what it has, when ctx ends;
// every schedule it keeps still violates. runs counts the runs it made.
//
// Once the faults are minimal it drops the base's last client while the
// schedule still violates without it (and hits no fault of it), shrinking
// the faults again after each drop: the explorer it returns is on the base
// with that many clients, its --set overrides extended by clients.count.
// Nodes are kept: their number sets the quorum, which is the question.
//
// A run that panics counts as safe and its error, the first, is returned:
// it is a bug in the model, not a property of the schedule.
func (e *Explorer) shrink(ctx context.Context, s Schedule) (out Schedule, on *Explorer, runs int, err error) {
	s = slices.Clone(s)
	on = e
	var internal error
	for {
		violates := func(t Schedule) bool {
			runs++
			bad, _, err := on.judge(t)
			var ie *sweeprun.InternalError
			if errors.As(err, &ie) && internal == nil {
				internal = err
			}
			return bad
		}
		s = on.shrinkFaults(ctx, s, violates)
		fewer := on.fewerClients(s)
		if ctx.Err() != nil || fewer == nil || internal != nil {
			return s, on, runs, internal
		}
		runs++
		if !fewer.Violates(s) {
			return s, on, runs, internal
		}
		on = fewer
	}
}

// ShrinkWhile makes s 1-minimal for another property than the explorer's
// own: holds must be true of s, and every schedule it returns keeps it.
// It shrinks the faults only (drops, magnitudes, times, as shrink does),
// never the clients, and stops early, keeping what it has, when ctx ends.
func (e *Explorer) ShrinkWhile(ctx context.Context, s Schedule, holds func(Schedule) bool) Schedule {
	return e.shrinkFaults(ctx, slices.Clone(s), holds)
}

// shrinkFaults drops faults and moves magnitudes and times in rounds until
// nothing moves.
func (e *Explorer) shrinkFaults(ctx context.Context, s Schedule, violates func(Schedule) bool) Schedule {
	for ctx.Err() == nil {
		moved := false
		if t := ddmin(ctx, s, violates); len(t) < len(s) {
			s, moved = t, true
		}
		for i := range s {
			if e.tieToAcquisition(s, i, violates) {
				moved = true
			}
			for _, f := range fields(s[i].Kind) {
				if ctx.Err() != nil {
					return s
				}
				if e.bisect(s, i, f, violates) {
					moved = true
				}
			}
		}
		if !moved {
			break
		}
	}
	return s
}

// tieToAcquisition makes s[i], a pause of a client at a fixed time, a
// pause on the client's next acquisition at or after that time, when
// Options.OnAcquire asks for it and s still violates so; it reports
// whether it did. The step's time then bisects like any other: toward the
// earliest from which the next acquisition still breaks the property.
func (e *Explorer) tieToAcquisition(s Schedule, i int, violates func(Schedule) bool) bool {
	st := s[i]
	if !e.onAcquire || st.Kind != model.Pause || st.OnAcquire || e.space.role(st.Target) != "client" {
		return false
	}
	t := slices.Clone(s)
	t[i].OnAcquire = true
	if !violates(t) {
		return false
	}
	s[i].OnAcquire = true
	return true
}

// fewerClients is the explorer on the base without its last client, or
// nil where that cannot be: too few clients left for the property, a
// fault of s hits that client, or the base names it (the loader refuses
// the smaller count).
func (e *Explorer) fewerClients(s Schedule) *Explorer {
	clients := e.sc.Config.Clients
	least := 2 // two clients to overlap or to overwrite each other
	if e.prop == Liveness {
		least = 1
	}
	if len(clients) <= least {
		return nil
	}
	last := clients[len(clients)-1].Name
	if slices.ContainsFunc(s, func(st Step) bool { return st.Target == last || st.To == last }) {
		return nil
	}
	o := scenarios.Override{Key: "clients.count", Value: int64(len(clients) - 1), File: "explore"}
	sets := append(slices.Clone(e.sets), o)
	sc, err := e.base.Apply(sets...)
	if err != nil || len(sc.Config.Clients) != len(clients)-1 {
		return nil
	}
	fewer := *e
	fewer.sc, fewer.sets = sc, sets
	return &fewer
}

// ddmin is Zeller's delta debugging on the list of faults: it tries subsets
// and their complements at ever finer granularity and ends with a list from
// which no single fault can be dropped.
func ddmin(ctx context.Context, s Schedule, violates func(Schedule) bool) Schedule {
	n := 2
	for len(s) >= 2 && ctx.Err() == nil {
		chunk := int(math.Ceil(float64(len(s)) / float64(n)))
		reduced := false
		for start := 0; start < len(s); start += chunk {
			end := min(start+chunk, len(s))
			subset := slices.Clone(s[start:end])
			complement := slices.Concat(s[:start:start], s[end:])
			switch {
			case len(subset) < len(s) && violates(subset):
				s, n, reduced = subset, 2, true
			case n > 2 && violates(complement):
				s, n, reduced = complement, max(n-1, 2), true
			}
			if reduced {
				break
			}
		}
		if !reduced {
			if n >= len(s) {
				break
			}
			n = min(2*n, len(s))
		}
	}
	return s
}

// bisect moves one field of s[i] as far toward its zero as it can while s
// still violates, by binary search in whole steps; it reports whether the
// field moved. At the end the value one step nearer zero was tried and is
// safe (or the field is at its zero).
func (e *Explorer) bisect(s Schedule, i int, f field, violates func(Schedule) bool) bool {
	cur := f.get(&s[i])
	z := e.space.zero(f.bounded, cur)
	if cur == z {
		return false
	}
	at := func(k int64) float64 { return z + float64(k)*f.unit*sign(cur-z) }
	try := func(v float64) bool {
		t := slices.Clone(s)
		f.set(&t[i], v)
		return violates(t)
	}
	if try(z) {
		f.set(&s[i], z)
		return true
	}
	// Invariant: lo steps from z is safe, hi steps violates.
	lo, hi := int64(0), int64(math.Round(math.Abs(cur-z)/f.unit))
	if hi <= 1 {
		return false
	}
	moved := false
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if try(at(mid)) {
			hi, moved = mid, true
		} else {
			lo = mid
		}
	}
	if moved {
		f.set(&s[i], at(hi))
	}
	return moved
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}
