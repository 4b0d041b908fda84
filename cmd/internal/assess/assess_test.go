package assess

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
	"github.com/redlocksim/redlocksim/scenarios"
)

func options(t *testing.T, file string, remedies string) Options {
	t.Helper()
	base, sc, sets, err := scenarios.LoadWithSets(file, nil)
	require.NoError(t, err)
	var rems []scenarios.Remedy
	if remedies != "" {
		rems, err = scenarios.ParseRemedies(remedies)
		require.NoError(t, err)
	}
	return Options{
		Base: base, Sets: sets, Scenario: sc, Remedies: rems, PathName: "dominant",
		Estimate: estimate.Options{Property: estimate.Mutex, Method: "auto", RelError: 0.5, MaxRuns: 100_000, MaxTime: 2 * time.Minute, Seed: 1, Workers: 2},
	}
}

// TestAssessAnswersThePractitioner: on a scenario whose pause tail breaks
// the lock now and then, the report has an estimate per acquisition, the
// per-year figure at the given rate, a failure path that replays, a
// breaking pause that really is the edge on that path, and fencing judged
// on the resource.
func TestAssessAnswersThePractitioner(t *testing.T) {
	opt := options(t, "testdata/pauses.toml", "fencing")
	opt.Rate = 10
	r, err := Assess(context.Background(), opt)
	require.NoError(t, err)
	m := r.Main
	require.False(t, m.UpperBound, "the scenario violates now and then")
	require.Greater(t, m.PerAcquisition, 0.0)
	assert.LessOrEqual(t, m.PerAcquisitionLow, m.PerAcquisition)
	assert.GreaterOrEqual(t, m.PerAcquisitionHigh, m.PerAcquisition)

	// The per-year figures are the per-acquisition ones at 10/s for a year.
	n := 10 * Year.Seconds()
	assert.InDelta(t, n*m.PerAcquisition, r.PerYear, 1e-9*r.PerYear)
	assert.InDelta(t, n*m.PerAcquisitionHigh, r.PerYearHigh, 1e-9*r.PerYearHigh)
	assert.InDelta(t, 1-math.Exp(-r.PerYear), r.AtLeastOnce, 1e-12)
	assert.Equal(t, "--rate", r.RateFrom)

	require.NotNil(t, r.Pinned)
	require.True(t, r.Pinned.Replays, "the dominant path, pinned, violates when run")

	// The breaking pause is the edge on the path: the pinned scenario with
	// that pause at Breaks violates, and at Safe does not.
	b := r.Breaks
	require.NotNil(t, b, r.BreaksWhyNot)
	assert.Less(t, b.Safe, b.Breaks)
	assert.LessOrEqual(t, b.Breaks, b.PathLength)
	assert.LessOrEqual(t, b.Breaks-b.Safe, 2*time.Millisecond)
	base, err := scenarios.NewBase("dominant path", r.Pinned.TOML)
	require.NoError(t, err)
	for _, c := range []struct {
		d    time.Duration
		safe bool
	}{{b.Breaks, false}, {b.Safe, true}} {
		sc, err := base.Apply(scenarios.Override{Key: b.Key, Value: c.d.String(), File: "test"})
		require.NoError(t, err)
		res, err := sc.Plan.RunFastWithin(sc.Seed, 0)
		require.NoError(t, err)
		assert.Equal(t, c.safe, res.MutexSafe(), "%s = %v", b.Key, c.d)
	}

	// Fencing is judged on the resource, beside the scenario's own
	// resource estimate, and makes it no worse.
	require.NotNil(t, r.Resource)
	assert.Equal(t, "resource", r.Resource.Property)
	require.Len(t, r.WhatIf, 1)
	f := r.WhatIf[0]
	assert.Equal(t, estimate.Resource, f.Property)
	require.True(t, f.Applies)
	require.NotNil(t, f.Result)
	assert.Zero(t, f.Result.Violations, "fencing leaves no resource violation to see")

	var out bytes.Buffer
	r.Write(&out, "PATH.toml")
	for _, want := range []string{"per acquisition", "per year", "at 10/s (--rate)", "failure path", "replay               redlocksim run PATH.toml --trace",
		fmt.Sprintf("a pause of %s of %v", b.Client, b.Breaks.Round(time.Millisecond)), "fencing          resource  at most"} {
		assert.Contains(t, out.String(), want)
	}
}

// TestAssessRefusesWhatCannotViolate: mutual exclusion with one client is
// refused as bad input before any run.
func TestAssessRefusesWhatCannotViolate(t *testing.T) {
	opt := options(t, "testdata/pauses.toml", "")
	base, sc, sets, err := scenarios.LoadWithSets("testdata/pauses.toml", []string{"clients.count=1"})
	require.NoError(t, err)
	opt.Base, opt.Scenario, opt.Sets = base, sc, sets
	_, err = Assess(context.Background(), opt)
	require.ErrorIs(t, err, estimate.ErrBadInput)
	assert.Contains(t, err.Error(), "mutual exclusion needs two clients")
}

// TestEstimatesCountsTheResourceBaseline: the stated budget counts the
// resource's own estimate when a remedy is judged there.
func TestEstimatesCountsTheResourceBaseline(t *testing.T) {
	assert.Equal(t, 1, Estimates(options(t, "testdata/pauses.toml", "")))
	assert.Equal(t, 2, Estimates(options(t, "testdata/pauses.toml", "monotonic")))
	assert.Equal(t, 4, Estimates(options(t, "testdata/pauses.toml", "fencing,cas")))
}
