package scenarios

import (
	"errors"
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomlpos"
)

// CheckNesting refuses a document whose arrays and inline tables nest
// deeper than any scenario or sweep spec needs (tomlpos.MaxDepth), as an
// *Error at the line where it goes too deep. It runs before the decoder,
// in one pass and constant memory, so that a hostile file is refused in
// microseconds instead of taking gigabytes to decode and position.
func CheckNesting(file string, data []byte) error {
	var de *tomlpos.DepthError
	if err := tomlpos.CheckDepth(string(data)); errors.As(err, &de) {
		return &Error{File: file, Line: de.Line, Msg: fmt.Sprintf("arrays and inline tables nest more than %d deep here; no scenario needs more than 3", tomlpos.MaxDepth)}
	}
	return nil
}

// MinPeriod is the shortest period, or mean interval, the loader accepts
// for what recurs through a whole run (pauses, fsyncs, sentinel pings): a
// shorter one has no physical meaning (no process is paused a million
// times a second) and only makes a run's events, and its memory, without
// bound.
const MinPeriod = time.Millisecond

// busyLoop reports a workload that asks for the lock again at once, without
// end: no think time, no retry delay, and no limit on iterations. Such a
// client's requests are limited only by the network's latency (by
// nothing, with zero latency).
func (d *decoder) busyLoop(cfg *model.Config) {
	w, l := cfg.Work, cfg.Lock
	if w.Iterations > 0 || w.Think >= MinPeriod || l.RetryDelay >= MinPeriod {
		return
	}
	key := "workload.think"
	if d.pos.Line(key) == 0 && d.pos.Line("lock.retry_delay") > 0 {
		key = "lock.retry_delay"
	}
	d.errAt(key, "think = %v with retry_delay = %v has every client ask for the lock again at once, without end: set think or lock.retry_delay to at least %v, or limit workload.iterations", w.Think, l.RetryDelay, MinPeriod)
}
