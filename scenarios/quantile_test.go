package scenarios

import (
	"math"
	"testing"
	"time"
)

// TestLognormalQuantileForm: two quantiles load as the ordinary lognormal
// through them, wherever a latency table goes.
func TestLognormalQuantileForm(t *testing.T) {
	src := base + `[clients.pauses]
every = "10s"
length = { kind = "lognormal", p50 = "30ms", p999 = "800ms" }
[network]
latency = { kind = "lognormal", p9999 = "40ms", p90 = "2ms" }
`
	sc, err := Parse("q.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := sc.Config.Clients[0].Pauses.Length
	wantSigma := math.Log(800.0/30) / 3.090232306167813
	if p.Median != 30*time.Millisecond || math.Abs(p.Sigma-wantSigma) > 1e-12 {
		t.Errorf("pause length %v, want lognormal(30ms,%v)", p, wantSigma)
	}
	// p90 = 2ms and p99.99 = 40ms: σ = ln 20/(3.71902-1.28155), median =
	// 2ms/e^(1.28155σ).
	n := sc.Config.Network.Latency
	sigma := math.Log(20) / (3.7190164854556804 - 1.2815515655446004)
	median := time.Duration(math.Round(2e6 / math.Exp(1.2815515655446004*sigma)))
	if n.Median != median || math.Abs(n.Sigma-sigma) > 1e-12 {
		t.Errorf("network latency %v, want lognormal(%v,%v)", n, median, sigma)
	}
}

func TestLognormalQuantileFormErrors(t *testing.T) {
	latency := func(table string) string { return base + "[network]\nlatency = " + table + "\n" }
	oneErrorEach(t, []errorCase{
		{"higher quantile not larger", latency(`{ kind = "lognormal", p50 = "900ms", p999 = "800ms" }`), 5, "network.latency.p999",
			"p999 (800ms) must be larger than p50 (900ms): a higher quantile is never below a lower one"},
		{"equal quantiles", latency(`{ kind = "lognormal", p90 = "8ms", p99 = "8ms" }`), 5, "network.latency.p99", "must be larger than p90"},
		{"one quantile", latency(`{ kind = "lognormal", p99 = "8ms" }`), 5, "network.latency.p99", "needs exactly two of them, got 1"},
		{"three quantiles", latency(`{ kind = "lognormal", p50 = "1ms", p90 = "2ms", p99 = "8ms" }`), 5, "network.latency.p50", "needs exactly two of them, got 3"},
		{"quantiles and a median", latency(`{ kind = "lognormal", median = "1ms", p99 = "8ms", p50 = "1ms" }`), 5, "network.latency.median",
			"a lognormal given by quantiles does not take median"},
		{"neither form", latency(`{ kind = "lognormal", median = "1ms" }`), 5, "network.latency.sigma", "needs median and sigma, or two quantiles"},
		{"quantile on another kind", latency(`{ kind = "uniform", min = "1ms", max = "2ms", p99 = "8ms" }`), 5, "network.latency.p99",
			"a uniform latency does not take p99"},
		{"zero quantile", latency(`{ kind = "lognormal", p50 = "0s", p99 = "8ms" }`), 5, "network.latency.p50", "must be positive"},
	})
}
