package network

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestLognormalFromQuantiles(t *testing.T) {
	// The practitioner's numbers: median 30ms, p99.9 800ms. σ by hand is
	// ln(800/30)/Φ⁻¹(0.999) = 3.2834/3.0902 = 1.0625.
	l, err := LognormalFromQuantiles(Quantile{0.5, 30 * ms}, Quantile{0.999, 800 * ms})
	if err != nil {
		t.Fatal(err)
	}
	if l.Median != 30*ms || math.Abs(l.Sigma-math.Log(800.0/30)/3.090232306167813) > 1e-12 {
		t.Fatalf("got %v, want lognormal(30ms, %.6f)", l, math.Log(800.0/30)/3.090232306167813)
	}
	// Any two quantiles of the fitted lognormal give it back; and the
	// empirical quantiles of its draws are near the ones given.
	for _, pair := range [][2]float64{{0.9, 0.99}, {0.99, 0.9999}, {0.5, 0.9}} {
		qa := Quantile{pair[0], round(float64(l.Median) * math.Exp(l.Sigma*normalQuantile(pair[0])))}
		qb := Quantile{pair[1], round(float64(l.Median) * math.Exp(l.Sigma*normalQuantile(pair[1])))}
		back, err := LognormalFromQuantiles(qb, qa)
		if err != nil {
			t.Fatal(err)
		}
		if d := back.Median - l.Median; d < -2 || d > 2 || math.Abs(back.Sigma-l.Sigma) > 1e-6 {
			t.Errorf("from %v and %v: got %v, want %v", qa, qb, back, l)
		}
	}
	s := sampleN(l, 200000)
	slices.Sort(s)
	p999 := s[int(0.999*float64(len(s)))]
	if p999 < 700*ms || p999 > 920*ms {
		t.Errorf("the draws' p99.9 is %v, want about 800ms", p999)
	}
}

func TestLognormalFromQuantilesRefuses(t *testing.T) {
	for _, c := range []struct {
		a, b Quantile
		want string
	}{
		{Quantile{0.5, 900 * ms}, Quantile{0.999, 800 * ms}, "the 0.999 quantile 800ms is not above the 0.5 quantile 900ms"},
		{Quantile{0.5, 30 * ms}, Quantile{0.99, 30 * ms}, "is not above"},
		{Quantile{0.9, ms}, Quantile{0.9, 2 * ms}, "two different quantiles"},
		{Quantile{0.5, 0}, Quantile{0.9, 2 * ms}, "want > 0"},
		{Quantile{1, ms}, Quantile{0.9, 2 * ms}, "outside (0, 1)"},
	} {
		_, err := LognormalFromQuantiles(c.a, c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, %v: got %v, want %q", c.a, c.b, err, c.want)
		}
	}
}
