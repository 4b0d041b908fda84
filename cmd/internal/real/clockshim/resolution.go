package clockshim

import (
	"errors"
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
)

// Resolution is the smallest clock change a real node shows: Redis keeps
// expiry times and PTTL in whole milliseconds, so a step, slew or offset
// of less than a millisecond either vanishes or rounds to a whole one, and
// a real run would not be the scenario it claims to be.
const Resolution = time.Millisecond

// CheckResolution reports every change of the clock s (already scaled to
// the real run's time) that is nonzero but smaller than Resolution, naming
// it by its scenario-file key after prefix (e.g. "nodes.n3.clock").
func CheckResolution(prefix string, s clocks.Spec) error {
	var errs []error
	check := func(key string, d time.Duration) {
		if d != 0 && d.Abs() < Resolution {
			errs = append(errs, fmt.Errorf("%s.%s is %v in the real run, below the %v a real redis-server resolves (Redis keeps expiry in whole milliseconds)",
				prefix, key, d, Resolution))
		}
	}
	check("offset", s.Offset)
	for i, st := range s.Steps {
		check(fmt.Sprintf("steps[%d].by", i), st.By)
	}
	for i, sl := range s.Slews {
		check(fmt.Sprintf("slews[%d].by", i), sl.By)
	}
	return errors.Join(errs...)
}
