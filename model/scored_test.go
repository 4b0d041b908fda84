package model_test

import (
	"math"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/danger"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// pausedWorld: two clients under pauses long against a 1 s TTL, so that
// some seeds violate mutual exclusion and some do not.
func pausedWorld(t *testing.T) *model.Plan {
	cfg := redlockWorld(2)
	cfg.Duration = 10 * s
	cfg.Lock.TTL = s
	cfg.Nodes = cfg.Nodes[:3]
	for i := range cfg.Clients {
		cfg.Clients[i].Pauses = model.PauseConfig{Every: 2 * s, Length: network.Lognormal(200*ms, 1)}
	}
	plan, err := model.Compile(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// A scored run is the run RunSampledWithin makes; its trace rises, stays
// within [0, 1] without a violation, and ends at Top with one.
func TestScoredRunIsTheRun(t *testing.T) {
	plan := pausedWorld(t)
	violated := 0
	for seed := uint64(1); seed <= 30; seed++ {
		plain, err := plan.RunSampledWithin(seed, &sim.Sampling{}, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		r, sc, err := plan.RunScoredWithin(seed, nil, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if r.Events != plain.Events || r.Net != plain.Net || r.MutexSafe() != plain.MutexSafe() {
			t.Fatalf("seed %d: the scored run differs from the sampled one", seed)
		}
		for i := 1; i < len(sc.Trace); i++ {
			if sc.Trace[i].Score <= sc.Trace[i-1].Score || sc.Trace[i].At < sc.Trace[i-1].At {
				t.Fatalf("seed %d: the trace does not rise: %v", seed, sc.Trace)
			}
		}
		if !r.MutexSafe() {
			violated++
			if sc.Trace.Max() != danger.Top {
				t.Errorf("seed %d violates, but its score is %v", seed, sc.Trace.Max())
			}
		} else if m := sc.Trace.Max(); m > 1 || m <= 0 {
			t.Errorf("seed %d is safe, with score %v", seed, m)
		}
	}
	if violated == 0 || violated == 30 {
		t.Fatalf("%d of 30 seeds violate: the case tests nothing", violated)
	}
}

// A run branched just after its trace first rises above a level replays
// the trace up to there, and goes on differently for different salts.
func TestBranchAtACrossingKeepsThePrefix(t *testing.T) {
	plan := pausedWorld(t)
	_, parent, err := plan.RunScoredWithin(3, nil, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	z := parent.Trace.Max() / 2
	at, ok := parent.Trace.Crossing(z)
	if !ok {
		t.Fatalf("no crossing of %v in %v", z, parent.Trace)
	}
	ends := map[time.Duration]bool{}
	for salt := uint64(1); salt <= 5; salt++ {
		smp := &sim.Sampling{Branches: []sim.BranchPoint{{At: at + 1, Salt: salt}}}
		r, clone, err := plan.RunScoredWithin(3, smp, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range parent.Trace {
			if st.At > at {
				break
			}
			if i >= len(clone.Trace) || clone.Trace[i] != st {
				t.Fatalf("salt %d: the clone's trace %v leaves the parent's %v before %v", salt, clone.Trace, parent.Trace, at)
			}
		}
		ends[time.Duration(r.Events)] = true
	}
	if len(ends) < 2 {
		t.Errorf("five salts made the same continuation")
	}
}

// A branch redraws a pause in force from the length's law above what it
// has lasted: P(L > 2e | L > e) as the lognormal and exponential laws say,
// also far in the tail (the watchdog case's 6.5 σ).
func TestLengthAboveIsTheConditionalLaw(t *testing.T) {
	k := sim.New(1)
	r := k.Stream("pauses:test")
	tail := func(l network.Latency, x time.Duration) float64 {
		if l.Kind == network.LatencyExponential {
			return math.Exp(-float64(x) / float64(l.Mean))
		}
		return 0.5 * math.Erfc(math.Log(float64(x)/float64(l.Median))/l.Sigma/math.Sqrt2)
	}
	for _, c := range []struct {
		l network.Latency
		e time.Duration
	}{
		{network.Lognormal(30*ms, 1.06), 10 * ms},
		{network.Lognormal(30*ms, 1.06), 500 * ms},
		{network.Lognormal(30*ms, 1.06), 30 * s},
		{network.Exponential(100 * ms), 300 * ms},
	} {
		const n = 20000
		above := 0
		for range n {
			l, ok := model.LengthAbove(c.l, r, c.e)
			if !ok || l <= c.e {
				t.Fatalf("%v above %v: drew %v", c.l, c.e, l)
			}
			if l > 2*c.e {
				above++
			}
		}
		want := tail(c.l, 2*c.e) / tail(c.l, c.e)
		got := float64(above) / n
		if sd := math.Sqrt(want * (1 - want) / n); math.Abs(got-want) > 4*sd+1e-4 {
			t.Errorf("%v above %v: P(L > 2e) = %.4f, want %.4f", c.l, c.e, got, want)
		}
	}
}
