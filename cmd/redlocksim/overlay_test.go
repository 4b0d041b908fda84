package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// realCSV is compare --sweep's file for three points of sweepCSV's grid,
// two of them spelled otherwise (1000ms for 1s, 2e3 for 2000).
var realCSV = filepath.Join("testdata", "plot", "real.csv")

func TestPlotOverlayGolden(t *testing.T) {
	out, stdout, svg := plotFigure(t, sweepCSV, "--x", "nodes.clock.rate_ppm", "--y", "mutex_violation_rate", "--series", "lock.ttl", "--overlay", realCSV)
	require.Equal(t, "wrote "+out+" (3 lines, 3 real points)\n", stdout)
	checkPlotGolden(t, out, "overlay.svg")
	for _, s := range []string{
		">lock TTL 1s</text>", ">lock TTL 1s, real</text>", ">lock TTL 30s, real</text>",
		">Bars: 95% Wilson score intervals. 20 runs per point. Rings: real runs (compare --sweep), 5 runs per ring, their times divided</text>",
		">by 4 to 8; their bars: 95% Wilson score intervals.</text>",
	} {
		require.Contains(t, svg, s)
	}
	require.NotContains(t, svg, ">lock TTL 10s, real</text>", "no real point is over the 10s line")
	// The 1000ms row joins the 1s line, not a line of its own.
	require.NotContains(t, svg, "1000ms")
}

func TestPlotOverlayWhereLeavesOutRealRowsWithoutALine(t *testing.T) {
	out, stdout, _ := plotFigure(t, sweepCSV, "--x", "nodes.clock.rate_ppm", "--y", "mutex_violation_rate", "--series", "lock.ttl",
		"--where", "lock.ttl=1s,10s", "--overlay", realCSV)
	require.Equal(t, "wrote "+out+" (2 lines, 2 real points)\n", stdout, "--where lock.ttl=1s,10s keeps the 1s rows of the real file and no error for its lack of 10s")
}

func TestPlotOverlayErrors(t *testing.T) {
	dir := t.TempDir()
	write := fileWriter(t, dir)
	head := "point,lock.ttl,nodes.clock.rate_ppm,runs,mutex_violation_runs,mutex_violation_rate,mutex_ci_low,mutex_ci_high"
	for _, c := range []struct {
		file, want string
		heatmap    bool
	}{
		{write("nomode.csv", head+"\n0,1s,0,5,0,0,0,0.43\n"), `has no column "mode" (for --overlay, which takes compare --sweep's CSV)`, false},
		{write("sim.csv", head+",mode,scale\n0,1s,0,5,0,0,0,0.43,sim,1\n"), `sim.csv:2: mode is "sim"; an overlay draws real runs`, false},
		{write("nolines.csv", head+",mode,scale\n0,5s,0,5,0,0,0,0.43,real,1\n"), "none of its rows is over a line drawn (1 with a --series value that has no line, 0 without a value of mutex_violation_rate)", false},
		{realCSV, "--overlay draws over lines, not a --heatmap", true},
		{filepath.Join(dir, "missing.csv"), "--overlay: open", false},
	} {
		out := filepath.Join(dir, "fig.svg")
		args := []string{sweepCSV, "--x", "nodes.clock.rate_ppm", "--y", "mutex_violation_rate", "--series", "lock.ttl", "--overlay", c.file, "--out", out}
		if c.heatmap {
			args = []string{sweepCSV, "--heatmap", "--x", "nodes.clock.rate_ppm", "--y", "lock.ttl", "--z", "mutex_violation_rate", "--overlay", c.file, "--out", out}
		}
		code, _, stderr := runPlotCmd(t, args...)
		require.Equal(t, 2, code, c.file)
		require.True(t, strings.Contains(stderr, c.want), "%s: got %q, want %q", c.file, stderr, c.want)
	}
}
