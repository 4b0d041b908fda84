package estimate

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Plain Monte Carlo beyond the budget is refused up front. A cancelled
// estimate (a signal) stops at once and returns what its finished runs
// show, saying so; --max-time does the same.
func TestStopsWithWhatItHas(t *testing.T) {
	sc := load(t, "pause-tail.toml")
	o := quick(sc, Mutex, 1, 0.01)
	o.Method = MC
	o.MaxRuns = 2_000_000
	if _, err := Estimate(context.Background(), o); err == nil || !strings.Contains(err.Error(), "more than --max-runs") {
		// Plain Monte Carlo to ±1% at p ~ 1e-3 is beyond 2e6 runs.
		t.Fatalf("want the budget refused, got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	start := time.Now()
	o.RelError = 0.05
	o.MaxRuns = 10_000_000
	res, err := Estimate(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v to stop", took)
	}
	if res.Stopped != "interrupted" || res.Runs == 0 || res.EstimateRuns != res.Runs {
		t.Errorf("stopped %q after %d runs (%d in the estimate)", res.Stopped, res.Runs, res.EstimateRuns)
	}
	o.MaxTime = time.Second
	res, err = Estimate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != "--max-time reached" && res.Stopped != "--max-time reached during cross-entropy" {
		t.Errorf("stopped %q with --max-time 1s", res.Stopped)
	}
}

// An importance-sampling estimate whose budget runs out before its
// diagnostics are good says so, and is not trustworthy.
func TestSaysWhenNotTrustworthy(t *testing.T) {
	sc := load(t, "closed-form.toml", "clients.client[0].pauses.length.median=1.3ms")
	o := quick(sc, Mutex, 1, 0.1)
	o.MaxRuns = 1500 // the pilot and one cross-entropy iteration
	res, err := Estimate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Trustworthy || len(res.Problems) == 0 {
		t.Errorf("trustworthy with %d runs at p ~ 1e-9: %+v", res.Runs, res)
	}
	if !res.UpperBound || res.CIHigh <= 0 {
		t.Errorf("no upper bound from the pilot: %+v", res)
	}
}
