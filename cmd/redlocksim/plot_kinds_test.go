package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plot line|heatmap|overlay|onset draw what the old spellings drew, byte
// for byte, and say what they wrote; the old spelling prints one line, a
// note naming the new one, and nothing else on stderr.
func TestPlotSubcommands(t *testing.T) {
	dir := t.TempDir()
	curve := filepath.Join(dir, "curve.csv")
	require.NoError(t, os.WriteFile(curve, []byte("lock.ttl,workload.critical_section,"+
		"key,safe,violating,verdict,tol,seeds,first_seed,probes,runs,analytic_onset,analytic_low,analytic_high,analytic_formula\n"+
		"1s,975ms,nodes.clock.rate_ppm,10000,10500,flips,500,4,1,8,32,10200,,,drift: ttl×rate\n"+
		"2s,1960ms,nodes.clock.rate_ppm,5000,5500,flips,500,4,1,8,32,5100,,,drift: ttl×rate\n"), 0o644))
	line := []string{"--x", "nodes.clock.rate_ppm", "--y", "mutex_violation_rate", "--series", "lock.ttl"}
	heat := []string{"--x", "lock.ttl", "--y", "nodes.clock.rate_ppm", "--z", "mutex_violation_rate", "--annotate", "ci"}
	for _, c := range []struct {
		name         string
		now, old     []string
		note, stdout string
	}{
		{"line", append([]string{"line", sweepCSV}, line...), append([]string{sweepCSV}, line...),
			"plot RESULTS.csv is now plot line RESULTS.csv", "3 lines"},
		{"heatmap", append([]string{"heatmap", sweepCSV}, heat...), append([]string{sweepCSV, "--heatmap"}, heat...),
			"plot RESULTS.csv --heatmap is now plot heatmap RESULTS.csv", "3 × 4 cells"},
		{"overlay", append([]string{"overlay", sweepCSV, realCSV}, line...), append([]string{sweepCSV, "--overlay", realCSV}, line...),
			"plot RESULTS.csv --overlay REAL.csv is now plot overlay RESULTS.csv REAL.csv", "3 lines, 3 real points"},
		{"onset", []string{"onset", curve}, []string{"--boundary", curve},
			"plot --boundary CURVE.csv is now plot onset CURVE.csv", "2 onsets measured"},
	} {
		t.Run(c.name, func(t *testing.T) {
			now, old := filepath.Join(dir, c.name+"-now.svg"), filepath.Join(dir, c.name+"-old.svg")
			code, stdout, stderr := runCLI(append(append([]string{"plot"}, c.now...), "--out", now)...)
			require.Equal(t, 0, code, stderr)
			assert.Empty(t, stderr)
			assert.Equal(t, "wrote "+now+" ("+c.stdout+")\n", stdout)
			code, _, stderr = runCLI(append(append([]string{"plot"}, c.old...), "--out", old)...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, "redlocksim plot: note: "+c.note+" (the old spelling still works)\n", stderr)
			a, err := os.ReadFile(now)
			require.NoError(t, err)
			b, err := os.ReadFile(old)
			require.NoError(t, err)
			assert.Equal(t, string(b), string(a), "the new spelling draws what the old one drew")
		})
	}
}

// A kind takes its own flags only, and its files: a flag of another kind
// is refused by the flag package, a missing file or flag named.
func TestPlotSubcommandErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fig.svg")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"line", sweepCSV, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--z", "runs", "--out", out}, "flag provided but not defined: -z"},
		{[]string{"heatmap", sweepCSV, "--x", "lock.ttl", "--y", "runs", "--series", "lock.ttl", "--out", out}, "flag provided but not defined: -series"},
		{[]string{"heatmap", sweepCSV, "--x", "lock.ttl", "--y", "runs", "--out", out}, "redlocksim plot: missing --z\n"},
		{[]string{"overlay", sweepCSV, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--out", out},
			"redlocksim plot: give exactly the results CSV and compare --sweep's REAL.csv, got 1 argument\n"},
		{[]string{"onset", sweepCSV}, "redlocksim plot: missing --out\n"},
		{[]string{"line", "--x", "lock.ttl", "--y", "mutex_violation_rate", "--out", out}, "redlocksim plot: give exactly one results CSV, got 0 arguments\n"},
	} {
		code, stdout, stderr := runCLI(append([]string{"plot"}, c.args...)...)
		assert.Equal(t, exitBadInput, code, c.args)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, c.want, c.args)
	}
	// plot -h lists every kind with its flags; plot KIND -h gives one.
	code, _, stderr := runCLI("plot", "-h")
	assert.Equal(t, exitOK, code)
	for _, k := range []string{"line", "heatmap", "overlay", "onset"} {
		assert.Contains(t, stderr, "redlocksim plot "+k+" ")
		assert.Contains(t, stderr, "\nplot "+k+"\n")
	}
	code, _, stderr = runCLI("plot", "heatmap", "-h")
	assert.Equal(t, exitOK, code)
	assert.True(t, strings.HasPrefix(stderr, "usage: redlocksim plot heatmap RESULTS.csv"), stderr)
	assert.Contains(t, stderr, "-annotate")
	assert.NotContains(t, stderr, "-series")
}

// A series whose values are words is named by its value in the legend
// ("redlock", not "name redlock"), and the caption stamps the --where
// selection and the settings every drawn row shares.
func TestPlotLegendAndSelection(t *testing.T) {
	in := filepath.Join(t.TempDir(), "locks.csv")
	require.NoError(t, os.WriteFile(in, []byte("point,name,lock.ttl,clients.count,nodes.count,runs,mutex_violation_rate,mutex_ci_low,mutex_ci_high\n"+
		"0,redlock,1s,2,5,20,0.5,0.3,0.7\n1,redlock,2s,2,5,20,0.25,0.1,0.47\n2,lease,1s,2,3,20,0,0,0.16\n3,lease,2s,2,3,20,0,0,0.16\n4,lease,2s,3,3,20,0,0,0.16\n"), 0o644))
	_, _, svg := plotFigure(t, "line", in, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--series", "name", "--where", "clients.count=2")
	assert.Contains(t, svg, ">redlock</text>")
	assert.Contains(t, svg, ">lease</text>")
	assert.NotContains(t, svg, "name redlock")
	assert.Contains(t, strings.Join(texts(svg), " "), "Bars: 95% Wilson score intervals. 20 runs per point. Selected: clients.count=2.",
		"nodes.count differs between the lines: not fixed")
	svg = plotSVG(t, "line", in, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--where", "name=redlock")
	assert.Contains(t, strings.Join(texts(svg), " "), "Selected: name=redlock. Fixed: clients.count=2, nodes.count=5.")
}
