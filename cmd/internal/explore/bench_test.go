package explore

import (
	"context"
	"testing"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

func benchExplorer(b *testing.B, kinds []string) (*Explorer, Options) {
	base, err := scenarios.LoadBase("baseline")
	if err != nil {
		b.Fatal(err)
	}
	opt := Options{Base: base, Property: Mutex, Kinds: kinds, MaxFaults: 3, Seed: 1, Workers: 1, MaxShrinks: 1}
	e, err := New(opt)
	if err != nil {
		b.Fatal(err)
	}
	return e, opt
}

// BenchmarkExploreVsSweep runs the same base as a sweep runs it (RunFast
// over seeds, no faults) and as explore runs it (a drawn schedule per run,
// judged), one op per run each, and reports explore's runs/s as a fraction
// of the sweep's: the issue asks for at least 0.8.
func BenchmarkExploreVsSweep(b *testing.B) {
	e, opt := benchExplorer(b, []string{"pause"})
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
		b.Logf("explore/sweep runs per second: %.2f", exploreRate/sweepRate)
	}
	_ = context.Background
}
