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
	h := &w.hist
	h.End = end
	for i := range h.Holds {
		if h.Holds[i].End < 0 {
			h.Holds[i].End = end
		}
	}
	for i := range h.Attempts {
		if h.Attempts[i].End < 0 {
			h.Attempts[i].End = end
		}
	}
	for i := range h.Wants {
		if h.Wants[i].End < 0 {
			h.Wants[i].End = end
		}
	}
	// The violation excerpts and the timeline are drawn from the same
	// records the trace prints: one record stream, so that what they show
	// cannot disagree (a run without narration has none of the three).
	recs := w.k.Trace().Records()
	h.Log = story.Excerpts(recs)
	h.Final = w.res.Final()
	var tl Timeline
	if w.k.Tracing() {
		tl = TimelineOf(recs, end)
	}
	clk := make(map[string]*clocks.Process, len(w.procs))
	var lanes []string
	for _, r := range []role{roleClient, roleNode, roleResource, roleStore, roleSentinel} {
		for _, p := range w.procs {
			if p.role == r {
				lanes = append(lanes, p.Name())
			}
		}
	}
	for _, p := range w.procs {
		clk[p.Name()] = p.Clocks()
	}
	return Result{
		Clocks:   clk,
		Lanes:    lanes,
		Scenario: w.cfg.Name,
		Seed:     w.k.Seed(),
		End:      end,
		Report:   check.Check(*h),
		History:  *h,
		Events:   w.k.Fired(),
		Net:      w.net.Stats(),
		Trace:    recs,
		Timeline: tl,
		Messages: w.messages,
	}
}
