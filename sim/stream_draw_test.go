package sim

import (
	"math/rand/v2"
	"testing"
)

// TestStreamDrawsAsRand checks that the Stream's own Float64 and Uint64N,
// which read its PCG directly, draw the numbers rand.Rand's would from the
// same seed, interleaved, for bounds of every kind (powers of two, the
// rejection loop's large ones, 1).
func TestStreamDrawsAsRand(t *testing.T) {
	bounds := []uint64{1, 2, 3, 7, 1000, 1 << 20, 1_000_001, 1<<63 + 1, 1<<64 - 1, 3 << 62}
	for seed := uint64(1); seed <= 20; seed++ {
		s := newStream(seed, "draws")
		r := rand.New(rand.NewPCG(StreamSeed(seed, "draws")))
		for i := range 2000 {
			n := bounds[i%len(bounds)]
			if got, want := s.Uint64N(n), r.Uint64N(n); got != want {
				t.Fatalf("seed %d draw %d: Uint64N(%d) = %d, rand.Rand gives %d", seed, i, n, got, want)
			}
			if got, want := s.Float64(), r.Float64(); got != want {
				t.Fatalf("seed %d draw %d: Float64 = %v, rand.Rand gives %v", seed, i, got, want)
			}
		}
	}
}
