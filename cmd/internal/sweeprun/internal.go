package sweeprun

import (
	"fmt"
	"runtime/debug"

	"github.com/redlocksim/redlocksim/model"
)

// InternalError is a run that panicked: a bug in the simulator, not in
// the input. It carries what a bug report needs to reproduce it.
type InternalError struct {
	Seed   uint64
	Replay string // a command that makes the run alone, if known
	Value  any    // what the run panicked with
	Stack  []byte
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("internal error in the run with seed %d: %v", e.Seed, e.Value)
}

// Guard calls run, the run with the given seed, and returns a panic in it
// as an *InternalError, so that one broken run in a pool of workers ends
// the command with a report instead of a crash without the seed.
func Guard(seed uint64, run func() (model.Result, error)) (r model.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &InternalError{Seed: seed, Value: v, Stack: debug.Stack()}
		}
	}()
	return run()
}

// runFast makes one run of a sweep; tests replace it to inject a panic.
var runFast = (*model.Plan).RunFastWithin
