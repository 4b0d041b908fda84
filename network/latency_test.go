package network

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/sim"
)

const ms = time.Millisecond

func TestLatencyValidate(t *testing.T) {
	tests := []struct {
		l    Latency
		want string // "" means valid
	}{
		{Constant(0), ""},
		{Constant(5 * ms), ""},
		{Uniform(ms, ms), ""},
		{Uniform(0, 10*ms), ""},
		{Exponential(3 * ms), ""},
		{Latency{Kind: LatencyExponential, Min: ms, Mean: 3 * ms}, ""},
		{Lognormal(2*ms, 0), ""},
		{Lognormal(2*ms, 1.5), ""},

		{Latency{}, "latency kind is not set; want one of constant, uniform, exponential, lognormal, empirical"},
		{Latency{Kind: 9}, "latency kind 9 is unknown; want one of constant, uniform, exponential, lognormal, empirical"},
		{Constant(-ms), "constant latency value is -1ms; want >= 0"},
		{Uniform(-ms, ms), "uniform latency min is -1ms; want >= 0"},
		{Uniform(2*ms, ms), "uniform latency max 1ms is below min 2ms; want max >= min"},
		{Exponential(0), "exponential latency mean is 0s; want > 0"},
		{Exponential(-ms), "exponential latency mean is -1ms; want > 0"},
		{Latency{Kind: LatencyExponential, Min: -ms, Mean: ms}, "exponential latency min is -1ms; want >= 0"},
		{Latency{Kind: LatencyExponential, Min: 2 * ms, Mean: 2 * ms}, "exponential latency mean 2ms is not above min 2ms; want mean > min"},
		{Lognormal(0, 1), "lognormal latency median is 0s; want > 0"},
		{Lognormal(ms, -0.5), "Sigma: must not be negative, got -0.5"},
		{Lognormal(ms, math.NaN()), "Sigma: lognormal latency sigma is NaN; want a finite number >= 0"},
		{Lognormal(ms, math.Inf(1)), "Sigma: lognormal latency sigma is +Inf; want a finite number >= 0"},
		{Latency{Kind: LatencyUniform, Max: ms, Mean: ms}, "uniform latency sets mean, which only exponential latency uses"},
		{Latency{Kind: LatencyConstant, Value: ms, Min: ms}, "constant latency sets min, which only uniform and exponential latency uses"},
		{Latency{Kind: LatencyLognormal, Median: ms, Value: ms}, "lognormal latency sets value, which only constant latency uses"},
		{Latency{Kind: LatencyExponential, Mean: ms, Sigma: 1}, "exponential latency sets sigma, which only lognormal latency uses"},
	}
	for _, tt := range tests {
		err := tt.l.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%+v.Validate() = %q, want %q", tt.l, got, tt.want)
		}
	}
}

// sampleN draws n samples of l from a fixed stream.
func sampleN(l Latency, n int) []time.Duration {
	r := sim.NewStream(42, "test")
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = l.Sample(r)
	}
	return out
}

func mean(ds []time.Duration) float64 {
	var s float64
	for _, d := range ds {
		s += float64(d)
	}
	return s / float64(len(ds))
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*want {
		t.Errorf("%s = %.0f, want %.0f within %.0f%%", what, got, want, tol*100)
	}
}

func TestSampleStatistics(t *testing.T) {
	const n = 100_000

	for _, d := range sampleN(Constant(7*ms), 100) {
		if d != 7*ms {
			t.Fatalf("constant sample = %v, want 7ms", d)
		}
	}

	u := sampleN(Uniform(ms, 3*ms), n)
	if lo, hi := slices.Min(u), slices.Max(u); lo < ms || hi > 3*ms {
		t.Errorf("uniform samples span [%v, %v], want within [1ms, 3ms]", lo, hi)
	}
	within(t, "uniform mean", mean(u), float64(2*ms), 0.01)
	// Both bounds are reachable when the range is tiny.
	tiny := sampleN(Uniform(5, 6), 1000)
	if !slices.Contains(tiny, 5) || !slices.Contains(tiny, 6) {
		t.Errorf("uniform(5ns,6ns) never drew one of its bounds")
	}

	e := sampleN(Exponential(4*ms), n)
	within(t, "exponential mean", mean(e), float64(4*ms), 0.02)

	se := sampleN(Latency{Kind: LatencyExponential, Min: 3 * ms, Mean: 4 * ms}, n)
	if lo := slices.Min(se); lo < 3*ms {
		t.Errorf("shifted exponential min sample = %v, want >= 3ms floor", lo)
	}
	within(t, "shifted exponential mean", mean(se), float64(4*ms), 0.02)

	ln := sampleN(Lognormal(10*ms, 0.8), n)
	slices.Sort(ln)
	within(t, "lognormal median", float64(ln[n/2]), float64(10*ms), 0.02)
	// The mean of a lognormal is median * exp(sigma²/2).
	within(t, "lognormal mean", mean(ln), float64(10*ms)*math.Exp(0.32), 0.03)
}

func TestSampleIsAFunctionOfTheStream(t *testing.T) {
	for _, l := range []Latency{Uniform(0, time.Second), Exponential(ms), Lognormal(ms, 1)} {
		a, b := sampleN(l, 1000), sampleN(l, 1000)
		if !slices.Equal(a, b) {
			t.Errorf("%v: two streams with the same seed gave different samples", l)
		}
	}
}

func TestSampleSaturates(t *testing.T) {
	r := sim.NewStream(1, "test")
	for range 100 {
		if d := Lognormal(time.Duration(math.MaxInt64/2), 50).Sample(r); d < 0 {
			t.Fatalf("huge lognormal sample wrapped to %v", d)
		}
	}
	if d := Uniform(0, math.MaxInt64).Sample(r); d < 0 {
		t.Fatalf("full-range uniform sample = %v, want >= 0", d)
	}
}

func TestLatencyKindNames(t *testing.T) {
	checkKindNames(t, LatencyConstant, LatencyEmpirical, ParseLatencyKind, "normal",
		`unknown latency kind "normal"; want one of constant, uniform, exponential, lognormal, empirical`)
	if s := Lognormal(ms, 0.5).String(); s != "lognormal(1ms,0.5)" {
		t.Errorf("Lognormal(1ms, 0.5).String() = %q", s)
	}
}

func FuzzParseKinds(f *testing.F) {
	for _, s := range []string{"constant", "uniform", "ring", "majority-minority", "", "Uniform"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if k, err := ParseLatencyKind(s); err == nil && k.String() != s {
			t.Errorf("ParseLatencyKind(%q) = %v, which prints differently", s, k)
		}
		if k, err := ParsePartitionKind(s); err == nil && k.String() != s {
			t.Errorf("ParsePartitionKind(%q) = %v, which prints differently", s, k)
		}
	})
}
