package resource

import "fmt"

// WindowError is a write the resource cannot judge because it keeps only
// the last Window versions of its tree: its base is older than that, or
// its base's branch parted from the current version's before them, so
// which elements it keeps is forgotten. Rather than guess, the resource
// panics with it at that write, before any state changes: an actor has no
// way to stop the world but this, and the budgeted runs (model's
// Plan.RunWithin and its siblings, which every command uses) recover it
// and return it as the run's error, as they do a budget overrun. Set
// panics with it too, for a version it cannot rebuild.
type WindowError struct {
	Writer        string // the writing client; empty for Set
	Element       uint64
	Base, Current uint32 // the version the write was based on, and the current one
	Window        uint32 // the versions kept
	Diverged      bool   // Base is kept, but its branch parted before the window
}

func (e *WindowError) Error() string {
	what := fmt.Sprintf("resource: the set of version %d", e.Base)
	if e.Writer != "" {
		what = fmt.Sprintf("resource: %s writes element %#x based on version %d", e.Writer, e.Element, e.Base)
	}
	why := fmt.Sprintf("%d versions behind the current version %d", e.Current-e.Base, e.Current)
	if e.Diverged {
		why = fmt.Sprintf("on a branch that parted from the current version %d's more than %d versions back", e.Current, e.Window)
	}
	return fmt.Sprintf("%s, %s, but the resource keeps only the last %d versions (resource.Window), so that its memory does not grow with the run: "+
		"it cannot tell which elements that version holds. A read-modify-write this stale is beyond what the simulator models; shorten the run or the pause that makes it",
		what, why, e.Window)
}
