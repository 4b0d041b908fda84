package estimate

import (
	"math"
	"testing"
	"time"
)

// Splitting is validated as importance sampling is (validate_test.go), on
// the same cases: against plain Monte Carlo where that is affordable and
// against the closed form where it is not.

// splitQuick are a test's splitting options: repetitions of 100 particles
// after a small pilot.
func splitQuick(opt Options) Options {
	opt.Method, opt.Pilot = Splitting, 200
	return opt
}

// On the closed-form case at p ≈ 4 × 10⁻³ (a 25 ms pause median), the
// splitting interval overlaps the brute-force one.
func TestSplittingAgreesWithBruteForce(t *testing.T) {
	sc := load(t, "closed-form.toml", "clients.client[0].pauses.length.median=25ms")
	res := checkAgainstBruteForce(t, sc, splitQuick(quick(sc, Mutex, 1, 0.2)))
	t.Logf("%d splitting repetitions", res.Splitting.Repetitions)
}

// At p ≈ 1.4 × 10⁻⁶ the splitting interval covers the closed form.
func TestSplittingMatchesClosedForm(t *testing.T) {
	const m = 4500 * time.Microsecond
	want := closedForm(m)
	sc := load(t, "closed-form.toml", "clients.client[0].pauses.length.median="+m.String())
	res := estimateOf(t, splitQuick(quick(sc, Mutex, 2, 0.25)))
	t.Logf("closed form %.4g; splitting %.4g [%.4g, %.4g] in %d runs, %d repetitions (%v)", want, res.Probability, res.CILow, res.CIHigh, res.Runs, res.Splitting.Repetitions, res.Elapsed)
	if !res.Trustworthy {
		t.Errorf("not trustworthy: %v", res.Problems)
	}
	if want < res.CILow || want > res.CIHigh {
		t.Errorf("the interval [%.4g, %.4g] misses the closed form %.4g", res.CILow, res.CIHigh, want)
	}
}

// Splitting is unbiased, and its interval covers, on a case where the
// truth is affordable by brute force: closed-form.toml with a 40 ms pause
// median (p ≈ 0.02; the violation still needs one pause to outlast the
// keys, so clones redraw the pause in force). Forty estimates on seeds of
// their own, with repetitions of 20 particles so that each is cheap and
// stops by the estimator's own sequential rule: their mean is within four
// standard errors of brute force (the errors of both), and at least 34 of
// their 40 intervals cover the brute-force probability (a binomial(40,
// 0.95) count is below 34 with probability 1.4%; brute force's own error,
// a sixth of an interval's, takes little off that).
func TestSplittingIsUnbiasedAndCovers(t *testing.T) {
	sc := load(t, "closed-form.toml", "clients.client[0].pauses.length.median=40ms")
	const n = 40000
	k := bruteForce(t, sc, Mutex, n)
	p := float64(k) / n
	seP := math.Sqrt(p * (1 - p) / n)
	var sum, sum2 float64
	covered, reps := 0, 0
	const estimates = 40
	for seed := uint64(1); seed <= estimates; seed++ {
		o := splitQuick(quick(sc, Mutex, 500+seed, 0.3))
		o.Particles = 20
		res := estimateOf(t, o)
		if res.Method != Splitting {
			t.Fatalf("seed %d: method %s, want splitting", seed, res.Method)
		}
		sum += res.Probability
		sum2 += res.Probability * res.Probability
		reps += res.Splitting.Repetitions
		if res.CILow <= p && p <= res.CIHigh {
			covered++
		} else {
			t.Logf("seed %d: [%.4g, %.4g] misses %.4g", seed, res.CILow, res.CIHigh, p)
		}
	}
	mean := sum / estimates
	se := math.Sqrt((sum2/estimates - mean*mean) / (estimates - 1))
	t.Logf("brute force %d of %d = %.4g ± %.2g; splitting's %d estimates (%d repetitions) average %.4g ± %.2g (%+.1f%%); %d of %d intervals cover",
		k, n, p, seP, estimates, reps, mean, se, 100*(mean/p-1), covered, estimates)
	if d := math.Abs(mean - p); d > 4*math.Hypot(se, seP) {
		t.Errorf("the estimates' mean %.4g is %.1f standard errors from brute force's %.4g", mean, d/math.Hypot(se, seP), p)
	}
	if covered < 34 {
		t.Errorf("%d of %d intervals cover brute force's %.4g; want at least 34", covered, estimates, p)
	}
}

// The result is the same at one and two workers.
func TestSplittingSameAtAnyWorkers(t *testing.T) {
	sc := load(t, "closed-form.toml", "clients.client[0].pauses.length.median=25ms")
	var got []Result
	for _, w := range []int{1, 2} {
		o := splitQuick(quick(sc, Mutex, 7, 0.5))
		o.Workers, o.MaxRuns = w, 8000
		res := estimateOf(t, o)
		res.Elapsed, res.RunsPerSec = 0, 0
		got = append(got, *res)
	}
	a, b := got[0], got[1]
	if a.Probability != b.Probability || a.CILow != b.CILow || a.CIHigh != b.CIHigh || a.Runs != b.Runs ||
		a.Violations != b.Violations || *a.Splitting != *b.Splitting || a.Dominant.Seed != b.Dominant.Seed {
		t.Errorf("1 and 2 workers differ: %+v\n%+v", a, b)
	}
}

// With no violation possible (no pauses), splitting's particles all tie
// and die at the first level: the result is the plain runs' upper bound,
// said to be one, and not trustworthy as an estimate.
func TestSplittingWithNoViolationIsABound(t *testing.T) {
	sc := load(t, "closed-form.toml", "clients.client[0].pauses.every=0s")
	o := splitQuick(quick(sc, Mutex, 3, 0.2))
	o.MaxRuns = 3000
	res := estimateOf(t, o)
	if res.Trustworthy || !res.UpperBound || res.CIHigh <= 0 || res.Probability != 0 {
		t.Errorf("want an untrustworthy upper bound: %+v", res)
	}
}

// BenchmarkSplitting1e6 estimates closed-form.toml at p ≈ 1.4 × 10⁻⁶ to
// ±10% by splitting, and reports its runs beside plain Monte Carlo's.
func BenchmarkSplitting1e6(b *testing.B) { benchmark1e6(b, Splitting) }
