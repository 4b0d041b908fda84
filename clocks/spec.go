package clocks

import (
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/redlocksim/redlocksim/sim/field"
)

const (
	// MaxRatePPM bounds the magnitude of every rate in a Spec: the oscillator
	// rate, each rate change and each slew's MaxPPM. Real oscillators are
	// within a few hundred ppm; the bound leaves room for sweeps while
	// keeping the effective rate (base plus slew) at least 0.8, so every
	// clock moves forward between steps and the integer arithmetic has
	// headroom up to Horizon.
	MaxRatePPM = 100_000

	// DefaultSlewPPM is the slew rate used when Slew.MaxPPM is zero: the
	// most ntpd (and the kernel's PLL) adds to a clock's rate.
	DefaultSlewPPM = 500

	// Horizon is the latest true time a Clock answers for (100 years). With
	// rates bounded by MaxRatePPM, no computation up to Horizon overflows.
	Horizon = 100 * 365 * 24 * time.Hour

	// Never is what When returns when the clock does not read the requested
	// local time by Horizon.
	Never = time.Duration(math.MaxInt64)
)

// Spec describes one process's clock as a scenario file gives it. All times
// named At are true times since the run's start. Rates are in parts per
// million; positive runs fast.
//
// Rates are converted to whole parts per billion, rounding to nearest with
// halves away from zero, so a rate given to more than three decimals loses
// the excess digits. From then on everything is integer arithmetic.
type Spec struct {
	// Offset is the wall clock's local minus true time at t = 0.
	Offset time.Duration `toml:"offset"`
	// RatePPM is the oscillator's rate error: local time advances
	// 1+RatePPM/1e6 ns per true ns.
	RatePPM float64 `toml:"rate_ppm"`
	// RateChanges replace RatePPM from their At on (temperature, a new
	// oscillator). They apply to the wall and the monotonic clock alike.
	RateChanges []RateChange `toml:"rate_changes"`
	// Steps jump the wall clock (settimeofday, ntpdate, a leap second).
	Steps []Step `toml:"steps"`
	// Slews correct the wall clock gradually, as ntpd does for small offsets.
	Slews []Slew `toml:"slews"`
}

// RateChange sets the oscillator rate error to RatePPM from true time At on.
type RateChange struct {
	At      time.Duration `toml:"at"`
	RatePPM float64       `toml:"rate_ppm"`
}

// Step moves the wall clock by By (negative: backwards) at true time At. The
// clock reads the stepped value at At itself.
type Step struct {
	At time.Duration `toml:"at"`
	By time.Duration `toml:"by"`
}

// Slew moves the wall clock by By gradually: from true time At the clock runs
// MaxPPM faster (By > 0) or slower (By < 0) than its oscillator until the
// extra local time adds up to exactly By. MaxPPM 0 means DefaultSlewPPM.
type Slew struct {
	At     time.Duration `toml:"at"`
	By     time.Duration `toml:"by"`
	MaxPPM float64       `toml:"max_ppm"`
}

// Validate reports the first problem that would make New fail, naming the
// field by its scenario-file key. Beyond the checks of single fields it
// rejects lists out of true-time order, a step or slew that starts while a
// slew is still running, and a wall clock whose reading would overflow
// int64 nanoseconds before Horizon.
func (s Spec) Validate() error {
	_, err := build(s, true)
	return err
}

// ppbPerUnit is the rate denominator: a segment with rate r ppb advances
// (ppbPerUnit + r) local ns for every ppbPerUnit true ns.
const ppbPerUnit = 1_000_000_000

// toPPB converts a validated rate to whole parts per billion. A single
// multiplication and math.Round are exact IEEE operations (no fused
// multiply-add can apply), so the result is the same on every machine.
func toPPB(ppm float64) int64 { return int64(math.Round(ppm * 1000)) }

// specError is a problem with the Spec field at path; its text names the
// field by its scenario-file key, after "clocks: ". The *field.Error inside
// carries the path for callers that place the problem in a file.
type specError struct{ fe *field.Error }

func (e specError) Error() string { return "clocks: " + e.fe.Err.Error() }
func (e specError) Unwrap() error { return e.fe }

func errorf(path field.Path, format string, a ...any) error {
	return specError{field.Errorf(path, format, a...)}
}

// checkRate checks the rate at path, which the text names as key.
func checkRate(path field.Path, key string, ppm float64) error {
	if math.IsNaN(ppm) || math.IsInf(ppm, 0) {
		return errorf(path, "%s is %v; want a finite number of ppm", key, ppm)
	}
	if math.Abs(ppm) > MaxRatePPM {
		return errorf(path, "%s %v ppm is outside ±%d ppm", key, ppm, MaxRatePPM)
	}
	return nil
}

// checkTimes checks that the n true times at(0..n-1) of list lie in
// [0, Horizon] and strictly increase.
func checkTimes(goName, list string, n int, at func(int) time.Duration) error {
	for i := range n {
		t := at(i)
		path := field.Of(goName, i, "At")
		switch {
		case t < 0:
			return errorf(path, "%s[%d].at %v is before the run starts", list, i, t)
		case t > Horizon:
			return errorf(path, "%s[%d].at %v is past the horizon %v", list, i, t, Horizon)
		case i > 0 && t < at(i-1):
			return errorf(path, "%s[%d].at %v is before %s[%d].at %v; %s must be in true-time order",
				list, i, t, list, i-1, at(i-1), list)
		case i > 0 && t == at(i-1):
			return errorf(path, "%s[%d].at %v repeats %s[%d].at; %s must be in strictly increasing true-time order",
				list, i, t, list, i-1, list)
		}
	}
	return nil
}

// span is a slew resolved to integers. For rate ppb (signed like By) it runs
// over [at, full); when |By|·1e9 is not a multiple of the rate, one last
// nanosecond [full, end) runs at rem ppb (|rem| < |rate|) to apply the
// remaining fraction, so the total is exactly By and the rate bound holds.
type span struct {
	at, full, end time.Duration
	rate, rem     int64
}

// extra is the slew rate in ppb at true time t.
func (p span) extra(t time.Duration) int64 {
	switch {
	case t >= p.at && t < p.full:
		return p.rate
	case t >= p.full && t < p.end:
		return p.rem
	}
	return 0
}

func resolveSlew(i int, sl Slew) (span, error) {
	ppm := sl.MaxPPM
	if ppm == 0 {
		ppm = DefaultSlewPPM
	}
	key, path := fmt.Sprintf("slews[%d].max_ppm", i), field.Of("Slews", i, "MaxPPM")
	if err := checkRate(path, key, ppm); err != nil {
		return span{}, err
	}
	rate := toPPB(ppm)
	if rate <= 0 {
		return span{}, errorf(path, "%s %v must be positive (at least 0.001 ppm) or 0 for the default %d ppm",
			key, sl.MaxPPM, DefaultSlewPPM)
	}
	mag := uint64(sl.By) // |By|, correct even for math.MinInt64
	if sl.By < 0 {
		mag = uint64(-sl.By)
	}
	// The slew needs |By|·1e9/rate true ns at full rate.
	hi, lo := bits.Mul64(mag, ppbPerUnit)
	var full, rem uint64
	if hi < uint64(rate) {
		full, rem = bits.Div64(hi, lo, uint64(rate))
	}
	end := full
	if rem > 0 {
		end++
	}
	if hi >= uint64(rate) || end > uint64(Horizon-sl.At) {
		return span{}, errorf(field.Of("Slews", i), "slews[%d] of %v at %v ppm would not finish by the horizon %v",
			i, sl.By, ppm, Horizon)
	}
	p := span{at: sl.At, full: sl.At + time.Duration(full), end: sl.At + time.Duration(end), rate: rate, rem: int64(rem)}
	if sl.By < 0 {
		p.rate, p.rem = -p.rate, -p.rem
	}
	return p, nil
}

// check validates the fields of s and resolves its slews.
func (s Spec) check() ([]span, error) {
	if err := checkRate(field.Of("RatePPM"), "rate_ppm", s.RatePPM); err != nil {
		return nil, err
	}
	if err := checkTimes("RateChanges", "rate_changes", len(s.RateChanges), func(i int) time.Duration { return s.RateChanges[i].At }); err != nil {
		return nil, err
	}
	for i, rc := range s.RateChanges {
		if err := checkRate(field.Of("RateChanges", i, "RatePPM"), fmt.Sprintf("rate_changes[%d].rate_ppm", i), rc.RatePPM); err != nil {
			return nil, err
		}
	}
	if err := checkTimes("Steps", "steps", len(s.Steps), func(i int) time.Duration { return s.Steps[i].At }); err != nil {
		return nil, err
	}
	if err := checkTimes("Slews", "slews", len(s.Slews), func(i int) time.Duration { return s.Slews[i].At }); err != nil {
		return nil, err
	}
	spans := make([]span, len(s.Slews))
	for i, sl := range s.Slews {
		p, err := resolveSlew(i, sl)
		if err != nil {
			return nil, err
		}
		if i > 0 && sl.At < spans[i-1].end {
			return nil, errorf(field.Of("Slews", i, "At"), "slews[%d].at %v is before slews[%d] ends at %v; slews must not overlap",
				i, sl.At, i-1, spans[i-1].end)
		}
		spans[i] = p
	}
	// A step during a slew is rejected rather than given a meaning: ntpd
	// would abandon the slew, and a scenario can say that with a shorter
	// slew followed by the step.
	for i, st := range s.Steps {
		for j, p := range spans {
			if st.At >= p.at && st.At < p.end {
				return nil, errorf(field.Of("Steps", i, "At"), "steps[%d].at %v falls inside slews[%d] (%v to %v); a step during a slew is not supported",
					i, st.At, j, p.at, p.end)
			}
		}
	}
	return spans, nil
}
