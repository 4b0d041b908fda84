package explore

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

func boundaryOn(t *testing.T, name, key, from, to string, seeds int) (*Boundary, error) {
	t.Helper()
	b, err := scenarios.LoadBase(name)
	if err != nil {
		t.Fatal(err)
	}
	return FindBoundary(BoundaryOptions{Base: b, Arg: name, Key: key, From: from, To: to, Seeds: seeds, Property: Mutex, Workers: 2})
}

// Contract: the measured threshold of the nodes' clock rate in
// server-drift-small and of the clock step in clock-jump lies within the
// bracket of the closed form's prediction.
func TestContractBoundaryAgreesWithAnalytic(t *testing.T) {
	for _, c := range []struct{ name, key, from, to string }{
		{"server-drift-small", "nodes.clock.rate_ppm", "0", "50000"},
		{"clock-jump", "faults[4].by", "0s", "20s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := boundaryOn(t, c.name, c.key, c.from, c.to, 5)
			if err != nil {
				t.Fatal(err)
			}
			if b.Safe.Violates || !b.Violating.Violates {
				t.Fatalf("the bracket's ends are %v and %v, want safe and violating", b.Safe, b.Violating)
			}
			if d := b.Violating.Value - b.Safe.Value; d < 0 || d > b.Tol {
				t.Errorf("the bracket [%s, %s] is wider than the tolerance %s", b.Format(b.Safe.Value), b.Format(b.Violating.Value), b.Format(b.Tol))
			}
			p := b.Analytic
			if p == nil {
				t.Fatal("no analytic prediction")
			}
			if !p.Agrees(b) {
				t.Errorf("measured [%s, %s], predicted [%s, %s] (%s)", b.Format(b.Safe.Value), b.Format(b.Violating.Value), b.Format(p.Lo), b.Format(p.Hi), p.Facts)
			}
		})
	}
}

// A pause's length in gc-pause has a closed form too: the pause must
// outlast the majority's keys.
func TestBoundaryPauseLength(t *testing.T) {
	b, err := boundaryOn(t, "gc-pause", "faults[0].for", "1s", "20s", 3)
	if err != nil {
		t.Fatal(err)
	}
	if b.Analytic == nil || !b.Analytic.Agrees(b) {
		t.Fatalf("measured [%s, %s], prediction %+v", b.Format(b.Safe.Value), b.Format(b.Violating.Value), b.Analytic)
	}
}

func TestBoundaryBadInput(t *testing.T) {
	for _, c := range []struct{ name, key, from, to, want string }{
		{"baseline", "lock.ttl", "5s", "20s", "safe at both ends over seeds 1 to 2, so the verdict does not flip in [5s, 20s]"},
		{"gc-pause", "faults[0].for", "12s", "20s", "violates at both ends"},
		{"baseline", "resource.mode", "a", "b", `--from "a" is neither a number nor a duration`},
		{"baseline", "lock.ttl", "20s", "5s", "--from 20s must be less than --to 5s"},
		{"baseline", "resource.mode", "1", "2", "resource.mode"},
	} {
		_, err := boundaryOn(t, c.name, c.key, c.from, c.to, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s %s..%s: error %v, want one containing %q", c.name, c.key, c.from, c.to, err, c.want)
		}
	}
}

// The TTL against a pause: in gc-pause c1 holds the lock from about 0 s
// and pauses at 1 s for 15 s while c2 retries from 11 s, so a TTL short
// enough that the majority's keys expire before c1 lets go at 16 s lets c2
// in. The prediction's range is at most a retry gap wide and meets the
// measured bracket.
func TestBoundaryTTLAgainstPause(t *testing.T) {
	b, err := boundaryOn(t, "gc-pause", "lock.ttl", "2s", "30s", 3)
	if err != nil {
		t.Fatal(err)
	}
	p := b.Analytic
	if p == nil {
		t.Fatal("no analytic prediction for lock.ttl against gc-pause's pause")
	}
	if !strings.HasPrefix(p.Formula, "ttl < t_let − t_set") {
		t.Errorf("formula %q", p.Formula)
	}
	if !p.Agrees(b) {
		t.Errorf("measured [%s, %s], predicted [%s, %s] (%s)", b.Format(b.Violating.Value), b.Format(b.Safe.Value), b.Format(p.Lo), b.Format(p.Hi), p.Facts)
	}
	if w := time.Duration(p.Hi - p.Lo); w <= 0 || w > 400*time.Millisecond {
		t.Errorf("predicted range [%s, %s] is %v wide, want a positive width of at most a retry gap", b.Format(p.Lo), b.Format(p.Hi), w)
	}
}

// Without a pause fault lock.ttl has no closed form to apply.
func TestPredictTTLNeedsAPause(t *testing.T) {
	b, err := scenarios.LoadBase("baseline")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := b.Apply()
	if err != nil {
		t.Fatal(err)
	}
	if p := Predict("lock.ttl", sc.Config, sc.Config, sc.Seed); p != nil {
		t.Errorf("Predict(lock.ttl) on the baseline = %+v, want nil", p)
	}
}

// Contract (issue 23): on ttl-vs-drift's base without pauses, the measured
// onset of the nodes' clock rate at TTL 1, 2, 5, 10 and 30 s agrees with
// the closed form ttl/(1+r) = D, r = ttl/D − 1, D the median hold.
//
// The tolerance, in the rate's units: the onset moves by (1+r)·δ/D for an
// error δ in the time a key must outlive its holder's hold, and δ has two
// parts. Latency: the holder's and the contender's reply latencies cancel
// only on average, and holds differ from the median by the latency of
// their resource round trips, each at most a round trip at the latency's
// upper end (3 ms here). Chance: a violation needs one of a contender's
// requests, which come about a retry delay (200 ms) apart, to land in the
// window between the keys' expiry and the holder's release; with seeds ×
// holds per run × contenders chances, the window it takes to be hit is
// about retry delay / chances (2.5 ms at TTL 30 s, with two holds a run;
// 0.1 ms at 1 s). The bracket's own half width is added.
func TestContractOnsetCurveTTLvsDrift(t *testing.T) {
	spec, err := sweep.Load("ttl-vs-drift")
	if err != nil {
		t.Fatal(err)
	}
	const seeds = 20
	overs := []string{"lock.ttl=1s,2s,5s,10s,30s", "workload.critical_section=975ms,1960ms,4915ms,9840ms,29540ms"}
	var over []Over
	for _, s := range overs {
		o, err := ParseOver(s)
		if err != nil {
			t.Fatal(err)
		}
		over = append(over, o)
	}
	noPauses, err := scenarios.ParseOverride("clients.pauses.every=0s")
	if err != nil {
		t.Fatal(err)
	}
	points, err := FindCurve(CurveOptions{
		BoundaryOptions: BoundaryOptions{Base: spec.Base, Arg: "ttl-vs-drift.base.toml", Sets: []scenarios.Override{noPauses},
			Key: "nodes.clock.rate_ppm", From: "0", To: "50000", Seeds: seeds, Property: Mutex, Workers: 2},
		Over: over,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 5 {
		t.Fatalf("%d points, want 5", len(points))
	}
	const rtt = 3 * time.Millisecond     // the default latency's round trip at its upper end
	const retry = 200 * time.Millisecond // the default retry delay
	for _, p := range points {
		b := p.Boundary
		ttl, _ := time.ParseDuration(p.At[0].Value.(string))
		cs, _ := time.ParseDuration(p.At[1].Value.(string))
		if p.NoFlip != "" || b.Safe.Violates || !b.Violating.Violates {
			t.Fatalf("ttl %v: no bracket (%q, safe %v, violating %v)", ttl, p.NoFlip, b.Safe, b.Violating)
		}
		a := b.Analytic
		if a == nil || !a.HasOnset {
			t.Fatalf("ttl %v: no closed-form onset: %+v", ttl, a)
		}
		if !a.Agrees(b) {
			t.Errorf("ttl %v: measured [%v, %v] outside the closed form's range [%v, %v]", ttl, b.Safe.Value, b.Violating.Value, a.Lo, a.Hi)
		}
		holds := float64(60*time.Second) / float64(ttl) // a hold per TTL in the 60 s run
		chances := float64(seeds) * holds * 2           // two contenders
		delta := float64(rtt) + float64(retry)/chances
		tol := (1 + a.Onset/1e6) * delta / float64(cs) * 1e6
		mid, half := (b.Safe.Value+b.Violating.Value)/2, (b.Violating.Value-b.Safe.Value)/2
		if d := math.Abs(mid - a.Onset); d > half+tol {
			t.Errorf("ttl %v: measured onset %.0f ppm (bracket [%v, %v]) is %.0f ppm from the closed form's %.0f ppm, more than %.0f + %.0f", ttl, mid, b.Safe.Value, b.Violating.Value, d, a.Onset, half, tol)
		} else {
			t.Logf("ttl %v: measured [%v, %v], closed form %.0f, off by %.0f ppm of a tolerance %.0f + %.0f", ttl, b.Safe.Value, b.Violating.Value, a.Onset, d, half, tol)
		}
	}
}

// The curve's values are validated before any run, with the loader's
// message; the zipped --over keys need as many values each.
func TestCurveBadInput(t *testing.T) {
	base, err := scenarios.LoadBase("baseline")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		overs []string
		want  string
	}{
		{[]string{"lock.ttl=1s,-2s"}, "at lock.ttl=-2s: --over: lock.ttl: must be positive"},
		{[]string{"lock.ttl=1s,2s", "workload.critical_section=1s"}, "each needs one value per point"},
		{[]string{"nodes.clock.rate_ppm=1,2"}, "that is the key being bisected"},
	} {
		var over []Over
		for _, s := range c.overs {
			o, err := ParseOver(s)
			if err != nil {
				t.Fatal(err)
			}
			over = append(over, o)
		}
		_, err := FindCurve(CurveOptions{BoundaryOptions: BoundaryOptions{Base: base, Key: "nodes.clock.rate_ppm", From: "0", To: "50000", Seeds: 1, Property: Mutex}, Over: over}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.overs, err, c.want)
		}
	}
	for _, s := range []string{"lock.ttl", "lock.ttl=", "lock..ttl=1s"} {
		if _, err := ParseOver(s); err == nil {
			t.Errorf("ParseOver(%q) = nil error", s)
		}
	}
	o, err := ParseOver(`clients.pauses={every="1s", length={kind="constant", value="1s"}},{every="0s"}`)
	if err != nil || len(o.Values) != 2 {
		t.Errorf("ParseOver of two inline tables: %+v, %v", o, err)
	}
}

// A pause on acquisition starts at an acquisition its at does not name, so
// the pause closed forms, which start from at, do not apply to it; the
// same pause at a fixed time, during a hold, has one.
func TestPredictPauseNeedsAFixedTime(t *testing.T) {
	sc, err := scenarios.LoadLibrary("gc-pause")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(sc.Config.Faults, func(f model.Fault) bool { return f.Kind == model.Pause })
	if i < 0 {
		t.Fatal("gc-pause has no pause fault")
	}
	key := fmt.Sprintf("faults[%d].for", i)
	if p := Predict(key, sc.Config, sc.Config, sc.Seed); p == nil {
		t.Fatalf("Predict(%s) on gc-pause = nil, want the pause's closed form", key)
	}
	cfg := sc.Config
	cfg.Faults = slices.Clone(cfg.Faults)
	cfg.Faults[i].OnAcquire = true
	for _, k := range []string{key, "lock.ttl"} {
		if p := Predict(k, cfg, cfg, sc.Seed); p != nil {
			t.Errorf("Predict(%s) with the pause on acquisition = %+v, want nil", k, p)
		}
	}
}
