package results

import (
	"strings"
	"testing"
)

// TestHeaderBytes pins the header the columns give, as results files
// have written it since before the columns were typed: a reader that
// finds columns by position keeps finding them.
func TestHeaderBytes(t *testing.T) {
	for _, c := range []struct {
		cols []Column
		want string
	}{
		{Summary, "runs,mutex_violation_runs,mutex_violation_rate,mutex_ci_low,mutex_ci_high," +
			"violations_per_1k_acquisitions,violations_per_1k_acquisitions_ci_low,violations_per_1k_acquisitions_ci_high," +
			"mutex_overlap_ms_mean,mutex_overlap_ms_mean_ci_low,mutex_overlap_ms_mean_ci_high," +
			"resource_violation_runs,resource_violation_rate,resource_ci_low,resource_ci_high," +
			"lost_updates_mean,lost_updates_mean_ci_low,lost_updates_mean_ci_high," +
			"stale_writes_accepted_mean,stale_writes_accepted_mean_ci_low,stale_writes_accepted_mean_ci_high," +
			"stale_writes_rejected_mean,stale_writes_rejected_mean_ci_low,stale_writes_rejected_mean_ci_high," +
			"acquisitions_mean,acquisitions_mean_ci_low,acquisitions_mean_ci_high," +
			"acquire_failures_mean,acquire_failures_mean_ci_low,acquire_failures_mean_ci_high," +
			"acquire_p99_ms,acquire_p99_ms_ci_low,acquire_p99_ms_ci_high," +
			"unavailable_ms_mean,unavailable_ms_mean_ci_low,unavailable_ms_mean_ci_high,longest_outage_ms_max"},
		{Rates, "mutex_violations_total,resource_violations_total,acquisitions_total,run_hours," +
			"mutex_violations_per_acquisition,mutex_violations_per_acquisition_ci_low,mutex_violations_per_acquisition_ci_high," +
			"mutex_violations_per_hour,mutex_violations_per_hour_ci_low,mutex_violations_per_hour_ci_high," +
			"resource_violations_per_acquisition,resource_violations_per_acquisition_ci_low,resource_violations_per_acquisition_ci_high," +
			"resource_violations_per_hour,resource_violations_per_hour_ci_low,resource_violations_per_hour_ci_high"},
		{Raw, "mutex_violations,mutex_overlap_ms,lost_updates,stale_writes_accepted,stale_writes_rejected,writes_accepted," +
			"acquire_attempts,acquire_successes,acquire_failures,acquire_p50_ms,acquire_p99_ms,unavailable_ms,longest_outage_ms"},
	} {
		if got := strings.Join(Names(c.cols), ","); got != c.want {
			t.Errorf("header\n got %s\nwant %s", got, c.want)
		}
	}
}

// TestLookup finds a column by its name and by its interval's columns,
// and every column has a label, a unit and a valid interval kind.
func TestLookup(t *testing.T) {
	for name, want := range map[string][2]string{
		"mutex_violation_rate":                       {"mutex_violation_rate", ""},
		"mutex_ci_high":                              {"mutex_violation_rate", "high"},
		"resource_ci_low":                            {"resource_violation_rate", "low"},
		"unavailable_ms_mean_ci_low":                 {"unavailable_ms_mean", "low"},
		"mutex_violations_per_hour_ci_high":          {"mutex_violations_per_hour", "high"},
		"acquire_p99_ms":                             {"acquire_p99_ms", ""},
		"acquire_successes":                          {"acquire_successes", ""},
		"violations_per_1k_acquisitions_ci_low":      {"violations_per_1k_acquisitions", "low"},
		"resource_violations_per_acquisition":        {"resource_violations_per_acquisition", ""},
		"resource_violations_per_acquisition_ci_low": {"resource_violations_per_acquisition", "low"},
	} {
		c, end, ok := Lookup(name)
		if !ok || c.Name != want[0] || end != want[1] {
			t.Errorf("Lookup(%q) = %q, %q, %v; want %q, %q", name, c.Name, end, ok, want[0], want[1])
		}
	}
	if c, _, _ := Lookup("acquire_p99_ms"); c.CI != StudentT {
		t.Errorf("acquire_p99_ms is the results file's mean, with its t interval; got %+v", c)
	}
	for _, bad := range []string{"lock.ttl", "runs_ci_low", "mutex_ci", ""} {
		if c, _, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) found %+v", bad, c)
		}
	}
	seen := map[string]bool{}
	for _, cols := range [][]Column{Summary, Rates} {
		for _, c := range cols {
			if seen[c.Name] || c.Label == "" || c.Unit == "" || c.CI < NoInterval || c.CI > GarwoodInterval {
				t.Errorf("column %+v: twice, or without a label, a unit or an interval kind", c)
			}
			seen[c.Name] = true
		}
	}
}
