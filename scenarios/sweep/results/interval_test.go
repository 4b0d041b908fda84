package results

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestWilson pins the interval against values computed independently.
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 10, 0, 0.2775328},
		{5, 10, 0.2365931, 0.7634069},
		{10, 10, 0.7224672, 1},
		{1, 10, 0.0178762, 0.4041500},
		{0, 1, 0, 0.7934507},
		{50, 100, 0.4038315, 0.5961685},
		{0, 0, 0, 1},
	} {
		lo, hi := Wilson(c.k, c.n)
		if math.Abs(lo-c.lo) > 1e-6 || math.Abs(hi-c.hi) > 1e-6 {
			t.Errorf("Wilson(%d, %d) = [%.7f, %.7f], want [%.7f, %.7f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// TestGarwoodTable pins the interval against the printed table of exact
// 95% Poisson limits (Garwood 1936; as tabulated by Ulm 1990 and in
// Sahai & Khurshid 1993), to its three decimals.
func TestGarwoodTable(t *testing.T) {
	table := [][2]float64{
		{0, 3.689}, {0.0253, 5.572}, {0.2422, 7.225}, {0.6186, 8.767}, {1.0899, 10.242},
		{1.6235, 11.668}, {2.2019, 13.059}, {2.8144, 14.423}, {3.4538, 15.763}, {4.1154, 17.085}, {4.7954, 18.390},
	}
	for k, want := range table {
		lo, hi := Garwood(int64(k))
		if math.Abs(lo-want[0]) > 6e-4 || math.Abs(hi-want[1]) > 6e-4 {
			t.Errorf("Garwood(%d) = [%.4f, %.4f], want [%.4f, %.3f]", k, lo, hi, want[0], want[1])
		}
	}
}

// TestGarwoodClosedForms: at k = 0 the upper limit solves e^−μ = 0.025,
// μ = −ln 0.025; at k = 1 the lower limit solves 1 − e^−μ = 0.025.
func TestGarwoodClosedForms(t *testing.T) {
	lo, hi := Garwood(0)
	if lo != 0 || math.Abs(hi+math.Log(0.025)) > 1e-9 {
		t.Errorf("Garwood(0) = [%v, %v], want [0, %v]", lo, hi, -math.Log(0.025))
	}
	if lo, _ := Garwood(1); math.Abs(lo+math.Log(0.975)) > 1e-9 {
		t.Errorf("Garwood(1) low = %v, want −ln 0.975 = %v", lo, -math.Log(0.975))
	}
	if lo, hi := Garwood(-3); lo != 0 || math.Abs(hi+math.Log(0.025)) > 1e-9 {
		t.Errorf("Garwood(-3) = [%v, %v], want Garwood(0)", lo, hi)
	}
}

// poissonCDF is P(X ≤ k) for X ~ Poisson(mu), summed term by term in log
// space: independent of the chi-square quantiles Garwood inverts.
func poissonCDF(k int64, mu float64) float64 {
	var sum float64
	for i := int64(0); i <= k; i++ {
		lg, _ := math.Lgamma(float64(i + 1))
		sum += math.Exp(float64(i)*math.Log(mu) - mu - lg)
	}
	return sum
}

// TestGarwoodDefinition checks the limits by what defines them, for
// counts up to 300: at the upper limit seeing k or fewer has probability
// 0.025, at the lower limit seeing k or more has.
func TestGarwoodDefinition(t *testing.T) {
	for _, k := range []int64{0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 300} {
		lo, hi := Garwood(k)
		if p := poissonCDF(k, hi); math.Abs(p-0.025) > 1e-7 {
			t.Errorf("k=%d: P(X ≤ k | μ=%v) = %v, want 0.025", k, hi, p)
		}
		if k == 0 {
			continue
		}
		if p := 1 - poissonCDF(k-1, lo); math.Abs(p-0.025) > 1e-7 {
			t.Errorf("k=%d: P(X ≥ k | μ=%v) = %v, want 0.025", k, lo, p)
		}
		if !(lo < float64(k) && float64(k) < hi) {
			t.Errorf("k=%d: [%v, %v] does not hold k", k, lo, hi)
		}
	}
}

// TestGarwoodCoverage: the exact coverage, Σ_k P(k | μ)·[μ in the
// interval of k], is at least 95% at every μ of a fine grid (where the
// Wald and t intervals fall far below it at small μ); and by simulation,
// 4000 Poisson counts at each of several means, the interval holds the
// mean in at least 94% of them (95% less three standard errors).
func TestGarwoodCoverage(t *testing.T) {
	for mu := 0.01; mu < 40; mu *= 1.07 {
		var cover float64
		for k := int64(0); k < int64(mu+20*math.Sqrt(mu)+20); k++ {
			if lo, hi := Garwood(k); lo <= mu && mu <= hi {
				lg, _ := math.Lgamma(float64(k + 1))
				cover += math.Exp(float64(k)*math.Log(mu) - mu - lg)
			}
		}
		if cover < 0.95-1e-9 {
			t.Errorf("μ=%.4f: exact coverage %.5f, want at least 0.95", mu, cover)
		}
	}
	src := rand.NewPCG(28, 1)
	for _, mu := range []float64{0.2, 1, 3.5, 10, 50, 400} {
		draw := distuv.Poisson{Lambda: mu, Src: src}
		const n = 4000
		covered := 0
		for range n {
			if lo, hi := Garwood(int64(draw.Rand())); lo <= mu && mu <= hi {
				covered++
			}
		}
		if covered < 3760 {
			t.Errorf("μ=%v: %d of %d intervals hold μ, want at least 3760", mu, covered, n)
		}
	}
}

// TestPoissonRate divides the count's interval by the exposure: zero
// violations in a million acquisitions give [0, 3.689e-6], never [0, 0].
func TestPoissonRate(t *testing.T) {
	r, lo, hi, ok := PoissonRate(0, 1e6)
	if !ok || r != 0 || lo != 0 || math.Abs(hi-3.688879e-6) > 1e-12 {
		t.Errorf("PoissonRate(0, 1e6) = %v [%v, %v] %v, want 0 [0, 3.688879e-6] true", r, lo, hi, ok)
	}
	r, lo, hi, ok = PoissonRate(4, 2000)
	if !ok || r != 0.002 || math.Abs(lo-1.0899/2000) > 1e-6 || math.Abs(hi-10.242/2000) > 1e-6 {
		t.Errorf("PoissonRate(4, 2000) = %v [%v, %v] %v, want 0.002 [%v, %v]", r, lo, hi, ok, 1.0899/2000, 10.242/2000)
	}
	if _, _, _, ok := PoissonRate(3, 0); ok {
		t.Error("PoissonRate(3, 0): no exposure, want ok false")
	}
}

// TestClopperPearson: closed forms at the edges (k = 0: 1 − 0.025^(1/n);
// k = n: 0.025^(1/n)), printed values inside, and coverage of at least
// 95% at every p of a grid, computed exactly.
func TestClopperPearson(t *testing.T) {
	for _, n := range []int{1, 2, 10, 100, 10000} {
		lo, hi := ClopperPearson(0, n)
		if want := 1 - math.Pow(0.025, 1/float64(n)); lo != 0 || math.Abs(hi-want) > 1e-9 {
			t.Errorf("ClopperPearson(0, %d) = [%v, %v], want [0, %v]", n, lo, hi, want)
		}
		lo, hi = ClopperPearson(n, n)
		if want := math.Pow(0.025, 1/float64(n)); hi != 1 || math.Abs(lo-want) > 1e-9 {
			t.Errorf("ClopperPearson(%d, %d) = [%v, %v], want [%v, 1]", n, n, lo, hi, want)
		}
	}
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{{1, 10, 0.0025, 0.4450}, {5, 10, 0.1871, 0.8129}, {50, 100, 0.3983, 0.6017}} {
		lo, hi := ClopperPearson(c.k, c.n)
		if math.Abs(lo-c.lo) > 1e-4 || math.Abs(hi-c.hi) > 1e-4 {
			t.Errorf("ClopperPearson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	const n = 30
	for p := 0.005; p < 1; p += 0.01 {
		var cover float64
		for k := 0; k <= n; k++ {
			if lo, hi := ClopperPearson(k, n); lo <= p && p <= hi {
				cover += distuv.Binomial{N: n, P: p}.Prob(float64(k))
			}
		}
		if cover < 0.95-1e-9 {
			t.Errorf("p=%.3f, n=%d: exact coverage %.5f, want at least 0.95", p, n, cover)
		}
	}
}

// TestRateCells: a rate nobody saw is written with its upper bound, and
// small rates keep their digits (a results file's six decimals would
// write 3.7e-9 as 0). 7.22469 solves e^−μ(1 + μ + μ²/2) = 0.025.
func TestRateCells(t *testing.T) {
	r := NewRate(0, 1e9)
	if got, want := r.Cells(), []string{"0", "0", "3.68888e-09"}; !slices.Equal(got, want) {
		t.Errorf("NewRate(0, 1e9).Cells() = %q, want %q", got, want)
	}
	if got, want := r.String(), "0 (95% upper bound 3.69e-09)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	r = NewRate(2, 1000)
	if got, want := r.Cells(), []string{"0.002", "0.000242209", "0.00722469"}; !slices.Equal(got, want) {
		t.Errorf("NewRate(2, 1000).Cells() = %q, want %q", got, want)
	}
	if got := NewRate(1, 0).Cells(); !slices.Equal(got, []string{"", "", ""}) {
		t.Errorf("no exposure: cells %q, want empty", got)
	}
}
