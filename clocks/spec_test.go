package clocks

import (
	"math"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string // "" means valid
	}{
		{"empty", Spec{}, ""},
		{"everything", Spec{
			Offset: -sec, RatePPM: -78.5,
			RateChanges: []RateChange{{At: 0, RatePPM: 3}, {At: sec, RatePPM: -MaxRatePPM}},
			Steps:       []Step{{At: 0, By: sec}, {At: 4010 * sec, By: -sec}},
			Slews:       []Slew{{At: 10 * sec, By: 2 * sec}, {At: 5000 * sec, By: -ms, MaxPPM: MaxRatePPM}},
		}, ""},
		{"step at the end of a slew", Spec{Slews: []Slew{{At: 0, By: ms}}, Steps: []Step{{At: 2 * sec}}}, ""},
		{"events at the horizon", Spec{Steps: []Step{{At: Horizon}}, Slews: []Slew{{At: Horizon}}, RateChanges: []RateChange{{At: Horizon}}}, ""},

		{"rate NaN", Spec{RatePPM: math.NaN()}, "clocks: rate_ppm is NaN; want a finite number of ppm"},
		{"rate +Inf", Spec{RatePPM: math.Inf(1)}, "clocks: rate_ppm is +Inf; want a finite number of ppm"},
		{"rate too fast", Spec{RatePPM: 100_001}, "clocks: rate_ppm 100001 ppm is outside ±100000 ppm"},
		{"clock stopped", Spec{RatePPM: -1e6}, "clocks: rate_ppm -1e+06 ppm is outside ±100000 ppm"},
		{"rate change rate", Spec{RateChanges: []RateChange{{At: sec, RatePPM: math.Inf(-1)}}},
			"clocks: rate_changes[0].rate_ppm is -Inf; want a finite number of ppm"},
		{"rate changes unsorted", Spec{RateChanges: []RateChange{{At: 5 * sec}, {At: 3 * sec}}},
			"clocks: rate_changes[1].at 3s is before rate_changes[0].at 5s; rate_changes must be in true-time order"},
		{"rate change negative", Spec{RateChanges: []RateChange{{At: -ns}}},
			"clocks: rate_changes[0].at -1ns is before the run starts"},
		{"steps unsorted", Spec{Steps: []Step{{At: 5 * sec, By: sec}, {At: 3 * sec, By: sec}}},
			"clocks: steps[1].at 3s is before steps[0].at 5s; steps must be in true-time order"},
		{"steps duplicate", Spec{Steps: []Step{{At: 5 * sec, By: sec}, {At: 5 * sec, By: sec}}},
			"clocks: steps[1].at 5s repeats steps[0].at; steps must be in strictly increasing true-time order"},
		{"step past horizon", Spec{Steps: []Step{{At: Horizon + 1}}},
			"clocks: steps[0].at 876000h0m0.000000001s is past the horizon 876000h0m0s"},
		{"slews duplicate", Spec{Slews: []Slew{{At: sec}, {At: sec}}},
			"clocks: slews[1].at 1s repeats slews[0].at; slews must be in strictly increasing true-time order"},
		{"slew negative max", Spec{Slews: []Slew{{At: sec, By: ms, MaxPPM: -5}}},
			"clocks: slews[0].max_ppm -5 must be positive (at least 0.001 ppm) or 0 for the default 500 ppm"},
		{"slew max below resolution", Spec{Slews: []Slew{{At: sec, By: ms, MaxPPM: 0.0004}}},
			"clocks: slews[0].max_ppm 0.0004 must be positive (at least 0.001 ppm) or 0 for the default 500 ppm"},
		{"slew max too fast", Spec{Slews: []Slew{{By: ms, MaxPPM: 2e5}}},
			"clocks: slews[0].max_ppm 200000 ppm is outside ±100000 ppm"},
		{"slew max NaN", Spec{Slews: []Slew{{By: ms, MaxPPM: math.NaN()}}},
			"clocks: slews[0].max_ppm is NaN; want a finite number of ppm"},
		{"slews overlap", Spec{Slews: []Slew{{At: 0, By: 2 * sec}, {At: 1000 * sec, By: sec}}},
			"clocks: slews[1].at 16m40s is before slews[0] ends at 1h6m40s; slews must not overlap"},
		{"slew starts in the last nanosecond of another", Spec{Slews: []Slew{{At: 0, By: 1, MaxPPM: 300}, {At: 3333, By: 1}}},
			"clocks: slews[1].at 3.333µs is before slews[0] ends at 3.334µs; slews must not overlap"},
		{"slew starts as another ends", Spec{Slews: []Slew{{At: 0, By: 1, MaxPPM: 300}, {At: 3334, By: 1}}}, ""},
		{"step inside slew", Spec{Slews: []Slew{{At: 10 * sec, By: 2 * sec}}, Steps: []Step{{At: 100 * sec, By: sec}}},
			"clocks: steps[0].at 1m40s falls inside slews[0] (10s to 1h6m50s); a step during a slew is not supported"},
		{"step at the start of a slew", Spec{Slews: []Slew{{At: 10 * sec, By: ms}}, Steps: []Step{{At: 10 * sec, By: sec}}},
			"clocks: steps[0].at 10s falls inside slews[0] (10s to 12s); a step during a slew is not supported"},
		{"slew past horizon", Spec{Slews: []Slew{{At: Horizon - sec, By: ms}}},
			"clocks: slews[0] of 1ms at 500 ppm would not finish by the horizon 876000h0m0s"},
		{"slew far too long", Spec{Slews: []Slew{{By: math.MinInt64, MaxPPM: 0.001}}},
			"clocks: slews[0] of -2562047h47m16.854775808s at 0.001 ppm would not finish by the horizon 876000h0m0s"},
		{"offset overflows by the horizon", Spec{Offset: math.MaxInt64 - Horizon + 1},
			"clocks: the wall clock reading overflows int64 nanoseconds before the horizon 876000h0m0s; offset or steps too large"},
		{"step overflows", Spec{Offset: sec, Steps: []Step{{At: 0, By: math.MaxInt64}}},
			"clocks: steps[0].by 2562047h47m16.854775807s overflows the wall clock reading 1s"},
		{"step underflows", Spec{Offset: -sec, Steps: []Step{{At: 0, By: math.MinInt64}}},
			"clocks: steps[0].by -2562047h47m16.854775808s overflows the wall clock reading -1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate() = %q, want %q", got, tt.want)
			}
			// New fails exactly when Validate does.
			if _, err := New(tt.spec); (err == nil) != (tt.want == "") {
				t.Errorf("New error %v disagrees with Validate", err)
			}
		})
	}
}

func TestToPPB(t *testing.T) {
	for _, tt := range []struct {
		ppm  float64
		want int64
	}{
		{0, 0}, {1, 1000}, {-1, -1000}, {78.1234, 78123}, {78.1236, 78124},
		{0.0004, 0}, {0.0006, 1}, {-0.0016, -2}, {0.1, 100}, {MaxRatePPM, 100_000_000},
	} {
		if got := toPPB(tt.ppm); got != tt.want {
			t.Errorf("toPPB(%v) = %d, want %d", tt.ppm, got, tt.want)
		}
	}
}

// TestSlewSpans pins the duration arithmetic: the slew lasts
// ceil(|By|·1e9/rate) ns and the last nanosecond carries the remainder.
func TestSlewSpans(t *testing.T) {
	for _, tt := range []struct {
		slew Slew
		want span
	}{
		{Slew{At: 10 * sec, By: 2 * sec}, span{at: 10 * sec, full: 4010 * sec, end: 4010 * sec, rate: 500_000}},
		{Slew{At: 0, By: -2 * sec}, span{full: 4000 * sec, end: 4000 * sec, rate: -500_000}},
		{Slew{At: 0, By: 1, MaxPPM: 300}, span{full: 3333, end: 3334, rate: 300_000, rem: 100_000}},
		{Slew{At: 0, By: -1, MaxPPM: 300}, span{full: 3333, end: 3334, rate: -300_000, rem: -100_000}},
		{Slew{At: sec, By: 0}, span{at: sec, full: sec, end: sec, rate: 500_000}},
	} {
		got, err := resolveSlew(0, tt.slew)
		if err != nil {
			t.Errorf("resolveSlew(%+v): %v", tt.slew, err)
			continue
		}
		if got != tt.want {
			t.Errorf("resolveSlew(%+v) = %+v, want %+v", tt.slew, got, tt.want)
		}
	}
}
