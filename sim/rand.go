package sim

import (
	"fmt"
	"math/rand/v2"
)

// StreamSeed derives the two PCG seed words of the stream called name from
// the run seed. It hashes the name with FNV-1a and mixes with splitmix64, both
// fixed functions, so the result is the same on every machine and in every
// process (unlike hash/maphash, which is seeded randomly per process).
func StreamSeed(seed uint64, name string) (uint64, uint64) {
	// FNV-1a inline rather than through hash/fnv, whose hasher and []byte
	// conversion cost two allocations per stream, over a hundred per world;
	// TestStreamsAreStableAndIndependent pins it against hash/fnv.
	h := uint64(14695981039346656037) // FNV-1a offset basis
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211 // FNV-1a prime
	}
	s := seed ^ h
	a := splitmix64(&s)
	b := splitmix64(&s)
	return a, b
}

func splitmix64(s *uint64) uint64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// NewStream returns the random stream called name for a run seed. The same
// (seed, name) always yields the same sequence of draws.
func NewStream(seed uint64, name string) *rand.Rand {
	a, b := StreamSeed(seed, name)
	return rand.New(rand.NewPCG(a, b))
}

// Rand returns the kernel's random stream called name. Each name may be taken
// once per kernel: two components sharing a name would draw identical numbers
// (or, if they shared one stream, perturb each other's draws), so a repeated
// name panics as API misuse.
func (k *Kernel) Rand(name string) *rand.Rand {
	return &k.Stream(name).Rand
}

func (k *Kernel) takeName(name string) {
	if _, dup := k.names[name]; dup {
		panic(fmt.Sprintf("sim: random stream %q taken twice", name))
	}
	k.names[name] = struct{}{}
}
