package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
)

func TestBoundaryPrintsThresholdAndPrediction(t *testing.T) {
	code, out, errOut := runCLI("boundary", "clock-jump", "--key", "faults[4].by", "--from", "0s", "--to", "20s", "--seeds", "3")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "faults[4].by from 0s (safe) to 20s (violation), mutex over seeds 1 to 3")
	assert.Contains(t, out, "predicted onset in [")
	// The first violating run's command replays a violation.
	line := out[strings.Index(out, "first violating  ")+len("first violating  "):]
	line = line[:strings.Index(line, "\n")]
	args := strings.Fields(strings.TrimPrefix(strings.TrimSuffix(line, " --trace"), "redlocksim "))
	for i, a := range args {
		args[i] = strings.Trim(a, "'")
	}
	code, _, errOut = runCLI(append(args, "--fail-on-violation")...)
	assert.Equal(t, 1, code, "%v: %s", args, errOut)
}

func TestBoundaryBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"boundary", "baseline"}, "--key, --from and --to are required"},
		{[]string{"boundary", "baseline", "--key", "lock.ttl", "--from", "5s", "--to", "20s", "--seeds", "2"}, "safe at both ends"},
		{[]string{"boundary", "baseline", "--key", "resource.mode", "--from", "a", "--to", "b"}, "neither a number nor a duration"},
		{[]string{"boundary", "baseline", "--key", "resource.mode", "--from", "1", "--to", "2"}, "resource.mode: must be a string"},
		{[]string{"boundary", "baseline", "--key", "lock.ttl", "--from", "9s", "--to", "1s"}, "--from 9s must be less than --to 1s"},
		{[]string{"boundary", "baseline", "--key", "lock..ttl", "--from", "1s", "--to", "9s"}, "--key lock..ttl"},
		// It ran, and grew past half a gigabyte in 20 s.
		{[]string{"boundary", "baseline", "--key", "lock.ttl", "--from", "1s", "--to", "20s", "--seeds", "1000000000"}, "redlocksim boundary: --seeds must be between 1 and 1000000, got 1000000000"},
		{[]string{"boundary", "baseline", "--key", "lock.ttl", "--from", "1s", "--to", "20s", "--seeds", "0"}, "redlocksim boundary: --seeds must be between 1 and 1000000, got 0"},
	} {
		code, _, errOut := runCLI(c.args...)
		assert.Equal(t, 2, code, strings.Join(c.args, " "))
		assert.Contains(t, errOut, c.want, strings.Join(c.args, " "))
	}
}

// sweep --analytic adds the closed form's columns to the results file,
// before the rate columns, which come last.
func TestSweepAnalyticColumns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ttl.csv")
	code, _, errOut := runCLI("sweep", "ttl-vs-drift", "--seeds", "1", "--analytic", "--out", out)
	require.Equal(t, 0, code, errOut)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	assert.True(t, strings.HasSuffix(lines[0], ",longest_outage_ms_max,analytic_key,analytic_onset_low,analytic_onset_high,"+strings.Join(sweeprun.RateColumns, ",")), lines[0])
	assert.Contains(t, lines[1], ",nodes.clock.rate_ppm,")
}

// boundary --over writes the onset curve: one bracket per value, the same
// bytes for any --workers, and refuses a value the loader refuses before
// any run, with the loader's message.
func TestBoundaryCurve(t *testing.T) {
	dir := t.TempDir()
	args := []string{"boundary", "gc-pause", "--key", "faults[0].for", "--from", "1s", "--to", "20s", "--seeds", "2", "--over", "lock.ttl=5s,10s,15s"}
	var outs []string
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "curve"+w+".csv")
		code, _, errOut := runCLI(append(args, "--workers", w, "--out", out)...)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, errOut, "boundary faults[0].for at lock.ttl=10s: between ")
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		outs = append(outs, string(data))
	}
	assert.Equal(t, outs[0], outs[1], "the curve depends on --workers")
	lines := strings.Split(strings.TrimSpace(outs[0]), "\n")
	require.Len(t, lines, 4, outs[0])
	assert.Equal(t, "lock.ttl,key,safe,violating,verdict,tol,seeds,first_seed,probes,runs,analytic_onset,analytic_low,analytic_high,analytic_formula", lines[0])
	assert.True(t, strings.HasPrefix(lines[2], "10s,faults[0].for,"), lines[2])
	assert.Contains(t, lines[2], ",flips,")
	// Without --out the CSV goes to stdout.
	code, stdout, errOut := runCLI(append(args, "--workers", "2")...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, outs[0], stdout)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--over", "lock.ttl=5s,-1s"}, "at lock.ttl=-1s: --over: lock.ttl: must be positive, got -1s"},
		{[]string{"--over", "lock.tll=5s"}, "lock.tll"},
		{[]string{"--over", "lock.ttl"}, "want KEY=v1,v2,..."},
		{[]string{"--over", "lock.ttl=5s", "--out", dir}, "--out: "},
		{[]string{"--out", filepath.Join(dir, "x.csv")}, "--out writes the curve of --over"},
	} {
		a := append([]string{"boundary", "gc-pause", "--key", "faults[0].for", "--from", "1s", "--to", "20s", "--seeds", "1"}, c.args...)
		code, _, errOut := runCLI(a...)
		assert.Equal(t, 2, code, strings.Join(a, " "))
		assert.Contains(t, errOut, c.want, strings.Join(a, " "))
	}
}

// plot --boundary draws the curve boundary --over wrote, with a caption
// saying what the bars are and the seeds per test, and names a value
// whose verdict did not flip instead of drawing it.
func TestPlotBoundary(t *testing.T) {
	dir := t.TempDir()
	curve := filepath.Join(dir, "curve.csv")
	code, _, errOut := runCLI("boundary", "gc-pause", "--key", "faults[0].for", "--from", "1s", "--to", "20s", "--seeds", "2",
		"--over", "lock.ttl=5s,15s,30s", "--out", curve)
	require.Equal(t, 0, code, errOut)
	data, err := os.ReadFile(curve)
	require.NoError(t, err)
	require.Contains(t, string(data), "\n30s,faults[0].for,,,safe at both ends,")
	svg := filepath.Join(dir, "curve.svg")
	code, _, errOut = runCLI("plot", "--boundary", curve, "--out", svg)
	require.Equal(t, 0, code, errOut)
	fig, err := os.ReadFile(svg)
	require.NoError(t, err)
	for _, want := range []string{"bars: the measured bracket, from the last value safe on all 2 seeds per test", "19ms)", "not drawn: safe at both ends at 30s",
		"lock TTL (s)", "faults[0] for at the onset (s)", "measured (bracket)", "closed form"} {
		assert.Contains(t, string(fig), want)
	}
	code, _, errOut = runCLI("plot", "--boundary", curve, "--no-caption", "--out", svg)
	require.Equal(t, 0, code, errOut)
	fig, _ = os.ReadFile(svg)
	assert.NotContains(t, string(fig), "bars: ")

	sweepCSV := filepath.Join(dir, "sweep.csv")
	require.NoError(t, os.WriteFile(sweepCSV, []byte("point,lock.ttl,runs\n0,1s,2\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--boundary", curve}, "--boundary and --out are required"},
		{[]string{"--boundary", sweepCSV, "--out", svg}, "not an onset curve"},
		{[]string{"--boundary", filepath.Join(dir, "none.csv"), "--out", svg}, "none.csv"},
		{[]string{"--boundary", curve, "extra", "--out", svg}, "unexpected arguments extra"},
	} {
		code, _, errOut := runCLI(append([]string{"plot"}, c.args...)...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, errOut, c.want, c.args)
	}
}
