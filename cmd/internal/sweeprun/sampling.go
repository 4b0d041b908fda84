package sweeprun

import (
	"fmt"
	"math/bits"

	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// DefaultBatch is the seeds an adaptive sweep adds to a point at a time:
// the rule is checked only when a point's batch is complete, so batch
// boundaries, and with them the result, do not depend on the workers or
// on the order in which runs finish. 20 seeds make the first check after
// 20 runs, and a point that never (or always) violates stops at 80, where
// the Wilson interval of 0 in n is narrower than 0.05.
const DefaultBatch = 20

// sampling says how many seeds each point of a sweep gets.
type sampling struct {
	per   int     // slots per point: the seeds, or the most an adaptive point may take
	batch int     // seeds decided at once; per for fixed seeds
	width float64 // 0: fixed seeds; else stop once the mutex Wilson interval is narrower
}

func fixedSampling(seeds int) sampling { return sampling{per: seeds, batch: seeds} }

func (s sampling) adaptive() bool { return s.width > 0 }

// suffix is what an adaptive sweep adds to its journal header and shard
// lines: " ci_width=W batch=B". A sweep of fixed seeds adds nothing, so
// its files are what they always were.
func (s sampling) suffix() string {
	if !s.adaptive() {
		return ""
	}
	return fmt.Sprintf(" ci_width=%s batch=%d", num(s.width), s.batch)
}

// batchEnd is the end (exclusive) of the batch that holds replicate rep.
func (s sampling) batchEnd(rep int) int { return min((rep/s.batch+1)*s.batch, s.per) }

// stop reports whether a point is done once it has n runs (n at the end
// of a batch), k of which broke mutual exclusion: at the most seeds, or,
// adaptively, once the 95% Wilson interval of k/n is narrower than the
// width.
func (s sampling) stop(k, n int) bool {
	if n >= s.per {
		return true
	}
	if !s.adaptive() {
		return false
	}
	lo, hi := results.Wilson(k, n)
	return hi-lo < s.width
}

// bitset is one bit per run of a sweep.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) count(from, to int) int { // bits set in [from, to)
	n := 0
	for i := from; i < to; {
		if i%64 == 0 && to-i >= 64 {
			n += bits.OnesCount64(b[i/64])
			i += 64
			continue
		}
		if b.has(i) {
			n++
		}
		i++
	}
	return n
}
