package compare

import (
	"bytes"
	"encoding/csv"
	"math"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/differ"
	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/scenarios"
)

func TestCompareJudgesAvailability(t *testing.T) {
	row := func(sim, real []float64, floor float64) Row {
		var r Row
		r.Sim.UnavailableS, r.Sim.UnavailableCI = MeanOf(sim)
		r.Real.UnavailableS, r.Real.UnavailableCI = MeanOf(real)
		r.Sim.LongestOutageS, r.Sim.LongestCI = MeanOf(sim)
		r.Real.LongestOutageS, r.Real.LongestCI = MeanOf(real)
		r.FloorS = floor
		return r
	}
	// failover-wait's shape at scale 5: a real Sentinel's one-second
	// periods are wall seconds, the model's scenario seconds.
	r := row([]float64{5.1, 5.1, 5.1, 5.1, 5.1}, []float64{15.2, 15.6, 15.3, 15.5, 15.4}, 0.3)
	judgeAvailability(&r, []string{harness.SentinelTimersNote})
	assert.Equal(t, "DISAGREE", r.Availability)
	assert.Contains(t, r.AvailabilityWhy, "unavailable: sim 5.1s [5.1,5.1], real 15.4s [15.2,15.6], +10.3s beyond the 0.30s floor")
	assert.Contains(t, r.AvailabilityWhy, harness.SentinelTimersNote)

	// Disjoint, but closer than the floor: not told apart.
	r = row([]float64{22.8, 22.8}, []float64{23.0, 23.1}, 0.5)
	judgeAvailability(&r, nil)
	assert.Equal(t, "agree", r.Availability, r.AvailabilityWhy)

	// Far apart in the mean, but the real runs spread over the model's value.
	r = row([]float64{17.6, 17.6, 17.6}, []float64{9, 45, 20}, 0.5)
	judgeAvailability(&r, nil)
	assert.Equal(t, "agree", r.Availability, r.AvailabilityWhy)
}

func TestTheAvailabilityFloorGrowsWithScaleAttemptsAndRounds(t *testing.T) {
	// 10 attempts at scale 5 with an 8 µs floor, nodes asked at once: one
	// round trip of two hops, each 8 µs and a hop's 250 µs wake-up, and
	// the client's own timer's 2 ms: 5 × 10 × (2 × 258 µs + 2 ms).
	assert.InDelta(t, 0.1258, AvailabilityFloor(5, 8*time.Microsecond, 10, 1), 1e-9)
	// Five nodes asked one by one: five round trips an attempt.
	assert.InDelta(t, 5*10*(5*2*0.000258+0.002), AvailabilityFloor(5, 8*time.Microsecond, 10, 5), 1e-9)
	assert.InDelta(t, 5*(2*0.000258+0.002), AvailabilityFloor(5, 8*time.Microsecond, 0, 0), 1e-9, "at least one attempt and one round")
	assert.Greater(t, AvailabilityFloor(5, 8*time.Microsecond, 10, 1), AvailabilityFloor(2.5, 8*time.Microsecond, 10, 1), "grows with the scale")
}

func TestRoundsPerAttemptCountTheNodesOfALockThatAsksThemOneByOne(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rounds float64
	}{
		{"redlock-py-connected-quorum", 5}, // redlock-py asks its five nodes one by one
		{"baseline", 1},                    // redsync asks them at once
	} {
		sc, err := scenarios.LoadLibrary(tc.name)
		require.NoError(t, err)
		assert.Equal(t, tc.rounds, RoundsPerAttempt(&sc.Config), tc.name)
	}
}

// redlock-py-connected-quorum's shape (scale 2.86, floor 5.5 µs, two
// attempts, the model's 6.5 ms): the floor counts its five round trips
// one after another, 26 ms, where one round trip an attempt would give
// 14 ms. A real excess of 16 ms is within it; one of 40 ms is not.
func TestASequentialLockCountsItsRoundTrips(t *testing.T) {
	row := func(real, rounds float64) Row {
		var r Row
		r.Sim.UnavailableS, r.Sim.UnavailableCI = MeanOf([]float64{0.0065, 0.0062, 0.0065})
		r.Real.UnavailableS, r.Real.UnavailableCI = MeanOf([]float64{real - 0.0001, real, real + 0.0001})
		r.Sim.LongestOutageS, r.Sim.LongestCI = r.Sim.UnavailableS, r.Sim.UnavailableCI
		r.Real.LongestOutageS, r.Real.LongestCI = r.Real.UnavailableS, r.Real.UnavailableCI
		r.FloorS = AvailabilityFloor(2.857, 5500*time.Nanosecond, 2, rounds)
		judgeAvailability(&r, nil)
		return r
	}
	assert.InDelta(t, 0.026, row(0.0225, 5).FloorS, 0.001)
	assert.InDelta(t, 0.014, row(0.0225, 1).FloorS, 0.001)
	r := row(0.0225, 5)
	assert.Equal(t, "agree", r.Availability, r.AvailabilityWhy)
	assert.Equal(t, "DISAGREE", row(0.0225, 1).Availability, "one round trip an attempt is not what redlock-py makes")
	assert.Equal(t, "DISAGREE", row(0.047, 5).Availability)
}

// compare's CSV keeps its columns and appends, for each side, the
// violations per acquisition and per hour with Garwood's intervals: a
// side that saw none has the upper bound 3.689 over its exposure.
func TestCompareCSVRates(t *testing.T) {
	var row Row
	row.Scenario = "x"
	sim := eventCounts{mutex: 0, resource: 4, acquisitions: 2000}
	real := eventCounts{mutex: 2, resource: 0, acquisitions: 1000}
	sim.rates(&row.Sim, 10, time.Minute) // 10 runs of 60 s: 1/6 hour
	real.rates(&row.Real, 10, time.Minute)
	var buf bytes.Buffer
	WriteCSV(&buf, []Row{row})
	recs, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 2)
	head, cells := recs[0], recs[1]
	require.Equal(t, "availability_why", head[34], "the older columns keep their places")
	require.Equal(t, rateColumns(), head[35:])
	get := func(col string) float64 {
		t.Helper()
		i := slices.Index(head, col)
		require.GreaterOrEqual(t, i, 0, col)
		v, err := strconv.ParseFloat(cells[i], 64)
		require.NoError(t, err, "%s: %q", col, cells[i])
		return v
	}
	near := func(col string, want float64) {
		t.Helper()
		if got := get(col); math.Abs(got-want) > 1e-5*want {
			t.Errorf("%s = %v, want %v", col, got, want)
		}
	}
	assert.Equal(t, 0.0, get("sim_mutex_per_acquisition"))
	assert.Equal(t, 0.0, get("sim_mutex_per_acquisition_ci_low"))
	near("sim_mutex_per_acquisition_ci_high", 3.688879/2000)
	near("sim_mutex_per_hour_ci_high", 3.688879*6)
	near("sim_resource_per_acquisition", 4.0/2000)
	near("sim_resource_per_acquisition_ci_low", 1.089865/2000)
	near("sim_resource_per_acquisition_ci_high", 10.241589/2000)
	near("real_mutex_per_hour", 2*6)
	near("real_mutex_per_hour_ci_low", 0.242209*6)
	near("real_mutex_per_hour_ci_high", 7.224688*6)
	near("real_resource_per_acquisition_ci_high", 3.688879/1000)
}

func TestCompareVerdicts(t *testing.T) {
	five := NewRate(5, 5)
	none := NewRate(0, 5)
	assert.Equal(t, "violation", five.verdict())
	assert.Equal(t, "safe", none.verdict())
	part, parted := differ.Judge("mutex", five.judged(), none.judged())
	assert.True(t, parted && part.Verdicts, "5/5 and 0/5 part on their verdicts")
	four := NewRate(4, 5)
	_, parted = differ.Judge("mutex", five.judged(), four.judged())
	assert.False(t, parted, "5/5 [%.2f,%.2f] and 4/5 [%.2f,%.2f] agree", five.Lo, five.Hi, four.Lo, four.Hi)
	assert.Equal(t, "4/5 [0.38,0.96]", four.String())
}
