package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/differ"
	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/scenarios"
)

// Node clocks run for real, but no clock library reaches etcd, a Go
// program: a store clock is refused with exit 2.
func TestRealRefusesAStoreClockWithExit2(t *testing.T) {
	code, out, errOut := runCLI("real", "consensus-lease-fencing", "--set", "store.clock={rate_ppm=20}")
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "redlocksim real: consensus-lease-fencing: cannot run for real: store.clock: etcd is a Go program")
}

// A clock step the scale brings below Redis's millisecond is refused.
func TestRealRefusesAClockStepBelowResolutionWithExit2(t *testing.T) {
	code, _, errOut := runCLI("real", "clock-jump", "--set", `faults[4].by="+3ms"`, "--scale", "4")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--scale 4 makes faults[4].by (clock-step on n3) 750µs, below the 1ms a real redis-server resolves")
}

func TestRealClientIsHidden(t *testing.T) {
	code, out, _ := runCLI("help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "real ")
	assert.NotContains(t, out, "real-client")
}

func TestCompareRefusesWhatCannotRunForReal(t *testing.T) {
	// Loss on a TCP link stays refused (TCP retransmits); a power loss
	// under everysec, which this test named before, now runs on lazyfs.
	dir := compareDir(t, map[string]string{"lossy.toml": "\n[[faults]]\nat = \"1s\"\nkind = \"loss\"\nprob = 0.5\n"})
	code, _, errOut := runCLI("compare", filepath.Join(dir, "lossy.toml"))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "cannot run for real: loss fault")
}

func TestCompareVerdicts(t *testing.T) {
	five := newRate(5, 5)
	none := newRate(0, 5)
	assert.Equal(t, "violation", five.verdict())
	assert.Equal(t, "safe", none.verdict())
	part, parted := differ.Judge("mutex", five.side(), none.side())
	assert.True(t, parted && part.Verdicts, "5/5 and 0/5 part on their verdicts")
	four := newRate(4, 5)
	_, parted = differ.Judge("mutex", five.side(), four.side())
	assert.False(t, parted, "5/5 [%.2f,%.2f] and 4/5 [%.2f,%.2f] agree", five.Lo, five.Hi, four.Lo, four.Hi)
	assert.Equal(t, "4/5 [0.38,0.96]", four.String())
}

// compareDir writes the library's baseline once per name into a fresh
// directory, each with the extra TOML lines given, and returns the directory.
func compareDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := scenarios.LoadBase("baseline")
	require.NoError(t, err)
	for name, extra := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), append(b.TOML(), []byte(extra)...), 0o644))
	}
	return dir
}

func TestCompareDirSkipsWhatCannotRunForReal(t *testing.T) {
	// Loss on a TCP link is refused for good (TCP retransmits), so these
	// two files stay refused whatever else comes to run for real.
	dir := compareDir(t, map[string]string{
		"b-lossy.toml": "\n[[faults]]\nat = \"1s\"\nkind = \"loss\"\nprob = 0.5\n",
		"a-lossy.toml": "\n[[faults]]\nat = \"2s\"\nkind = \"loss\"\nprob = 0.1\n",
	})
	code, out, errOut := runCLI("compare", dir)
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	a := strings.Index(errOut, "skipped "+filepath.Join(dir, "a-lossy.toml")+": cannot run for real: loss fault")
	b := strings.Index(errOut, "skipped "+filepath.Join(dir, "b-lossy.toml")+": cannot run for real: loss fault")
	assert.True(t, a >= 0 && b > a, "both files skipped, in name order:\n%s", errOut)
	assert.Contains(t, errOut, "nothing to compare")
}

func TestCompareDirRefusesABadFileOrAnEmptyDir(t *testing.T) {
	code, _, errOut := runCLI("compare", t.TempDir())
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "a directory with no scenario files (*.toml) in it")

	dir := compareDir(t, map[string]string{"bad.toml": "\nno_such_key = 1\n"})
	code, _, errOut = runCLI("compare", dir)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, filepath.Join(dir, "bad.toml")+":")
	assert.Contains(t, errOut, "no_such_key")
}

func TestCompareJudgesAvailability(t *testing.T) {
	row := func(sim, real []float64, floor float64) compareRow {
		var r compareRow
		r.Sim.UnavailableS, r.Sim.UnavailableCI = meanOf(sim)
		r.Real.UnavailableS, r.Real.UnavailableCI = meanOf(real)
		r.Sim.LongestOutageS, r.Sim.LongestCI = meanOf(sim)
		r.Real.LongestOutageS, r.Real.LongestCI = meanOf(real)
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

func TestAFailoverRunNotesTheSentinelsOwnTimers(t *testing.T) {
	sc, err := loadScenario("failover-wait", nil)
	require.NoError(t, err)
	refused, notes := harness.Refusals(&sc.Config)
	require.Empty(t, refused)
	assert.Contains(t, notes, harness.SentinelTimersNote)
	sc, err = loadScenario("gc-pause", nil)
	require.NoError(t, err)
	_, notes = harness.Refusals(&sc.Config)
	assert.NotContains(t, notes, harness.SentinelTimersNote)
}

func TestTheAvailabilityFloorGrowsWithScaleAttemptsAndRounds(t *testing.T) {
	// 10 attempts at scale 5 with an 8 µs floor, nodes asked at once: one
	// round trip of two hops, each 8 µs and a hop's 250 µs wake-up, and
	// the client's own timer's 2 ms: 5 × 10 × (2 × 258 µs + 2 ms).
	assert.InDelta(t, 0.1258, availabilityFloor(5, 8*time.Microsecond, 10, 1), 1e-9)
	// Five nodes asked one by one: five round trips an attempt.
	assert.InDelta(t, 5*10*(5*2*0.000258+0.002), availabilityFloor(5, 8*time.Microsecond, 10, 5), 1e-9)
	assert.InDelta(t, 5*(2*0.000258+0.002), availabilityFloor(5, 8*time.Microsecond, 0, 0), 1e-9, "at least one attempt and one round")
	assert.Greater(t, availabilityFloor(5, 8*time.Microsecond, 10, 1), availabilityFloor(2.5, 8*time.Microsecond, 10, 1), "grows with the scale")
}

func TestRoundsPerAttemptCountTheNodesOfALockThatAsksThemOneByOne(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rounds float64
	}{
		{"redlock-py-connected-quorum", 5}, // redlock-py asks its five nodes one by one
		{"baseline", 1},                    // redsync asks them at once
	} {
		sc, err := loadScenario(tc.name, nil)
		require.NoError(t, err)
		assert.Equal(t, tc.rounds, roundsPerAttempt(&sc.Config), tc.name)
	}
}

// redlock-py-connected-quorum's shape (scale 2.86, floor 5.5 µs, two
// attempts, the model's 6.5 ms): the floor counts its five round trips
// one after another, 26 ms, where one round trip an attempt would give
// 14 ms. A real excess of 16 ms is within it; one of 40 ms is not.
func TestASequentialLockCountsItsRoundTrips(t *testing.T) {
	row := func(real, rounds float64) compareRow {
		var r compareRow
		r.Sim.UnavailableS, r.Sim.UnavailableCI = meanOf([]float64{0.0065, 0.0062, 0.0065})
		r.Real.UnavailableS, r.Real.UnavailableCI = meanOf([]float64{real - 0.0001, real, real + 0.0001})
		r.Sim.LongestOutageS, r.Sim.LongestCI = r.Sim.UnavailableS, r.Sim.UnavailableCI
		r.Real.LongestOutageS, r.Real.LongestCI = r.Real.UnavailableS, r.Real.UnavailableCI
		r.FloorS = availabilityFloor(2.857, 5500*time.Nanosecond, 2, rounds)
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
