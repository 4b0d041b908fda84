package estimate

import (
	"context"
	"testing"
	"time"
)

// BenchmarkEstimate1e6 estimates closed-form.toml at p ≈ 1.4 × 10⁻⁶ to
// ±10% (issue 28's cost target: within 2 minutes on the 2-core machine),
// and reports the runs it made beside what plain Monte Carlo would need
// for the same interval, (1.96/0.1)²(1−p)/p runs.
func BenchmarkEstimate1e6(b *testing.B) { benchmark1e6(b, Auto) }

// benchmark1e6 estimates closed-form.toml at p ≈ 1.4 × 10⁻⁶ to ±10% with
// method, and reports the runs it made and plain Monte Carlo's.
func benchmark1e6(b *testing.B, method string) {
	sc := load(b, "closed-form.toml", "clients.client[0].pauses.length.median=4.5ms")
	var runs int
	var p float64
	for i := 0; b.Loop(); i++ {
		res, err := Estimate(context.Background(), Options{Plan: sc.Plan, Property: Mutex, Method: method, RelError: 0.1,
			MaxRuns: 2_000_000, MaxTime: 10 * time.Minute, Seed: uint64(i + 1), Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		if !res.Trustworthy || res.RelError > 0.1 {
			b.Fatalf("no trustworthy ±10%% estimate: %+v", res.Problems)
		}
		runs += res.Runs
		p = res.Probability
	}
	n := float64(b.N)
	b.ReportMetric(float64(runs)/n, "runs/op")
	b.ReportMetric(b.Elapsed().Seconds()/n, "s/op")
	b.ReportMetric(mcRuns(p, 0.1), "mc-runs")
}
