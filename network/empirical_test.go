package network

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/sim"
)

// paretoData is n draws of a Pareto with scale xm and shape alpha, by
// inversion from a fixed stream.
func paretoData(n int, xm time.Duration, alpha float64) []time.Duration {
	r := sim.NewStream(7, "pareto")
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = round(float64(xm) * math.Pow(1-r.Float64(), -1/alpha))
	}
	return out
}

func TestEmpiricalWithoutTailDrawsTheData(t *testing.T) {
	data := []time.Duration{5 * ms, ms, 3 * ms, 2 * ms, 4 * ms}
	e, err := NewEmpirical(data, TailFit{Kind: TailNone})
	if err != nil {
		t.Fatal(err)
	}
	l := FromTable(e)
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	counts := map[time.Duration]int{}
	const n = 50000
	for _, d := range sampleN(l, n) {
		counts[d]++
		if l.FromTail(d) {
			t.Fatalf("%v came from a tail that does not exist", d)
		}
	}
	if len(counts) != len(data) {
		t.Fatalf("drew %d distinct values, want the %d of the data: %v", len(counts), len(data), counts)
	}
	for _, d := range data {
		// Each of 5 values has p = 0.2: sd of the count is 89.
		if c := counts[d]; c < n/5-500 || c > n/5+500 {
			t.Errorf("%v drawn %d times of %d, want about %d", d, c, n, n/5)
		}
	}
	if e.Mean() != 3*ms || l.Expected() != 3*ms {
		t.Errorf("mean %v, want 3ms", e.Mean())
	}
}

// TestEmpiricalOneDrawPerSample: the documented cost, one NormFloat64, so
// a stream's later draws do not depend on which branch a draw took.
func TestEmpiricalOneDrawPerSample(t *testing.T) {
	e, err := NewEmpirical(paretoData(2000, 10*ms, 1.5), TailFit{Kind: TailPareto, AboveQuantile: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	a, b := sim.NewStream(3, "x"), sim.NewStream(3, "x")
	for range 1000 {
		e.Sample(a)
		b.NormFloat64()
	}
	if a.Uint64() != b.Uint64() {
		t.Fatal("a draw consumed other than one NormFloat64")
	}
}

func TestEmpiricalParetoTailFit(t *testing.T) {
	const alpha = 1.5
	data := paretoData(20000, 10*ms, alpha)
	e, err := NewEmpirical(data, TailFit{Kind: TailPareto, Above: 20 * ms})
	if err != nil {
		t.Fatal(err)
	}
	// A Pareto above 20ms is a Pareto with scale 20ms and the same alpha;
	// the MLE's sd is alpha/√k with k ≈ 20000·(1/2)^1.5 = 7071, 0.018.
	_, _, got := e.Params()
	if math.Abs(got-alpha) > 0.07 {
		t.Errorf("fitted alpha %v, want %v", got, alpha)
	}
	// The tail reaches past the data: P(X > 10·max) = share·(10·max/20ms)^-α.
	maxData := slices.Max(data)
	draws := sampleN(FromTable(e), 400000)
	var past, fromTail int
	for _, d := range draws {
		if d > maxData {
			past++
		}
		if e.FromTail(d) {
			fromTail++
			if d <= 20*ms {
				t.Fatalf("tail draw %v at or below the threshold", d)
			}
		}
	}
	if past == 0 {
		t.Errorf("no draw beyond the data's maximum %v in %d", maxData, len(draws))
	}
	share := e.TailShare()
	if f := float64(fromTail) / float64(len(draws)); math.Abs(f-share) > 0.005 {
		t.Errorf("%.4f of the draws came from the tail, want its share %.4f", f, share)
	}
	// The survival at 100ms: share·(100/20)^-α·(α error), about 0.0316.
	var above100 int
	for _, d := range draws {
		if d > 100*ms {
			above100++
		}
	}
	want := share * math.Pow(5, -got)
	if f := float64(above100) / float64(len(draws)); math.Abs(f-want) > 0.1*want {
		t.Errorf("P(X > 100ms) = %.4f, want %.4f", f, want)
	}
}

func TestEmpiricalLognormalTailFit(t *testing.T) {
	// Data: 1ms + lognormal excess above the threshold, uniform below.
	r := sim.NewStream(9, "ln")
	var data []time.Duration
	for range 3000 {
		data = append(data, time.Duration(r.Int64N(int64(ms))))
	}
	const mu, sigma = 14.0, 0.8 // e^14 ns ≈ 1.2ms
	for range 1000 {
		data = append(data, ms+round(math.Exp(mu+sigma*r.NormFloat64())))
	}
	e, err := NewEmpirical(data, TailFit{Kind: TailLognormal, Above: ms})
	if err != nil {
		t.Fatal(err)
	}
	gotMu, gotSigma, _ := e.Params()
	// sd of the mean is 0.8/√1000 = 0.025.
	if math.Abs(gotMu-mu) > 0.1 || math.Abs(gotSigma-sigma) > 0.06 {
		t.Errorf("fitted mu %v sigma %v, want %v %v", gotMu, gotSigma, mu, sigma)
	}
	if e.TailShare() != 0.25 {
		t.Errorf("tail share %v, want 0.25", e.TailShare())
	}
	want := (float64(ms)/2)*0.75 + 0.25*(float64(ms)+math.Exp(mu+sigma*sigma/2))
	within(t, "mean of draws", mean(sampleN(FromTable(e), 200000)), want, 0.02)
	within(t, "Expected", float64(e.Mean()), want, 0.02)
}

func TestEmpiricalRefuses(t *testing.T) {
	data := paretoData(500, ms, 2)
	for _, c := range []struct {
		data []time.Duration
		fit  TailFit
		want string
	}{
		{nil, TailFit{Kind: TailNone}, "no samples"},
		{data, TailFit{Kind: TailPareto, AboveQuantile: 0.9}, "a pareto tail is fitted to the samples above the threshold"},
		{data, TailFit{Kind: TailLognormal, AboveQuantile: 0.9}, "of the 500 samples are above it; a fit needs at least 100"},
		{[]time.Duration{-ms}, TailFit{Kind: TailNone}, "negative"},
		{data, TailFit{}, "tail kind"},
		{slices.Repeat([]time.Duration{ms, 2 * ms}, 200), TailFit{Kind: TailLognormal, Above: ms}, "all equal"},
	} {
		_, err := NewEmpirical(c.data, c.fit)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d samples, %+v: got %v, want %q", len(c.data), c.fit, err, c.want)
		}
	}
	if err := (Latency{Kind: LatencyEmpirical}).Validate(); err == nil || !strings.Contains(err.Error(), "set file") {
		t.Errorf("an empirical latency without data: got %v", err)
	}
	e, _ := NewEmpirical(data, TailFit{Kind: TailNone})
	if err := (Latency{Kind: LatencyConstant, Table: e}).Validate(); err == nil || !strings.Contains(err.Error(), "sets file, which only empirical") {
		t.Errorf("a constant latency with data: got %v", err)
	}
}

func BenchmarkEmpiricalSample(b *testing.B) {
	e, err := NewEmpirical(paretoData(100000, ms, 1.5), TailFit{Kind: TailLognormal, AboveQuantile: 0.9})
	if err != nil {
		b.Fatal(err)
	}
	l := FromTable(e)
	r := sim.NewStream(1, "b")
	for b.Loop() {
		l.Sample(r)
	}
}

// An empirical table's draw tilts as a lognormal's does: shifting its
// normal variate reaches the fitted tail, and the likelihood ratio makes
// the estimate of a tail probability far past the data unbiased.
func TestEmpiricalTiltedDrawEstimatesItsTail(t *testing.T) {
	e, err := NewEmpirical(paretoData(5000, 10*ms, 1.5), TailFit{Kind: TailPareto, Above: 20 * ms})
	if err != nil {
		t.Fatal(err)
	}
	l := FromTable(e)
	_, _, alpha := e.Params()
	const far = 100 * time.Second // the data's maximum is far below
	want := e.TailShare() * math.Pow(float64(far)/float64(20*ms), -alpha)
	const n = 20000
	var p float64
	for seed := uint64(1); seed <= n; seed++ {
		k := sim.New(seed)
		smp := &sim.Sampling{Tilts: []sim.Tilt{{Stream: "s", Site: "x", Q: 0.5, Shift: 5.5}}}
		k.SetSampling(smp)
		if d := l.Draw(k.Stream("s"), "x"); d > far {
			if !l.FromTail(d) {
				t.Fatalf("%v beyond the data did not come from the tail", d)
			}
			p += math.Exp(smp.LogLR)
		}
	}
	p /= n
	if math.Abs(p-want) > 0.1*want {
		t.Errorf("tilted estimate of P(X > %v) = %.3g, want %.3g", far, p, want)
	}
	// Untilted, Draw is Sample.
	a, b := sim.New(3).Stream("s"), sim.New(3).Stream("s")
	for range 100 {
		if x, y := l.Draw(a, "x"), l.Sample(&b.Rand); x != y {
			t.Fatalf("untilted Draw %v != Sample %v", x, y)
		}
	}
}

// A scaled table draws the unscaled table's draws divided by the factor.
func TestEmpiricalScaled(t *testing.T) {
	for _, fit := range []TailFit{{Kind: TailLognormal, AboveQuantile: 0.9}, {Kind: TailPareto, Above: 20 * ms}, {Kind: TailNone}} {
		e, err := NewEmpirical(paretoData(3000, 10*ms, 1.5), fit)
		if err != nil {
			t.Fatal(err)
		}
		s := e.Scaled(4)
		for _, z := range []float64{-3, -0.5, 0, 1, 1.3, 2, 4, 7} {
			a, b := float64(e.FromNormal(z))/4, float64(s.FromNormal(z))
			if math.Abs(a-b) > 1+1e-9*a {
				t.Errorf("%v tail at z=%v: scaled draw %v, want %v", fit.Kind, z, b, a)
			}
		}
		if d := float64(s.Mean()) - float64(e.Mean())/4; math.Abs(d) > 1 {
			t.Errorf("%v: scaled mean %v, want %v", fit.Kind, s.Mean(), e.Mean()/4)
		}
	}
}
