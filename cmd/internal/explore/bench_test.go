package explore

import (
	"testing"

	"github.com/redlocksim/redlocksim/model"
)

// BenchmarkExploreVsSweep runs the same base as a sweep runs it (RunFast
// over seeds, no drawn faults) and as explore runs it (a schedule drawn
// from every kind the base can meet, run and judged), one run per op
// each, and logs explore's runs per second as a fraction of the sweep's:
// the issue asks for at least 0.8.
func BenchmarkExploreVsSweep(b *testing.B) {
	e, opt := explorer(b, "baseline", nil, Options{})
	cfg := e.Scenario().Config
	var sweepRate, exploreRate float64
	b.Run("sweep", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := model.RunFast(cfg, uint64(i+1)); err != nil {
				b.Fatal(err)
			}
		}
		sweepRate = float64(b.N) / b.Elapsed().Seconds()
	})
	b.Run("explore", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			e.judge(e.DrawRun(opt.Seed, i))
		}
		exploreRate = float64(b.N) / b.Elapsed().Seconds()
	})
	if sweepRate > 0 && exploreRate > 0 {
		b.Logf("explore %.0f runs/s, sweep %.0f runs/s: ratio %.2f", exploreRate, sweepRate, exploreRate/sweepRate)
	}
}

// BenchmarkShrink shrinks one counterexample per op, cycling through the
// first four drawn schedules of three faults (pauses, crashes and clock
// steps) that break mutual exclusion on the baseline with an 8 s critical
// section. The issue asks for at most 5 s per counterexample.
func BenchmarkShrink(b *testing.B) {
	e, opt := explorer(b, "baseline", []string{"workload.critical_section=8s"}, Options{Kinds: []string{"pause", "crash", "clock-step"}})
	var drawn []Schedule
	for i := 0; len(drawn) < 4; i++ {
		if s := e.DrawRun(opt.Seed, i); len(s) == 3 && e.Violates(s) {
			drawn = append(drawn, s)
		}
	}
	var runs, most int
	for i := 0; b.Loop(); i++ {
		_, _, n := e.shrink(b.Context(), drawn[i%len(drawn)])
		runs += n
		most = max(most, n)
	}
	b.ReportMetric(float64(runs)/float64(b.N), "runs/shrink")
	b.ReportMetric(float64(most), "most-runs")
}
