package estimate

import "testing"

// Each estimator's trust rules say, in its own words, the first of them
// an estimate breaks, and nothing when it breaks none.
func TestTrustProblem(t *testing.T) {
	for _, c := range []struct {
		w          trustWords
		hits       int
		ess, share float64
		want       string
	}{
		{isTrust, 29, 100, 0.01, "only 29 violating runs (want 30)"},
		{isTrust, 30, 29.94, 0.01, "the violating runs' weights are degenerate: effective sample size 29.9 (want 30)"},
		{isTrust, 30, 30, 0.125, "one run carries 12% of the estimate (want at most 10%)"},
		{isTrust, 30, 30, 0.1, ""},
		{splitTrust, 3, 1, 1, "only 3 violating particles (want 30)"},
		{splitTrust, 40, 12.25, 1, "the repetitions' estimates are uneven: their effective number is 12.2 (want 30)"},
		{splitTrust, 40, 31, 0.5, "one repetition carries 50% of the estimate (want at most 10%)"},
		{splitTrust, 40, 31, 0.05, ""},
	} {
		if got := c.w.problem(c.hits, c.ess, c.share); got != c.want {
			t.Errorf("%v %d %g %g: %q, want %q", c.w.unit, c.hits, c.ess, c.share, got, c.want)
		}
	}
}
