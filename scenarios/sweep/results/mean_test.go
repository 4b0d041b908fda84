package results

import (
	"math"
	"testing"
)

// TestTQuantile95 pins the t quantile against printed tables.
func TestTQuantile95(t *testing.T) {
	for n, want := range map[int]float64{2: 12.706205, 4: 3.182446, 11: 2.228139, 31: 2.042272, 1001: 1.962339} {
		if got := TQuantile95(n); math.Abs(got-want) > 1e-5 {
			t.Errorf("t(0.975, %d) = %.6f, want %.6f", n-1, got, want)
		}
	}
}

func TestMeanInterval(t *testing.T) {
	xs := []float64{5.1, 5.3, 4.9, 5.6, 5.0}
	mean, lo, hi, ok := MeanInterval(xs)
	if !ok {
		t.Fatal("five values: want an interval")
	}
	if math.Abs(mean-5.18) > 1e-12 {
		t.Errorf("mean = %v, want 5.18", mean)
	}
	// s = 0.2774887…, t(0.975, 4) = 2.776445…: half width 0.344548…
	if math.Abs((hi-lo)/2-0.3445478) > 1e-6 || math.Abs((hi+lo)/2-mean) > 1e-12 {
		t.Errorf("interval [%v, %v], want 5.18 ± 0.34455", lo, hi)
	}
	mean, lo, hi, ok = MeanInterval([]float64{7})
	if ok || mean != 7 || lo != 7 || hi != 7 {
		t.Errorf("one value: got %v [%v, %v] ok=%v, want 7 [7, 7] and not ok", mean, lo, hi, ok)
	}
}

// TestRatioIntervalAtZero shows why rates of rare events need Garwood:
// the delta method's interval on 0 of anything is [0, 0].
func TestRatioIntervalAtZero(t *testing.T) {
	var c CoSpread
	for _, x := range []float64{100, 120, 90} {
		c.Add(x, 0)
	}
	lo, hi, ok := c.RatioInterval(0, 1000)
	if !ok || lo != 0 || hi != 0 {
		t.Errorf("delta method at zero = [%v, %v] %v, want [0, 0] true", lo, hi, ok)
	}
	if _, _, hi, _ := PoissonRate(0, 310); hi <= 0 {
		t.Errorf("Garwood at zero: upper %v, want positive", hi)
	}
}
