package clocks

import (
	"math"
	"math/big"
	"math/bits"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// advanceWide is advance as one 128-bit division: the definition that
// advance's divisions by the constant 1e9 must reproduce exactly.
func advanceWide(local time.Duration, frac, k int64, d time.Duration) (time.Duration, int64, bool) {
	hi, lo := bits.Mul64(uint64(d), uint64(k))
	var carry uint64
	lo, carry = bits.Add64(lo, uint64(frac), 0)
	q, r := bits.Div64(hi+carry, lo, ppbPerUnit)
	sum := local + time.Duration(q)
	return sum, int64(r), sum >= local
}

// TestAdvanceMatchesWideDivision checks advance against the 128-bit
// division over its whole domain: any reading, fraction, rate within
// MaxRatePPM plus a slew, and span up to Horizon, with the extremes drawn
// often.
func TestAdvanceMatchesWideDivision(t *testing.T) {
	const kMin, kMax = ppbPerUnit - 2*MaxRatePPM*1000, ppbPerUnit + 2*MaxRatePPM*1000
	rapid.Check(t, func(t *rapid.T) {
		local := time.Duration(rapid.OneOf(rapid.Int64(), rapid.Int64Range(-1e12, 1e12),
			rapid.SampledFrom([]int64{0, math.MaxInt64, math.MinInt64, math.MaxInt64 - int64(Horizon)})).Draw(t, "local"))
		frac := rapid.OneOf(rapid.Int64Range(0, ppbPerUnit-1), rapid.SampledFrom([]int64{0, ppbPerUnit - 1})).Draw(t, "frac")
		k := rapid.OneOf(rapid.Int64Range(kMin, kMax), rapid.SampledFrom([]int64{kMin, ppbPerUnit, kMax})).Draw(t, "k")
		d := time.Duration(rapid.OneOf(rapid.Int64Range(0, int64(Horizon)), rapid.Int64Range(0, 10*ppbPerUnit),
			rapid.SampledFrom([]int64{0, 1, ppbPerUnit - 1, ppbPerUnit, int64(Horizon)})).Draw(t, "d"))
		gs, gr, gok := advance(local, frac, k, d)
		ws, wr, wok := advanceWide(local, frac, k, d)
		if gs != ws || gr != wr || gok != wok {
			t.Fatalf("advance(%d, %d, %d, %d) = %d, %d, %v; the 128-bit division gives %d, %d, %v",
				local, frac, k, d, gs, gr, gok, ws, wr, wok)
		}
	})
}

// ticksToBig is ticksTo in math/big: ceil((need·1e9 - frac) / k), and
// whether it is below 2^64.
func ticksToBig(need uint64, frac, k int64) (uint64, bool) {
	num := new(big.Int).Mul(new(big.Int).SetUint64(need), big.NewInt(ppbPerUnit))
	num.Sub(num, big.NewInt(frac))
	num.Add(num, big.NewInt(k-1))
	d := num.Div(num, big.NewInt(k))
	if !d.IsUint64() {
		return 0, false
	}
	return d.Uint64(), true
}

// TestTicksToMatchesBigDivision checks ticksTo, whose ideal rate skips
// the division, against exact arithmetic at every rate, the ideal one
// drawn often, and at any reading still to go.
func TestTicksToMatchesBigDivision(t *testing.T) {
	const kMin, kMax = ppbPerUnit - 2*MaxRatePPM*1000, ppbPerUnit + 2*MaxRatePPM*1000
	rapid.Check(t, func(t *rapid.T) {
		need := rapid.OneOf(rapid.Uint64Range(1, math.MaxUint64), rapid.Uint64Range(1, 1e12),
			rapid.SampledFrom([]uint64{1, 2, ppbPerUnit, uint64(Horizon), math.MaxUint64})).Draw(t, "need")
		frac := rapid.OneOf(rapid.Int64Range(0, ppbPerUnit-1), rapid.SampledFrom([]int64{0, 1, ppbPerUnit - 1})).Draw(t, "frac")
		k := rapid.OneOf(rapid.Int64Range(kMin, kMax), rapid.Just(int64(ppbPerUnit))).Draw(t, "k")
		gd, gok := ticksTo(need, frac, k)
		wd, wok := ticksToBig(need, frac, k)
		if gd != wd || gok != wok {
			t.Fatalf("ticksTo(%d, %d, %d) = %d, %v; exact arithmetic gives %d, %v", need, frac, k, gd, gok, wd, wok)
		}
	})
}
