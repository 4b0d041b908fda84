package actortest

import (
	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/story"
)

// The narrated forms of Crash and Restart, and of a process's clock steps,
// write the records model.World writes for those faults (without the
// fault's plan, such as when it restarts), so that a test that prints the
// trace in model/story's words reads like a narrated run.

// CrashNarrated records that p crashes (or loses power), then crashes it.
func (w *World) CrashNarrated(p *Proc, powerLoss bool) {
	w.tell(p.Name(), story.Down(powerLoss, "", ""))
	w.Crash(p, powerLoss)
}

// RestartNarrated records that p restarts, then restarts it.
func (w *World) RestartNarrated(p *Proc) {
	w.tell(p.Name(), story.Restart{})
	w.Restart(p)
}

// NarrateClockSteps schedules a record of each of spec's steps of actor's
// wall clock, at the true time it happens: the clock of a process is fixed
// when it is added, so its steps are narrated apart from it.
func (w *World) NarrateClockSteps(actor string, spec clocks.Spec) {
	for _, st := range spec.Steps {
		w.At(st.At, func() { w.tell(actor, story.StepClock{By: story.Text(st.By)}) })
	}
}

// tell records fact f under actor's name, as model.World does.
func (w *World) tell(actor string, f story.Fact) { w.k.Record(actor, f.Kind(), story.Fields(f)...) }
