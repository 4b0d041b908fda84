package results

import "strings"

// Interval says how a column's 95% interval is made.
type Interval int

// The intervals of the results columns; the zero value is invalid.
const (
	NoInterval      Interval = 1 + iota // a count, a maximum: no interval
	WilsonInterval                      // Wilson, on a proportion of runs
	StudentT                            // Student t, on a mean over the runs
	DeltaRatio                          // the delta method, on a pooled ratio of sums
	GarwoodInterval                     // Garwood, on a count over an exposure (PoissonRate)
)

// Column is one column of a results file, defined once for the writer
// (sweeprun), the reader (plot) and the figures' labels: its name in the
// header, its human label and unit ("mutex violations", "fraction of
// runs"), and its interval. A column with an interval is followed in the
// file by the interval's two columns (Bounds).
type Column struct {
	Name, Label, Unit string
	CI                Interval
	// CIStem names the interval's columns when it is not Name: "mutex"
	// for mutex_ci_low and mutex_ci_high.
	CIStem string
}

// Bounds are the names of the column's interval columns, STEM_ci_low and
// STEM_ci_high; ok is false for a column without an interval.
func (c Column) Bounds() (low, high string, ok bool) {
	if c.CI == NoInterval {
		return "", "", false
	}
	stem := c.Name
	if c.CIStem != "" {
		stem = c.CIStem
	}
	return stem + "_ci_low", stem + "_ci_high", true
}

// The units of the results columns.
const (
	FractionOfRuns = "fraction of runs"
	Count          = "count"
	Milliseconds   = "ms"
)

// Summary are the results file's columns after point and the axis
// columns; Rates come after any extra columns a command adds, last, so
// that every older column keeps its place. Raw are the raw file's (one row
// per run) after point, replicate, seed and the axis columns.
var (
	Summary = []Column{
		{Name: "runs", Label: "runs", Unit: "per point", CI: NoInterval},
		{Name: "mutex_violation_runs", Label: "runs with a mutual-exclusion violation", Unit: Count, CI: NoInterval},
		{Name: "mutex_violation_rate", Label: "mutex violations", Unit: FractionOfRuns, CI: WilsonInterval, CIStem: "mutex"},
		{Name: "violations_per_1k_acquisitions", Label: "mutex violations per 1,000 acquisitions", Unit: Count, CI: DeltaRatio},
		{Name: "mutex_overlap_ms_mean", Label: "mean overlap per run", Unit: Milliseconds, CI: StudentT},
		{Name: "resource_violation_runs", Label: "runs with a resource violation", Unit: Count, CI: NoInterval},
		{Name: "resource_violation_rate", Label: "resource violations", Unit: FractionOfRuns, CI: WilsonInterval, CIStem: "resource"},
		{Name: "lost_updates_mean", Label: "mean lost updates per run", Unit: Count, CI: StudentT},
		{Name: "stale_writes_accepted_mean", Label: "mean stale writes accepted per run", Unit: Count, CI: StudentT},
		{Name: "stale_writes_rejected_mean", Label: "mean stale writes rejected per run", Unit: Count, CI: StudentT},
		{Name: "acquisitions_mean", Label: "mean acquisitions per run", Unit: Count, CI: StudentT},
		{Name: "acquire_failures_mean", Label: "mean failed acquisitions per run", Unit: Count, CI: StudentT},
		{Name: "acquire_p99_ms", Label: "mean p99 acquisition latency", Unit: Milliseconds, CI: StudentT},
		{Name: "unavailable_ms_mean", Label: "mean time wanted but unheld per run, retry gaps included", Unit: Milliseconds, CI: StudentT},
		{Name: "longest_outage_ms_max", Label: "longest time wanted but unheld, any run", Unit: Milliseconds, CI: NoInterval},
	}
	Rates = []Column{
		{Name: "mutex_violations_total", Label: "mutual-exclusion violations, all runs", Unit: Count, CI: NoInterval},
		{Name: "resource_violations_total", Label: "resource violations, all runs", Unit: Count, CI: NoInterval},
		{Name: "acquisitions_total", Label: "acquisitions, all runs", Unit: Count, CI: NoInterval},
		{Name: "run_hours", Label: "simulated time, all runs", Unit: "hours", CI: NoInterval},
		{Name: "mutex_violations_per_acquisition", Label: "mutex violation rate", Unit: "per acquisition", CI: GarwoodInterval},
		{Name: "mutex_violations_per_hour", Label: "mutex violation rate", Unit: "per simulated hour", CI: GarwoodInterval},
		{Name: "resource_violations_per_acquisition", Label: "resource violation rate", Unit: "per acquisition", CI: GarwoodInterval},
		{Name: "resource_violations_per_hour", Label: "resource violation rate", Unit: "per simulated hour", CI: GarwoodInterval},
	}
	Raw = []Column{
		{Name: "mutex_violations", Label: "mutual-exclusion violations", Unit: Count, CI: NoInterval},
		{Name: "mutex_overlap_ms", Label: "overlap", Unit: Milliseconds, CI: NoInterval},
		{Name: "lost_updates", Label: "lost updates", Unit: Count, CI: NoInterval},
		{Name: "stale_writes_accepted", Label: "stale writes accepted", Unit: Count, CI: NoInterval},
		{Name: "stale_writes_rejected", Label: "stale writes rejected", Unit: Count, CI: NoInterval},
		{Name: "writes_accepted", Label: "writes accepted", Unit: Count, CI: NoInterval},
		{Name: "acquire_attempts", Label: "acquire attempts", Unit: Count, CI: NoInterval},
		{Name: "acquire_successes", Label: "acquisitions", Unit: Count, CI: NoInterval},
		{Name: "acquire_failures", Label: "failed acquisitions", Unit: Count, CI: NoInterval},
		{Name: "acquire_p50_ms", Label: "acquisition latency p50", Unit: Milliseconds, CI: NoInterval},
		{Name: "acquire_p99_ms", Label: "acquisition latency p99", Unit: Milliseconds, CI: NoInterval},
		{Name: "unavailable_ms", Label: "time wanted but unheld, retry gaps included", Unit: Milliseconds, CI: NoInterval},
		{Name: "longest_outage_ms", Label: "longest time wanted but unheld", Unit: Milliseconds, CI: NoInterval},
	}
)

// Names is the header cells of cols: each column's name, followed by its
// interval's two columns when it has one.
func Names(cols []Column) []string {
	var out []string
	for _, c := range cols {
		out = append(out, c.Name)
		if low, high, ok := c.Bounds(); ok {
			out = append(out, low, high)
		}
	}
	return out
}

// Lookup finds a results or raw column by its header name; for one of an
// interval's columns it returns the column the interval is of and end,
// "low" or "high" ("" for the column itself). The results file's columns
// are found before the raw file's (acquire_p99_ms is in both: the results
// file's mean of the runs' p99s).
func Lookup(name string) (c Column, end string, ok bool) {
	for _, cols := range [][]Column{Summary, Rates, Raw} {
		for _, c := range cols {
			if c.Name == name {
				return c, "", true
			}
			if low, high, ok := c.Bounds(); ok && (name == low || name == high) {
				return c, strings.TrimPrefix(name[strings.LastIndex(name, "_ci_")+1:], "ci_"), true
			}
		}
	}
	return Column{}, "", false
}
