package sweeprun

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// benchSpec is the headline library sweep at 4 seeds: 25 points, 100 runs
// of 60 s of virtual time each.
func benchSpec(b *testing.B) *sweep.Spec {
	s, err := sweep.Load("ttl-vs-drift")
	if err != nil {
		b.Fatal(err)
	}
	s.Seeds = 4
	return s
}

func runOnce(b *testing.B, spec *sweep.Spec, workers int) time.Duration {
	dir := b.TempDir()
	start := time.Now()
	if _, err := Run(context.Background(), spec, Options{Out: filepath.Join(dir, "r.csv"), Workers: workers}); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// BenchmarkSweep measures runs per second with one and with two workers.
func BenchmarkSweep(b *testing.B) {
	spec := benchSpec(b)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			b.ReportAllocs()
			runs := 0
			for b.Loop() {
				runOnce(b, spec, w)
				runs += spec.Runs()
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

// BenchmarkSweepScaling times the same sweep with one and with two workers
// in each iteration and reports the speed-up (ideal: 2 on two cores).
func BenchmarkSweepScaling(b *testing.B) {
	if runtime.NumCPU() < 2 {
		b.Skip("one CPU")
	}
	spec := benchSpec(b)
	var one, two time.Duration
	for b.Loop() {
		one += runOnce(b, spec, 1)
		two += runOnce(b, spec, 2)
	}
	b.ReportMetric(one.Seconds()/two.Seconds(), "speedup")
	b.ReportMetric(float64(spec.Runs()*b.N)/one.Seconds(), "runs/s-1w")
	b.ReportMetric(float64(spec.Runs()*b.N)/two.Seconds(), "runs/s-2w")
}

// BenchmarkLibrarySweep is the wall time of each built-in sweep at
// --seeds 5 with one worker per CPU.
func BenchmarkLibrarySweep(b *testing.B) {
	for _, name := range scenarios.SweepNames() {
		b.Run(name, func(b *testing.B) {
			spec, err := sweep.Load(name)
			if err != nil {
				b.Fatal(err)
			}
			spec.Seeds = 5
			for b.Loop() {
				runOnce(b, spec, 0)
			}
			b.ReportMetric(float64(spec.Runs()*b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
