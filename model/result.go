package model

import (
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// Result is what one run produced.
type Result struct {
	Scenario string
	Seed     uint64
	End      time.Duration
	Report   check.Report
	History  check.History
	Events   uint64        // kernel events fired
	Net      network.Stats // messages sent, delivered, dropped
	Trace    []sim.Record  // empty unless tracing was on
	Timeline Timeline      // drawn from Trace (TimelineOf); empty unless tracing was on
	// Clocks are every actor's clocks, by name, so that a narration can
	// show each actor's own reading next to true time.
	Clocks map[string]*clocks.Process
	// Messages are the delivered messages, in delivery order; empty unless
	// tracing was on.
	Messages []Message
	// Lanes are the actors in display order: clients, nodes, then the
	// resource and the store or sentinel.
	Lanes []string
	// FinalLen is the size of the resource's final set (History.Final's
	// length in a narrated run, which alone keeps the set).
	FinalLen int

	// A fast run keeps no History: it judged liveness online, from the
	// time its faults healed.
	online  bool
	healed  time.Duration
	starved check.Starvation
}

// Starved judges liveness as check.Starved does on the run's history,
// counting waits from when the run's faults healed (HealedBy): a fast run
// keeps no history, and judged it online.
func (r Result) Starved(limit time.Duration) (check.Starvation, bool) {
	if !r.online {
		return check.Starved(r.History, r.healed, limit)
	}
	s := r.starved
	s.Limit = limit
	return s, s.Wait > limit
}

// MutexSafe reports whether no two clients ever both believed they held the
// lock.
// The checker's Report.Safe is the one definition of the verdict.
func (r Result) MutexSafe() bool {
	mutex, _ := r.Report.Safe()
	return mutex
}

// ResourceSafe reports whether the resource lost no update and accepted no
// stale write.
func (r Result) ResourceSafe() bool {
	_, resource := r.Report.Safe()
	return resource
}

func (w *World) finish() Result {
	end := w.k.Now()
	if w.on != nil {
		return w.finishFast(end)
	}
	h := w.rec.Finish(end, w.res.Final())
	// The violation excerpts and the timeline are drawn from the same
	// records the trace prints: one record stream, so that what they show
	// cannot disagree (a run without narration has none of the three).
	recs := w.k.Trace().Records()
	h.Log = story.Excerpts(recs)
	var tl Timeline
	if w.k.Tracing() {
		tl = TimelineOf(recs, end)
	}
	return Result{
		Clocks:   w.clocks(),
		Lanes:    w.lanes(),
		Scenario: w.plan.cfg.Name,
		Seed:     w.k.Seed(),
		End:      end,
		Report:   check.Check(h),
		History:  h,
		Events:   w.k.Fired(),
		Net:      w.net.Stats(),
		Trace:    recs,
		Timeline: tl,
		Messages: w.messages,
		FinalLen: len(h.Final),
		healed:   w.plan.healed,
	}
}

// finishFast is finish for a fast run: the Judge's report, no history.
func (w *World) finishFast(end time.Duration) Result {
	r := Result{
		Clocks:   w.clocks(),
		Lanes:    w.lanes(),
		Scenario: w.plan.cfg.Name,
		Seed:     w.k.Seed(),
		End:      end,
		Report:   w.rec.Judged(end),
		History:  check.History{End: end},
		Events:   w.k.Fired(),
		Net:      w.net.Stats(),
		FinalLen: w.res.FinalLen(),
		online:   true,
		healed:   w.plan.healed,
	}
	r.starved, _ = w.on.judge.Starved(0)
	r.starved.Limit = 0
	if w.story != nil {
		w.story.tell(&r.Report)
	}
	w.on = nil // the Judge's memory goes with the world
	return r
}

// lanes are the actors in display order: clients, nodes, then the
// resource and the store or sentinel.
func (w *World) lanes() []string {
	var lanes []string
	for _, r := range []role{roleClient, roleNode, roleResource, roleStore, roleSentinel} {
		for _, p := range w.procs {
			if p.role == r {
				lanes = append(lanes, p.Name())
			}
		}
	}
	return lanes
}

func (w *World) clocks() map[string]*clocks.Process {
	clk := make(map[string]*clocks.Process, len(w.procs))
	for _, p := range w.procs {
		clk[p.Name()] = p.Clocks()
	}
	return clk
}
