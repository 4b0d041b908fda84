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
