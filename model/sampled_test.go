package model_test

import (
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// sampledWorld draws at every tiltable site: lognormal latencies and
// critical sections, exponential think times, message loss and pauses.
func sampledWorld() model.Config {
	cfg := redlockWorld(3)
	cfg.Duration = 20 * s
	cfg.Network.Latency = network.Lognormal(time.Millisecond, 0.5)
	cfg.Network.Loss = 0.01
	cfg.Work.CriticalSectionDist = network.Lognormal(100*ms, 0.3)
	cfg.Work.ThinkDist = network.Exponential(100 * ms)
	for i := range cfg.Clients {
		cfg.Clients[i].Pauses = model.PauseConfig{Every: 2 * s, Length: network.Lognormal(50*ms, 1)}
	}
	return cfg
}

// A run with a Sampling whose tilts are all zero is the plain run: same
// events, same counts, and a likelihood ratio of exactly one; a tilted run
// is another run, with a ratio of its own.
func TestSampledRunWithZeroTiltsIsThePlainRun(t *testing.T) {
	cfg := sampledWorld()
	plan, err := model.Compile(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		plain, err := plan.RunFastWithin(seed, 0)
		if err != nil {
			t.Fatal(err)
		}
		sites := []string{"latency", "loss", "section", "think", "every", "length"}
		smp := &sim.Sampling{}
		for _, site := range sites {
			smp.Tilts = append(smp.Tilts, sim.Tilt{Stream: "*", Site: site})
		}
		same, err := plan.RunSampledWithin(seed, smp, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if same.Events != plain.Events || same.Net != plain.Net || same.Report.AcquireSuccesses != plain.Report.AcquireSuccesses {
			t.Errorf("seed %d: sampled run fired %d events, %+v, %d acquisitions; plain %d, %+v, %d",
				seed, same.Events, same.Net, same.Report.AcquireSuccesses, plain.Events, plain.Net, plain.Report.AcquireSuccesses)
		}
		if smp.LogLR != 0 {
			t.Errorf("seed %d: LogLR %v with zero tilts; want 0", seed, smp.LogLR)
		}
		for i, site := range sites {
			if smp.Sites[i].N == 0 {
				t.Errorf("seed %d: no draw counted at %s", seed, site)
			}
		}
		tilted := &sim.Sampling{Tilts: []sim.Tilt{{Stream: "net:*", Site: "latency", Q: 0.2, Shift: 2}}}
		other, err := plan.RunSampledWithin(seed, tilted, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if other.Events == plain.Events && other.Net == plain.Net || tilted.LogLR == 0 || tilted.Sites[0].N == 0 {
			t.Errorf("seed %d: the tilted run is the plain one (LogLR %v, %d draws)", seed, tilted.LogLR, tilted.Sites[0].N)
		}
	}
}

// A fault with spreads happens at a time and for a length drawn from its
// own stream: SampledFaults says which, a run with those fixed is the same
// run, and zero tilts at the new uniform sites (a node's clock rate, the
// fault's time and length) leave the run plain while counting their draws.
func TestRandomFaultTimesAndClockRates(t *testing.T) {
	cfg := redlockWorld(2)
	cfg.Duration = 20 * s
	node(&cfg, "n1").RateSpread = 3000
	cfg.Faults = []model.Fault{{At: s, AtSpread: 5 * s, Kind: model.Crash, Target: "n2", For: 500 * ms, ForSpread: 2 * s}}
	plan, err := model.Compile(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	ats := map[time.Duration]bool{}
	for seed := uint64(1); seed <= 4; seed++ {
		drawn := model.SampledFaults(&cfg, seed, nil)
		f := drawn[0]
		if f.At < s || f.At >= 6*s || f.For < 500*ms || f.For >= 2500*ms || f.Random() {
			t.Fatalf("seed %d: drew %+v", seed, f)
		}
		ats[f.At] = true
		fixed := cfg
		fixed.Faults = drawn
		a := run(t, cfg, seed)
		b := run(t, fixed, seed)
		if a.Events != b.Events || a.Net != b.Net || a.Report.AcquireSuccesses != b.Report.AcquireSuccesses {
			t.Errorf("seed %d: the random run (%d events) is not the run with its drawn faults fixed (%d)", seed, a.Events, b.Events)
		}
		smp := &sim.Sampling{Tilts: []sim.Tilt{{Stream: "clock:*", Site: "rate"}, {Stream: "fault:*", Site: "at"}, {Stream: "fault:*", Site: "for"}}}
		same, err := plan.RunSampledWithin(seed, smp, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if same.Events != a.Events || smp.LogLR != 0 {
			t.Errorf("seed %d: zero tilts: %d events, LogLR %v; plain %d", seed, same.Events, smp.LogLR, a.Events)
		}
		for i, st := range smp.Sites {
			if st.N != 1 || st.Kind != sim.DrawUniform {
				t.Errorf("seed %d: rule %d counted %+v; want one uniform draw", seed, i, st)
			}
		}
	}
	if len(ats) < 4 {
		t.Errorf("4 seeds drew %d fault times", len(ats))
	}
}
