package actortest

import (
	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/sim"
)

// The narrated forms of Crash and Restart, and of a process's clock steps,
// write the records model.World writes for those faults (without the
// fault's plan, such as when it restarts), so that a test that prints the
// trace in model/story's words reads like a narrated run.

// CrashNarrated records that p crashes (or loses power), then crashes it.
func (w *World) CrashNarrated(p *Proc, powerLoss bool) {
	kind := story.Crashes
	if powerLoss {
		kind = story.LosesPower
	}
	w.k.Record(p.Name(), kind)
	w.Crash(p, powerLoss)
}

// RestartNarrated records that p restarts, then restarts it.
func (w *World) RestartNarrated(p *Proc) {
	w.k.Record(p.Name(), story.Restarts)
	w.Restart(p)
}

// NarrateClockSteps schedules a record of each of spec's steps of actor's
// wall clock, at the true time it happens: the clock of a process is fixed
// when it is added, so its steps are narrated apart from it.
func (w *World) NarrateClockSteps(actor string, spec clocks.Spec) {
	for _, st := range spec.Steps {
		w.At(st.At, func() { w.k.Record(actor, story.ClockStep, sim.F("by", st.By)) })
	}
}
