package clockshim

import (
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
)

// Resolution is the smallest clock change a real node shows: Redis keeps
// expiry times and PTTL in whole milliseconds, so a step, slew or offset
// of less than a millisecond either vanishes or rounds to a whole one, and
// a real run would not be the scenario it claims to be. Callers refuse a
// clock whose scaled changes (Changes) fall below it.
const Resolution = time.Millisecond

// Change is one amount by which a clock spec moves the wall clock, named
// by its scenario-file key within the clock table.
type Change struct {
	Key string // "offset", "steps[0].by", "slews[1].by"
	By  time.Duration
}

// Changes lists the nonzero amounts by which s moves the wall clock: its
// offset, its steps and its slews. Rates are not among them: a rate's
// effect grows with the time it runs.
func Changes(s clocks.Spec) []Change {
	var out []Change
	add := func(key string, d time.Duration) {
		if d != 0 {
			out = append(out, Change{key, d})
		}
	}
	add("offset", s.Offset)
	for i, st := range s.Steps {
		add(fmt.Sprintf("steps[%d].by", i), st.By)
	}
	for i, sl := range s.Slews {
		add(fmt.Sprintf("slews[%d].by", i), sl.By)
	}
	return out
}
