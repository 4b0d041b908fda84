package sweep

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/scenarios"
)

func TestDeepNestingInASpecIsRefused(t *testing.T) {
	src := "name = \"deep\"\nseeds = 2\n[axes]\nlock.ttl = " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n"
	_, err := Parse("deep.toml", []byte(src))
	errs := scenarios.Errors(err)
	if len(errs) != 1 || errs[0].Line != 4 || !strings.Contains(errs[0].Msg, "nest more than 16 deep") {
		t.Fatalf("got %v, want one error at deep.toml:4 about the nesting", err)
	}
}

// TestLongDescriptionIsRefused: a long description is refused at its line
// (a spec file over scenarios.MaxFileBytes is refused by its size:
// TestLargeFilesAreRefusedAtOnce in package scenarios).
func TestLongDescriptionIsRefused(t *testing.T) {
	src := "name = \"x\"\nbase = \"baseline\"\ndescription = \"" + strings.Repeat("d", 600) + "\"\n"
	_, err := Parse("long.toml", []byte(src))
	errs := scenarios.Errors(err)
	if len(errs) != 1 || errs[0].Line != 3 || !strings.Contains(errs[0].Msg, "is 600 bytes long: at most 500 bytes for a description") {
		t.Fatalf("got %v, want one error at long.toml:3 about the length", err)
	}
}

// axisOf is an axis of n distinct values: durations from 100ms, or
// integers from 0.
func axisOf(n int, durations bool) string {
	vals := make([]string, n)
	for i := range vals {
		if durations {
			vals[i] = fmt.Sprintf("%q", fmt.Sprintf("%dms", 100+i))
		} else {
			vals[i] = fmt.Sprint(i)
		}
	}
	return "[" + strings.Join(vals, ", ") + "]"
}

// TestLargeSpecIsCheckedBySample: the spec of 1000 × 1000 points
// (a thousand seeds each) applied every point to the base as it loaded,
// a minute and 79 MB before the runner refused its billion runs. The
// loader now builds at most CheckedAtLoad points of it, a sample that
// still takes every axis value: a bad value anywhere on an axis is
// reported at its line, as for a small spec.
func TestLargeSpecIsCheckedBySample(t *testing.T) {
	src := "name = \"big\"\nbase = \"baseline\"\nseeds = 1000\n[axes]\nlock.ttl = " + axisOf(1000, true) + "\nnodes.clock.rate_ppm = " + axisOf(1000, false) + "\n"
	before := ScenariosBuilt()
	spec, err := Parse("big.toml", []byte(src))
	require.NoError(t, err)
	built := ScenariosBuilt() - before
	require.Equal(t, 1_000_000, spec.NumPoints())
	require.Equal(t, 1_000_000_000, spec.Runs())
	require.LessOrEqual(t, built, int64(CheckedAtLoad), "scenarios built to load a million points")
	require.Greater(t, built, int64(999), "the sample takes each of an axis's 1000 values")

	// The base's seed is still taken from point 0.
	small, err := Parse("small.toml", []byte("name = \"small\"\nbase = \"baseline\"\n[axes]\nlock.ttl = [\"1s\"]\n"))
	require.NoError(t, err)
	require.Equal(t, small.Seed, spec.Seed)

	// The last value of one axis, and a value of the other in the middle,
	// are bad: both are reported at their lines, without naming a point.
	bad := strings.Replace(src, `"1099ms"`, `"-1s"`, 1)
	bad = strings.Replace(bad, " 500,", " -500000000,", 1)
	before = ScenariosBuilt()
	_, err = Parse("big.toml", []byte(bad))
	require.LessOrEqual(t, ScenariosBuilt()-before, int64(CheckedAtLoad))
	errs := scenarios.Errors(err)
	require.Len(t, errs, 2, "%v", err)
	require.Equal(t, 5, errs[0].Line)
	require.Contains(t, errs[0].Msg, "must be positive")
	require.Equal(t, 6, errs[1].Line)
	require.Contains(t, errs[1].Msg, "rate_ppm -5e+08 ppm is outside")
	require.NotContains(t, err.Error(), "at point")
}

// TestSmallSpecIsCheckedWhole: a spec of CheckedAtLoad points or fewer has
// every point built as it loads, and a combination that only its last
// points make is found there, naming the first of them.
func TestSmallSpecIsCheckedWhole(t *testing.T) {
	counts := make([]string, 0, 32)
	for c := 2; c <= 32; c++ {
		counts = append(counts, fmt.Sprint(c))
	}
	counts = append(counts, "1") // no client c2 for the fault to pause
	src := "name = \"whole\"\n[axes]\nclients.count = [" + strings.Join(counts, ", ") + "]\nlock.ttl = " + axisOf(32, true) + "\n" +
		base + "[[base.faults]]\nat = \"1s\"\nkind = \"pause\"\ntarget = \"c2\"\nfor = \"1s\"\n"
	before := ScenariosBuilt()
	_, err := Parse("whole.toml", []byte(src))
	require.Equal(t, int64(CheckedAtLoad), ScenariosBuilt()-before)
	require.ErrorContains(t, err, `is called "c2"`)
	require.ErrorContains(t, err, `(at point 992: clients.count=1, lock.ttl="100ms")`)

	ok := strings.Replace(src, `, 1]`, `, 33]`, 1)
	before = ScenariosBuilt()
	spec, err := Parse("whole.toml", []byte(ok))
	require.NoError(t, err)
	require.Equal(t, CheckedAtLoad, spec.NumPoints())
	require.Equal(t, int64(CheckedAtLoad), ScenariosBuilt()-before)
}
