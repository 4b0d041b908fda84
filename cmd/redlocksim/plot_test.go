package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/plots"
)

// sweepCSV is a results file in the sweep runner's format, with a shard's
// comment line, rows out of order, three TTLs and four clock rate errors.
var sweepCSV = filepath.Join("testdata", "plot", "sweep.csv")

// runPlotCmd runs plot with args. Most tests here use the old spellings
// (plot RESULTS.csv [--heatmap | --overlay REAL.csv] ...), which must
// keep working: their one-line note is checked and left out of stderr.
// TestPlotSubcommands checks that the new spellings draw the same.
func runPlotCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	code, stdout, stderr = runCLI(append([]string{"plot"}, args...)...)
	if note, rest, ok := strings.Cut(stderr, "\n"); ok && strings.HasPrefix(note, "redlocksim plot: note: ") {
		require.Contains(t, note, " is now plot ", "the note names the new spelling")
		stderr = rest
	}
	return code, stdout, stderr
}

// checkPlotGolden compares a figure the command wrote with
// testdata/plot/NAME byte for byte; -update rewrites it.
func checkPlotGolden(t *testing.T, got, name string) {
	t.Helper()
	data, err := os.ReadFile(got)
	require.NoError(t, err)
	path := filepath.Join("testdata", "plot", name)
	if *update {
		require.NoError(t, os.WriteFile(path, data, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create the golden file")
	if !bytes.Equal(data, want) {
		t.Errorf("the figure differs from %s; if the change is intended, rerun with -update and look at the figure", path)
	}
}

func TestPlotLineGolden(t *testing.T) {
	out, stdout, svg := plotFigure(t, sweepCSV, "--x", "nodes.clock.rate_ppm", "--y", "mutex_violation_rate", "--series", "lock.ttl")
	require.Equal(t, "wrote "+out+" (3 lines)\n", stdout)
	checkPlotGolden(t, out, "line.svg")

	for _, s := range []string{
		">mutex violations by server clock rate, one line per lock TTL</text>",
		">server clock rate (%, positive = fast)</text>", ">mutex violations (fraction of runs)</text>",
		">Bars: 95% Wilson score intervals. 20 runs per point.</text>",
		">lock TTL 1s</text>", ">lock TTL 10s</text>", ">lock TTL 30s</text>",
	} {
		require.Contains(t, svg, s)
	}
	// series sorted by duration, not as text (10s would come before 1s)
	i1, i10, i30 := strings.Index(svg, ">lock TTL 1s<"), strings.Index(svg, ">lock TTL 10s<"), strings.Index(svg, ">lock TTL 30s<")
	require.True(t, i1 < i10 && i10 < i30, "legend order 1s, 10s, 30s; got offsets %d %d %d", i1, i10, i30)
}

// Durations are plotted in seconds and labelled so; an empty y cell is a
// point left out, and said so.
func TestPlotDurationAxisAndEmptyCells(t *testing.T) {
	out, stdout, svg := plotFigure(t, sweepCSV, "--x", "lock.ttl", "--y", "acquire_p99_ms", "--series", "nodes.clock.rate_ppm", "--title", "p99")
	require.Equal(t, "wrote "+out+" (4 lines; 1 row without a value of acquire_p99_ms left out)\n", stdout)
	require.Contains(t, svg, ">lock TTL (s)</text>")
	require.Contains(t, svg, ">mean p99 acquisition latency (ms)</text>")
	require.Contains(t, svg, ">No bars: the CSV has no interval for acquire_p99_ms. 20 runs per point.</text>")
	require.Contains(t, svg, ">p99</text>")
	require.Contains(t, svg, ">30</text>", "the x axis reaches 30 (seconds)")
}

func TestPlotHeatmapGolden(t *testing.T) {
	out, stdout, svg := plotFigure(t, "--heatmap", "--x", "lock.ttl", "--y", "nodes.clock.rate_ppm", "--z", "mutex_violation_rate", sweepCSV)
	require.Equal(t, "wrote "+out+" (3 × 4 cells)\n", stdout)
	checkPlotGolden(t, out, "heatmap.svg")
	for _, s := range []string{">lock TTL (s)</text>", ">server clock rate (%, positive = fast)</text>", ">0.05</text>", ">1</text>", ">30</text>"} {
		require.Contains(t, svg, s)
	}
}

func TestPlotPNGAndPDF(t *testing.T) {
	for _, ext := range []string{".png", ".pdf"} {
		out := filepath.Join(t.TempDir(), "fig"+ext)
		code, _, stderr := runPlotCmd(t, sweepCSV, "--x", "nodes.clock.rate_ppm", "--y", "mutex_violation_rate", "--out", out, "--series", "lock.ttl")
		require.Equal(t, 0, code, stderr)
		fi, err := os.Stat(out)
		require.NoError(t, err)
		require.Positive(t, fi.Size())
	}
}

func TestPlotBadInput(t *testing.T) {
	dir := t.TempDir()
	write := fileWriter(t, dir)
	empty := write("empty.csv", "")
	headerOnly := write("header.csv", "lock.ttl,mutex_violation_rate\n")
	negCSV := write("neg.csv", "lock.ttl,clock_offset_ms\n1s,0.5\n2s,-0.5\n")
	rate := write("rate.csv", "lock.ttl,mutex_violation_rate,mutex_ci_low,mutex_ci_high\n1s,0.5,0.2,0.7\n2s,5,0.2,0.7\n")
	rateCI := write("rateci.csv", "lock.ttl,mutex_violation_rate,mutex_ci_low,mutex_ci_high\n1s,0.5,-1,0.7\n")
	negCount := write("negcount.csv", "lock.ttl,runs\n1s,20\n2s,-3\n")
	var many, grid, long strings.Builder
	many.WriteString("lock.ttl,nodes.count,mutex_violation_rate\n")
	for s := range 3000 {
		fmt.Fprintf(&many, "1s,%d,0.5\n2s,%d,0.25\n", s, s)
	}
	grid.WriteString("lock.ttl,nodes.count,mutex_violation_rate\n")
	for x := range 101 {
		for y := range 100 {
			fmt.Fprintf(&grid, "%ds,%d,0.5\n", x+1, y)
		}
	}
	long.WriteString("lock.ttl,nodes.count,mutex_violation_rate\n")
	for x := range 20001 {
		fmt.Fprintf(&long, "%dms,%d,0.5\n", x+1, x%2)
	}
	manyCSV, gridCSV, longCSV := write("many.csv", many.String()), write("grid.csv", grid.String()), write("long.csv", long.String())
	text := write("text.csv", "resource.mode,mutex_violation_rate\nfencing,0\nunprotected,0.5\n")
	emptyX := write("emptyx.csv", "lock.ttl,mutex_violation_rate\n10s,0\n,0.5\n")
	mixed := write("mixed.csv", "lock.ttl,mutex_violation_rate\n5,0\n10s,0.5\n")
	noY := write("noy.csv", "lock.ttl,acquire_p99_ms\n10s,\n20s,\n")
	ragged := write("ragged.csv", "lock.ttl,mutex_violation_rate\n10s,0\n20s\n")
	halfCI := write("halfci.csv", "lock.ttl,mutex_violation_rate,mutex_ci_low\n10s,0,0\n")
	out := filepath.Join(dir, "fig.svg")
	cols := "point, lock.ttl, nodes.clock.rate_ppm, runs, mutex_violation_runs, mutex_violation_rate, mutex_ci_low, mutex_ci_high, violations_per_1k_acquisitions, unavailable_ms_mean, acquire_p99_ms"
	line := []string{"--x", "nodes.clock.rate_ppm", "--y", "mutex_violation_rate", "--out", out}

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing file", append([]string{filepath.Join(dir, "nope.csv")}, line...),
			"open " + filepath.Join(dir, "nope.csv") + ": no such file or directory"},
		{"no file", line, "give exactly one results CSV, got 0 arguments"},
		{"two files", append([]string{sweepCSV, sweepCSV}, line...), "give exactly one results CSV, got 2 arguments"},
		{"empty file", append([]string{empty}, line...), empty + " is empty"},
		{"header only", append([]string{headerOnly}, line...), headerOnly + " has a header but no rows"},
		{"missing flags", []string{sweepCSV}, "missing --x, --y, --out"},
		{"missing z", []string{sweepCSV, "--heatmap", "--x", "a", "--y", "b", "--out", out}, "missing --z"},
		{"z without heatmap", append([]string{sweepCSV, "--z", "runs"}, line...), "--z needs --heatmap"},
		{"series with heatmap", []string{sweepCSV, "--heatmap", "--series", "s", "--logy", "--x", "a", "--y", "b", "--z", "c", "--out", out},
			"--series, --logy cannot be used with --heatmap"},
		{"missing column", []string{sweepCSV, "--x", "lock.tl", "--y", "mutex_violation_rate", "--out", out},
			sweepCSV + ` has no column "lock.tl" (for --x); its columns are: ` + cols},
		{"missing y column", []string{sweepCSV, "--x", "lock.ttl", "--y", "violations", "--out", out},
			sweepCSV + ` has no column "violations" (for --y); its columns are: ` + cols},
		{"missing series column", append([]string{sweepCSV, "--series", "lock.value"}, line...),
			sweepCSV + ` has no column "lock.value" (for --series); its columns are: ` + cols},
		{"non-numeric x", []string{text, "--x", "resource.mode", "--y", "mutex_violation_rate", "--out", out},
			text + `:2: column "resource.mode" (--x) must hold numbers or durations, got "fencing"`},
		{"empty x", []string{emptyX, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--out", out},
			emptyX + `:3: column "lock.ttl" (--x) has an empty cell`},
		{"mixed x", []string{mixed, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--out", out},
			mixed + `: column "lock.ttl" (--x) mixes plain numbers and durations`},
		{"no y anywhere", []string{noY, "--x", "lock.ttl", "--y", "acquire_p99_ms", "--out", out},
			noY + `: column "acquire_p99_ms" is empty in every row`},
		{"ragged row", []string{ragged, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--out", out},
			ragged + `: record on line 3: wrong number of fields`},
		{"half an interval", []string{halfCI, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--out", out},
			halfCI + ` has "mutex_ci_low" without "mutex_ci_high": an interval needs both`},
		{"duplicate x", append([]string{sweepCSV}, line...),
			sweepCSV + `: lines 5 and 6 are both at nodes.clock.rate_ppm=10000 in series "mutex violations"; they differ in lock.ttl: pick one with --series or keep one with --where`},
		{"duplicate cell", []string{sweepCSV, "--heatmap", "--x", "lock.ttl", "--y", "runs", "--z", "mutex_violation_rate", "--out", out},
			sweepCSV + `: lines 4 and 6 are both at lock.ttl=1s, runs=20; they differ in nodes.clock.rate_ppm: keep one with --where nodes.clock.rate_ppm=0`},
		{"log x with zero", append([]string{sweepCSV, "--series", "lock.ttl", "--logx"}, line...),
			sweepCSV + `:4: --logx cannot show nodes.clock.rate_ppm=0 (not positive); drop --logx or leave such rows out`},
		{"log y with a negative", []string{negCSV, "--x", "lock.ttl", "--y", "clock_offset_ms", "--logy", "--out", out},
			negCSV + `:3: --logy cannot show clock_offset_ms=-0.5 (negative); drop --logy or leave such rows out`},
		{"rate above 1", []string{rate, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--out", out},
			rate + `:3: column "mutex_violation_rate" (--y) must be a fraction of runs, from 0 to 1, got 5`},
		{"rate interval below 0", []string{rateCI, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--out", out},
			rateCI + `:2: column "mutex_ci_low" (the interval of --y) must be a fraction of runs, from 0 to 1, got -1`},
		{"negative count", []string{negCount, "--x", "lock.ttl", "--y", "runs", "--out", out},
			negCount + `:3: column "runs" (--y) must be a count, a whole number from 0, got -3`},
		{"3000 series", []string{manyCSV, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--series", "nodes.count", "--logy", "--out", out},
			manyCSV + `: --series nodes.count has 3000 values, a line each; a figure draws at most 100 lines: keep some with --where, such as --where nodes.count=0,1,2`},
		{"10100 cells", []string{gridCSV, "--heatmap", "--x", "lock.ttl", "--y", "nodes.count", "--z", "mutex_violation_rate", "--out", out},
			gridCSV + `: lock.ttl and nodes.count make 101 × 100 = 10100 cells; a heatmap draws at most 10000: keep some with --where, such as --where lock.ttl=1s,2s,3s`},
		{"20001 points", []string{longCSV, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--series", "nodes.count", "--out", out},
			longCSV + `: 20001 rows to draw; a figure draws at most 20000 points: keep some with --where, such as --where nodes.count=0,1`},
		{"where without =", append([]string{sweepCSV, "--where", "lock.ttl"}, line...), `--where wants key=value or key=v1,v2, like --where nodes.clock.rate_ppm=0,20000, got "lock.ttl"`},
		{"where unknown column", append([]string{sweepCSV, "--where", "lock.tll=1s"}, line...), sweepCSV + ` has no column "lock.tll" (for --where); its columns are: point, lock.ttl, nodes.clock.rate_ppm, runs, mutex_violation_runs, mutex_violation_rate, mutex_ci_low, mutex_ci_high, violations_per_1k_acquisitions, unavailable_ms_mean, acquire_p99_ms`},
		{"where matches nothing", append([]string{sweepCSV, "--where", "lock.ttl=2s"}, line...), sweepCSV + `: no row has lock.ttl=2s (it has 10s, 1s, 30s)`},
		{"bad label", append([]string{sweepCSV, "--label", "lock.ttl"}, line...), `--label wants key=text, like --label 'lock.ttl=TTL', got "lock.ttl"`},
		{"annotate without heatmap", append([]string{sweepCSV, "--annotate", "ci"}, line...), `--annotate needs --heatmap`},
		{"annotate what", []string{sweepCSV, "--heatmap", "--x", "lock.ttl", "--y", "nodes.clock.rate_ppm", "--z", "mutex_violation_rate", "--annotate", "sd", "--out", out}, `--annotate "sd": the one annotation is ci`},
		{"bad extension", []string{sweepCSV, "--x", "nodes.clock.rate_ppm", "--y", "mutex_violation_rate", "--series", "lock.ttl", "--out", filepath.Join(dir, "fig.jpg")},
			`cannot save a figure as "fig.jpg": the file name must end in .svg, .png or .pdf`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runPlotCmd(t, tt.args...)
			require.Equal(t, 2, code, "stderr: %s", stderr)
			require.Empty(t, stdout)
			require.Equal(t, "redlocksim plot: "+tt.want+"\n", stderr)
		})
	}
	_, err := os.Stat(out)
	require.True(t, os.IsNotExist(err), "a failed plot left a figure behind")
}

func TestPlotFlagErrors(t *testing.T) {
	code, _, stderr := runPlotCmd(t, "--bogus")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "flag provided but not defined: -bogus")
	require.Contains(t, stderr, "usage: redlocksim plot")
	code, _, stderr = runPlotCmd(t, "-h")
	require.Equal(t, 0, code)
	require.Contains(t, stderr, "usage: redlocksim plot")
}

// A heatmap axis may be a category (a persistence policy): its values are
// named on the axis in the order the sweep wrote them.
// TestPlotDuplicateCellHintWorks: the --where the duplicate-cell error
// suggests draws the heatmap.
func TestPlotDuplicateCellHintWorks(t *testing.T) {
	out := filepath.Join(t.TempDir(), "h.svg")
	args := []string{sweepCSV, "--heatmap", "--x", "lock.ttl", "--y", "runs", "--z", "mutex_violation_rate", "--out", out}
	code, _, errOut := runPlotCmd(t, args...)
	require.Equal(t, exitBadInput, code)
	i := strings.Index(errOut, "--where ")
	require.GreaterOrEqual(t, i, 0, errOut)
	where := strings.TrimSpace(errOut[i+len("--where "):])
	code, _, errOut = runPlotCmd(t, append(args, "--where", where)...)
	require.Equal(t, 0, code, errOut)
	assert.FileExists(t, out)
}

func TestPlotHeatmapCategoricalAxis(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "p.csv")
	require.NoError(t, os.WriteFile(csv, []byte("point,nodes.persistence,nodes.restart_delay,mutex_violation_rate\n"+
		"0,none,0s,0.9\n1,none,11s,0\n2,everysec,0s,0.05\n3,everysec,11s,0\n4,always,0s,0\n5,always,11s,0\n"), 0o644))
	out, stdout, svg := plotFigure(t, "--heatmap", "--x", "nodes.restart_delay", "--y", "nodes.persistence", "--z", "mutex_violation_rate", csv)
	require.Equal(t, "wrote "+out+" (2 × 3 cells)\n", stdout)
	for _, s := range []string{">none</text>", ">everysec</text>", ">always</text>", ">0.9</text>"} {
		require.Contains(t, svg, s)
	}
	// A line plot still needs a numeric x.
	code, _, stderr := runPlotCmd(t, "--x", "nodes.persistence", "--y", "mutex_violation_rate", "--out", out, csv)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `must hold numbers or durations, got "none"`)
}

// --where keeps the TTL-10s rows (1s written as 10000ms matches 10s), a
// --label renames the x axis, --logy draws the two zero rates as arrows
// down from their Wilson upper bounds (no floor, no point at a made-up 0),
// and the x axis is padded past 10000 so that its last marker is whole
// and its tick is drawn.
func TestPlotWhereLabelLogYGolden(t *testing.T) {
	out, stdout, svg := plotFigure(t, sweepCSV, "--x", "nodes.clock.rate_ppm", "--y", "mutex_violation_rate",
		"--where", "lock.ttl=10000ms", "--label", "nodes.clock.rate_ppm=Redis clock error (ppm)", "--logy")
	require.Equal(t, "wrote "+out+" (1 line)\n", stdout)
	checkPlotGolden(t, out, "where-label-logy.svg")
	for _, s := range []string{
		">mutex violations by Redis clock error</text>",
		">Redis clock error (ppm)</text>",
		">mutex violations (fraction of runs)</text>",
		">" + plots.UpperBoundNote + "</text>",
		">10000</text>",
	} {
		require.Contains(t, svg, s)
	}
	// Four rows are left, two with violations: two markers and the
	// legend's, each a circle drawn as two arcs, and two arrow heads.
	assert.Equal(t, 2*(2+1), strings.Count(svg, "A3.2,3.2"), "two markers and the legend's")
	assert.Equal(t, 3+2, strings.Count(svg, "Z\" style=\"fill:#0072B2\""), "three circles (two markers, the legend's) and two arrow heads")
}

// TestPlotLogYExtremes: a log y axis draws a value of 10¹⁶ with an
// interval down to zero (whose bar gonum keeps as Y − (Y − 0) = 0, a log
// scale's panic and, for the ticks, an endless loop from 0), and a value
// of 10⁻³⁰⁰ beside it, over 316 decades with a few ticks.
func TestPlotLogYExtremes(t *testing.T) {
	dir := t.TempDir()
	write := fileWriter(t, dir)
	for _, c := range []struct{ name, body string }{
		{"huge.csv", "lock.ttl,m,m_ci_low,m_ci_high\n1s,1e16,0,2e16\n2s,5,0,6\n"},
		{"tiny.csv", "lock.ttl,m\n1s,1e16\n2s,1e-300\n3s,0\n"},
		{"zeros.csv", "lock.ttl,m,m_ci_low,m_ci_high\n1s,0,0,0\n2s,0,0,0\n"},
		{"one.csv", "lock.ttl,m\n1s,1\n"},
	} {
		in, out := write(c.name, c.body), filepath.Join(dir, c.name+".svg")
		code, stdout, stderr := runPlotCmd(t, in, "--x", "lock.ttl", "--y", "m", "--logy", "--out", out)
		require.Equal(t, 0, code, "%s: %s", c.name, stderr)
		require.Equal(t, "wrote "+out+" (1 line)\n", stdout)
		svg, err := os.ReadFile(out)
		require.NoError(t, err)
		require.NotContains(t, string(svg), "NaN", c.name)
		require.NotContains(t, string(svg), "Inf", c.name)
	}
}
