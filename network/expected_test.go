package network

import (
	"math/rand/v2"
	"testing"
	"time"
)

// Expected is the mean the samples tend to: each kind's formula, checked
// against the average of many draws.
func TestExpectedIsTheSampleMean(t *testing.T) {
	for _, l := range []Latency{
		Constant(7 * time.Millisecond),
		Uniform(0, 2*time.Second),
		{Kind: LatencyExponential, Mean: 200 * time.Millisecond, Min: 50 * time.Millisecond},
		{Kind: LatencyLognormal, Median: time.Millisecond, Sigma: 0.5},
	} {
		r := rand.New(rand.NewPCG(1, 2))
		const n = 200_000
		var sum float64
		for range n {
			sum += float64(l.Sample(r))
		}
		got, want := sum/n, float64(l.Expected())
		if d := got/want - 1; d > 0.01 || d < -0.01 {
			t.Errorf("%v: sample mean %v, Expected %v", l, time.Duration(got), l.Expected())
		}
	}
}
