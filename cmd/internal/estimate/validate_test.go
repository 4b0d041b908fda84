package estimate

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/sim"
)

// The estimator is checked the way a reader of its output would check it:
// against plain Monte Carlo where that is affordable, against a
// probability derived on paper where it is not, and for the coverage of
// its intervals over independent seeds. See docs/guides/rare-events.md.

func load(t testing.TB, file string, sets ...string) *scenarios.Scenario {
	t.Helper()
	_, sc, _, err := scenarios.LoadWithSets(filepath.Join("testdata", file), sets)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// bruteForce is n plain runs' violation count, on seeds of their own.
func bruteForce(t testing.TB, sc *scenarios.Scenario, prop Property, n int) int {
	t.Helper()
	r := &runner{plan: sc.Plan, property: prop, workers: 2, seed: 20261203}
	runs, err := r.batch(context.Background(), "brute", nil, 0, n)
	if err != nil {
		t.Fatal(err)
	}
	return violations(runs)
}

// quick are options for a test's estimate: smaller pilot and
// cross-entropy batches than the command's.
func quick(sc *scenarios.Scenario, prop Property, seed uint64, rel float64) Options {
	return Options{Plan: sc.Plan, Property: prop, Method: IS, RelError: rel, MaxRuns: 200000, Seed: seed, Workers: 2,
		Pilot: 500, CERuns: 500, Chunk: 500}
}

func estimateOf(t testing.TB, opt Options) *Result {
	t.Helper()
	res, err := Estimate(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// On cases where plain Monte Carlo is affordable (p between 10⁻³ and
// 10⁻²), the importance-sampling interval overlaps the brute-force one.
func TestAgreesWithBruteForce(t *testing.T) {
	cases := []struct {
		name, file string
		sets       []string
		prop       Property
	}{
		{"pause tail under Poisson arrivals", "closed-form.toml", []string{"clients.client[0].pauses.length.median=25ms"}, Mutex},
		{"pause tail, contending clients", "pause-tail.toml", nil, Mutex},
		{"network-delay tail", "delay-tail.toml", nil, Resource},
		{"clock drift near its onset", "drift-onset.toml", nil, Mutex},
		{"AOF loss window", "aof-window.toml", nil, Mutex},
		{"partition", "partition-window.toml", nil, Resource},
		{"one long pause among many, watchdog", "watchdog-tail.toml", nil, Mutex},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := load(t, c.file, c.sets...)
			checkAgainstBruteForce(t, sc, quick(sc, c.prop, 1, 0.3))
		})
	}
}

// checkAgainstBruteForce estimates with opt on a case where plain Monte
// Carlo is affordable (p between 10⁻³ and 10⁻²), and checks that the
// estimate is a trustworthy one by opt.Method whose interval overlaps
// that of 3000 plain runs.
func checkAgainstBruteForce(t *testing.T, sc *scenarios.Scenario, opt Options) *Result {
	t.Helper()
	const n = 3000
	k := bruteForce(t, sc, opt.Property, n)
	lo, hi := clopperPearson(k, n)
	res := estimateOf(t, opt)
	t.Logf("brute force %d of %d: [%.3g, %.3g]; estimate %.3g [%.3g, %.3g] by %s in %d runs", k, n, lo, hi, res.Probability, res.CILow, res.CIHigh, res.Method, res.Runs)
	if k == 0 || lo > 1e-2 || hi < 1e-3 {
		t.Fatalf("the case is not in 10⁻³..10⁻²: %d of %d", k, n)
	}
	if res.Method != opt.Method || !res.Trustworthy {
		t.Errorf("not a trustworthy estimate by %s: by %s, problems %v", opt.Method, res.Method, res.Problems)
	}
	if res.CIHigh < lo || res.CILow > hi {
		t.Errorf("the intervals do not overlap")
	}
	return res
}

// closedForm is P(violation) of closed-form.toml with pause median m: c1
// holds from about 0 for C = 500 ms with a TTL T = 1 s, pauses arrive at
// rate λ = 10/s with lognormal(m, σ = 1) lengths, and a pause that starts
// s into the hold violates when its length exceeds T − s (c2, retrying
// every millisecond, takes the lock as the keys expire while c1 is still
// frozen). So p = 1 − exp(−λ ∫₀^C Φ̄(ln((T − s)/m)/σ) ds), with the
// integral by the midpoint rule. The derivation and its approximations
// are in docs/guides/rare-events.md.
func closedForm(m time.Duration) float64 {
	const lambda, T, C, sigma, steps = 10.0, 1.0, 0.5, 1.0, 20000
	h := C / steps
	sum := 0.0
	for i := range steps {
		s := (float64(i) + 0.5) * h
		sum += 0.5 * math.Erfc(math.Log((T-s)/m.Seconds())/sigma/math.Sqrt2)
	}
	return -math.Expm1(-lambda * sum * h)
}

// At p ≈ 10⁻⁶ and ≈ 10⁻⁹ the interval covers the closed form.
func TestMatchesClosedForm(t *testing.T) {
	for _, m := range []time.Duration{4500 * time.Microsecond, 1300 * time.Microsecond} {
		want := closedForm(m)
		t.Run(m.String(), func(t *testing.T) {
			sc := load(t, "closed-form.toml", "clients.client[0].pauses.length.median="+m.String())
			res := estimateOf(t, quick(sc, Mutex, 2, 0.2))
			t.Logf("closed form %.4g; estimate %.4g [%.4g, %.4g] in %d runs (%v)", want, res.Probability, res.CILow, res.CIHigh, res.Runs, res.Elapsed)
			if !res.Trustworthy {
				t.Errorf("not trustworthy: %v", res.Problems)
			}
			if want < res.CILow || want > res.CIHigh {
				t.Errorf("the interval [%.4g, %.4g] misses the closed form %.4g", res.CILow, res.CIHigh, want)
			}
		})
	}
}

// watchdogClosedForm is P(violation) of watchdog-tail.toml with pause
// median m and σ = 2: c1 holds from h0 = 0.5 ms for C = 10 s, and its
// watchdog renews the keys to the full TTL T = 1 s every P = T/3 + 0.5 ms
// (the timer, then the renewal's round trip), reaching the nodes at
// 0.25 ms + kP. A pause of c1 that starts u after the last renewal
// reached the nodes freezes the watchdog with it, and violates when it
// outlasts the keys' expiry (T − u later) and c2's next try, which
// reaches the nodes v later (v uniform on c2's R = 10.5 ms cycle) and
// holds 0.25 ms after that. Pauses arrive at λ = 10/s, about 110 in a
// run, so p = 1 − exp(−λ ∫ E_v Φ̄(ln((T − u(s) + v + 0.25 ms)/m)/σ) ds)
// over the hold, by the midpoint rule: one long pause among many, as on
// a JVM with a watchdog. The derivation and what it neglects are in
// docs/guides/rare-events.md.
func watchdogClosedForm(m time.Duration) float64 {
	const lambda, T, C, R, lat, sigma = 10.0, 1.0, 10.0, 0.0105, 0.00025, 2.0
	const steps, vsteps = 100000, 16
	period, h0 := T/3+2*lat, 2*lat
	h := C / steps
	sum := 0.0
	for i := range steps {
		u := math.Mod(h0+(float64(i)+0.5)*h-lat, period)
		for j := range vsteps {
			v := (float64(j) + 0.5) * R / vsteps
			sum += 0.5 * math.Erfc(math.Log((T-u+v+lat)/m.Seconds())/sigma/math.Sqrt2) / vsteps
		}
	}
	return -math.Expm1(-lambda * sum * h)
}

// The watchdog case: where plain Monte Carlo is affordable (p ≈ 4e-3)
// its interval covers the closed form, which checks the form's
// approximations; where it is not (p ≈ 5e-9), the estimator's does.
func TestWatchdogClosedForm(t *testing.T) {
	common := load(t, "watchdog-tail.toml")
	want := watchdogClosedForm(300 * time.Microsecond)
	const n = 6000
	k := bruteForce(t, common, Mutex, n)
	lo, hi := clopperPearson(k, n)
	t.Logf("p ≈ %.3g: closed form %.4g; brute force %d of %d: [%.4g, %.4g]", want, want, k, n, lo, hi)
	if want < lo || want > hi {
		t.Errorf("brute force [%.4g, %.4g] misses the closed form %.4g", lo, hi, want)
	}
	m := 2 * time.Microsecond
	want = watchdogClosedForm(m)
	sc := load(t, "watchdog-tail.toml", "clients.client[0].pauses.length.median="+m.String())
	res := estimateOf(t, quick(sc, Mutex, 3, 0.2))
	t.Logf("p ≈ %.3g: closed form %.4g; estimate %.4g [%.4g, %.4g] in %d runs, %d violating, ESS %.1f (%v)",
		want, want, res.Probability, res.CILow, res.CIHigh, res.Runs, res.Violations, res.ESS, res.Elapsed)
	if res.Method != IS || !res.Trustworthy {
		t.Errorf("not a trustworthy importance-sampling estimate: %s, %v", res.Method, res.Problems)
	}
	if want < res.CILow || want > res.CIHigh {
		t.Errorf("the interval [%.4g, %.4g] misses the closed form %.4g", res.CILow, res.CIHigh, want)
	}
}

// Over 40 seeds, the 95% interval covers the truth at least 34 times
// (a binomial(40, 0.95) count is below 35 with probability about 5%, and
// below 34 with 1.4%).
func TestCoverage(t *testing.T) {
	const m = 4500 * time.Microsecond
	want := closedForm(m)
	sc := load(t, "closed-form.toml", "clients.client[0].pauses.length.median="+m.String())
	covered := 0
	for seed := uint64(1); seed <= 40; seed++ {
		o := quick(sc, Mutex, 1000+seed, 0.5)
		o.Pilot, o.CERuns, o.Chunk = 200, 200, 250
		res := estimateOf(t, o)
		if res.CILow <= want && want <= res.CIHigh {
			covered++
		} else {
			t.Logf("seed %d: [%.4g, %.4g] misses %.4g", seed, res.CILow, res.CIHigh, want)
		}
	}
	t.Logf("%d of 40 intervals cover %.4g", covered, want)
	if covered < 34 {
		t.Errorf("%d of 40 intervals cover the truth; want at least 34", covered)
	}
}

// The likelihood ratio is the model's: with tilts that change nothing
// (Q = 0), the estimate's runs are the plain runs, weight one each.
func TestZeroTiltRunsArePlain(t *testing.T) {
	sc := load(t, "pause-tail.toml")
	r := &runner{plan: sc.Plan, property: Mutex, workers: 1, seed: 5}
	plain, err := r.batch(context.Background(), "x", nil, 0, 20)
	if err != nil {
		t.Fatal(err)
	}
	zero, err := r.batch(context.Background(), "x", []sim.Tilt{{Stream: "*"}}, 0, 20)
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain {
		if plain[i].acq != zero[i].acq || plain[i].violated != zero[i].violated || zero[i].logLR != 0 {
			t.Errorf("run %d: plain %+v, zero tilt %+v", i, plain[i], zero[i])
		}
	}
}
