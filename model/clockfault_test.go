package model_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model"
)

func TestWithClockFaultKeepsTimeOrderAndLeavesTheCallersListsAlone(t *testing.T) {
	steps := make([]clocks.Step, 2, 8) // spare capacity an append could write into
	steps[0] = clocks.Step{At: 1 * s, By: ms}
	steps[1] = clocks.Step{At: 5 * s, By: 2 * ms}
	base := clocks.Spec{Steps: steps}

	got, ok := model.WithClockFault(base, model.Fault{Kind: model.ClockStep, At: 5 * s, By: 3 * ms})
	assert.True(t, ok)
	got, _ = model.WithClockFault(got, model.Fault{Kind: model.ClockStep, At: 2 * s, By: 4 * ms})
	assert.Equal(t, []clocks.Step{{At: 1 * s, By: ms}, {At: 2 * s, By: 4 * ms}, {At: 5 * s, By: 2 * ms}, {At: 5 * s, By: 3 * ms}}, got.Steps,
		"in time order, a later fault at the same instant after the earlier entry")
	assert.Equal(t, []clocks.Step{{At: 1 * s, By: ms}, {At: 5 * s, By: 2 * ms}}, base.Steps)
	assert.Equal(t, clocks.Step{}, steps[:3][2], "the caller's spare capacity is untouched")

	got, ok = model.WithClockFault(base, model.Fault{Kind: model.ClockRate, At: 3 * s, PPM: 50})
	assert.True(t, ok)
	assert.Equal(t, []clocks.RateChange{{At: 3 * s, RatePPM: 50}}, got.RateChanges)

	same, ok := model.WithClockFault(base, model.Fault{Kind: model.Crash, At: 3 * s, Target: "n1"})
	assert.False(t, ok, "a crash is not a clock fault")
	assert.Equal(t, base, same)
}
