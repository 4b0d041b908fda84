package explore

import (
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
)

// BenchmarkExploreVsSweep makes, per op, one run of the base as a sweep
// makes it (RunFast on the next seed, no drawn faults) and one as explore
// makes it (the next run's drawn schedule, from every kind the base can
// meet, run and judged), timing each, so that both see the same load on a
// shared machine. It reports both rates and explore's as a fraction of the
// sweep's: the issue asks for at least 0.8.
func BenchmarkExploreVsSweep(b *testing.B) {
	e, opt := explorer(b, "baseline", nil, Options{})
	cfg := e.Scenario().Config
	var sweepTime, exploreTime time.Duration
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if _, err := model.RunFast(cfg, uint64(i+1)); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		e.judge(e.DrawRun(opt.Seed, i))
		t2 := time.Now()
		sweepTime += t1.Sub(t0)
		exploreTime += t2.Sub(t1)
	}
	n := float64(b.N)
	b.ReportMetric(n/sweepTime.Seconds(), "sweep-runs/s")
	b.ReportMetric(n/exploreTime.Seconds(), "explore-runs/s")
	b.ReportMetric(sweepTime.Seconds()/exploreTime.Seconds(), "explore/sweep")
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
		_, _, n, _ := e.shrink(b.Context(), drawn[i%len(drawn)])
		runs += n
		most = max(most, n)
	}
	b.ReportMetric(float64(runs)/float64(b.N), "runs/shrink")
	b.ReportMetric(float64(most), "most-runs")
}
