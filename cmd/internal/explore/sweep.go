package explore

import (
	"strconv"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// AnalyticColumns are what sweep --analytic adds to the results file: the
// axis key a closed form predicts, and its predicted onset's range at
// each point, in the key's units (ppm, or a duration), empty where no
// closed form applies.
var AnalyticColumns = []string{"analytic_key", "analytic_onset_low", "analytic_onset_high"}

// SweepAnalytic is the analytic column set for a sweep: at each point, the
// first axis key with a closed form that applies there gets its prediction
// from that point's world and the point's first seed (a narrated run per
// key tried; lock.ttl is tried only where the world has a pause fault).
func SweepAnalytic(spec *sweep.Spec) *sweeprun.Analytic {
	var keys []string
	for _, c := range spec.Columns {
		if HasClosedForm(c) {
			keys = append(keys, c)
		}
	}
	return &sweeprun.Analytic{Columns: AnalyticColumns, Cells: func(p sweep.Point) []string {
		empty := []string{"", "", ""}
		sc, err := spec.Scenario(p)
		if err != nil {
			return empty
		}
		var pr *Prediction
		key := ""
		for _, key = range keys {
			if pr = Predict(key, sc.Config, sc.Config, spec.RunSeed(p, 0)); pr != nil {
				break
			}
		}
		if pr == nil {
			return empty
		}
		format := analyticFormat(key)
		return []string{key, format(pr.Lo), format(pr.Hi)}
	}}
}

// analyticFormat writes a closed form's value for key in the key's units:
// whole ppm for the clock rate, else a duration to the microsecond.
func analyticFormat(key string) func(float64) string {
	if nodesRate.MatchString(key) {
		return func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	}
	return func(v float64) string { return time.Duration(v).Round(time.Microsecond).String() }
}
