package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/plots"
)

// plotFigure runs plot with args, the figure going to a temporary SVG,
// fails the test if the command does, and returns the figure's path,
// what the command printed and the figure.
func plotFigure(t *testing.T, args ...string) (out, stdout, svg string) {
	t.Helper()
	out = filepath.Join(t.TempDir(), "fig.svg")
	code, stdout, stderr := runPlotCmd(t, append(args, "--out", out)...)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	return out, stdout, string(data)
}

// plotSVG is plotFigure's figure alone.
func plotSVG(t *testing.T, args ...string) string {
	t.Helper()
	_, _, svg := plotFigure(t, args...)
	return svg
}

// texts are the texts of an SVG figure, in order.
func texts(svg string) []string {
	var out []string
	for _, part := range strings.Split(svg, "</text>") {
		if i := strings.LastIndex(part, ">"); i >= 0 && strings.Contains(part, "<text") {
			out = append(out, part[i+1:])
		}
	}
	return out
}

// --where KEY=A,B keeps the rows with either value; a repeated --where on
// one key adds its values; --where on different keys must all hold.
func TestPlotWhereSeveralValues(t *testing.T) {
	line := []string{sweepCSV, "--x", "nodes.clock.rate_ppm", "--y", "mutex_violation_rate", "--series", "lock.ttl"}
	two := plotSVG(t, append(line, "--where", "lock.ttl=1s,30s")...)
	assert.Contains(t, two, ">lock TTL 1s</text>")
	assert.Contains(t, two, ">lock TTL 30s</text>")
	assert.NotContains(t, two, ">lock TTL 10s</text>")
	assert.Equal(t, two, plotSVG(t, append(line, "--where", "lock.ttl=1s", "--where", "lock.ttl=30000ms")...),
		"a repeated --where on one key adds its values")

	out, stdout, svg := plotFigure(t, append(line, "--where", "lock.ttl=1s,30s", "--where", "nodes.clock.rate_ppm=0,10000")...)
	assert.Equal(t, "wrote "+out+" (2 lines)\n", stdout)
	// two lines of two points each, plus the legend's markers: circles
	// (two arcs each) for 1s, squares for 30s
	assert.Equal(t, 2*(2+1), strings.Count(svg, "A3.2,3.2"), "the 1s line has two points")

	for _, c := range []struct{ where, want string }{
		{"lock.ttl=1s,2s", sweepCSV + ": no row has lock.ttl=2s (it has 10s, 1s, 30s)"},
		{"lock.ttl=1s,", `--where lock.ttl=1s,: an empty value in "1s,"`},
		{"lock.ttl=", `--where wants key=value or key=v1,v2, like --where nodes.clock.rate_ppm=0,20000, got "lock.ttl="`},
	} {
		code, _, stderr := runPlotCmd(t, append(line, "--where", c.where, "--out", out)...)
		assert.Equal(t, 2, code)
		assert.Equal(t, "redlocksim plot: "+c.want+"\n", stderr)
	}
}

// --label renames a key and keeps its unit, unless the text gives one.
func TestPlotLabelKeepsUnit(t *testing.T) {
	line := []string{sweepCSV, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--series", "nodes.clock.rate_ppm"}
	svg := plotSVG(t, append(line, "--label", "lock.ttl=TTL", "--label", "nodes.clock.rate_ppm=drift")...)
	assert.Contains(t, svg, ">TTL (s)</text>")
	assert.Contains(t, svg, ">drift +1%</text>")
	assert.Contains(t, svg, ">drift in %: positive = fast</text>")
	svg = plotSVG(t, append(line, "--label", "lock.ttl=TTL (seconds)", "--label", "mutex_violation_rate=share of runs with a violation (0-1)")...)
	assert.Contains(t, svg, ">TTL (seconds)</text>")
	assert.Contains(t, svg, ">share of runs with a violation (0-1)</text>")
}

// The caption says what the bars are and how many runs stand behind each
// point; --no-caption leaves it out.
func TestPlotCaption(t *testing.T) {
	line := []string{sweepCSV, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--series", "nodes.clock.rate_ppm"}
	svg := plotSVG(t, line...)
	assert.Contains(t, svg, ">Bars: 95% Wilson score intervals. 20 runs per point.</text>")
	bare := plotSVG(t, append(line, "--no-caption")...)
	assert.NotContains(t, bare, "Bars:")
	assert.NotContains(t, bare, "runs per point")

	heat := []string{sweepCSV, "--heatmap", "--x", "lock.ttl", "--y", "nodes.clock.rate_ppm", "--z", "mutex_violation_rate"}
	assert.Contains(t, strings.Join(texts(plotSVG(t, heat...)), " "), "No interval is shown (--annotate ci writes them). 20 runs per cell.")
	assert.Contains(t, strings.Join(texts(plotSVG(t, append(heat, "--annotate", "ci")...)), " "), "Under each value: its 95% Wilson score interval. 20 runs per cell.")
}

// meanCSV is a results file with an averaged column and its interval
// columns, as sweeps write them, and points of different run counts (an
// adaptive sweep's).
const meanCSV = `point,lock.ttl,runs,mutex_violation_rate,mutex_ci_low,mutex_ci_high,unavailable_ms_mean,unavailable_ms_mean_ci_low,unavailable_ms_mean_ci_high
0,1s,400,0.25,0.21,0.3,120,100,140
1,2s,40,0.1,0.04,0.23,300,220,380
2,5s,20,0,0,0.16,900,600,1200
`

// An averaged column is drawn with the interval the CSV gives it, and
// the caption names the method and the range of runs per point.
func TestPlotMeanIntervalsGolden(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "mean.csv")
	require.NoError(t, os.WriteFile(csv, []byte(meanCSV), 0o644))
	out := filepath.Join(dir, "mean.svg")
	code, _, stderr := runPlotCmd(t, csv, "--x", "lock.ttl", "--y", "unavailable_ms_mean", "--out", out)
	require.Equal(t, 0, code, stderr)
	checkPlotGolden(t, out, "mean-ci.svg")
	svg, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(svg), ">Bars: 95% Student t intervals of the mean over the runs. 20 to 400 runs per point.</text>")
	assert.Contains(t, string(svg), ">mean time wanted but unheld per run, retry gaps included (ms)</text>")
	// three bars of a bar and two caps each, in the series' colour
	assert.Equal(t, 3*3, strings.Count(string(svg), `style="fill:none;stroke:#0072B2" />`))

	// without the interval columns: no bars, and the caption says so
	var stripped []string
	for _, l := range strings.Split(strings.TrimSpace(meanCSV), "\n") {
		f := strings.Split(l, ",")
		stripped = append(stripped, strings.Join(f[:7], ","))
	}
	require.NoError(t, os.WriteFile(csv, []byte(strings.Join(stripped, "\n")+"\n"), 0o644))
	svg2 := plotSVG(t, csv, "--x", "lock.ttl", "--y", "unavailable_ms_mean")
	assert.Contains(t, svg2, ">No bars: the CSV has no interval for unavailable_ms_mean. 20 to 400 runs per point.</text>")
	assert.Equal(t, 0, strings.Count(svg2, `style="fill:none;stroke:#0072B2" />`))
}

// A clock rate of 1000 ppm or more is shown in percent, and the legend
// says that positive is fast.
func TestPlotPercentLegendGolden(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fig.svg")
	code, _, stderr := runPlotCmd(t, sweepCSV, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--series", "nodes.clock.rate_ppm", "--logx", "--out", out)
	require.Equal(t, 0, code, stderr)
	checkPlotGolden(t, out, "line-percent-legend.svg")
	svg, err := os.ReadFile(out)
	require.NoError(t, err)
	for _, s := range []string{">server clock rate 0%</text>", ">server clock rate +0.05%</text>", ">server clock rate +0.2%</text>", ">server clock rate +1%</text>", ">server clock rate in %: positive = fast</text>"} {
		assert.Contains(t, string(svg), s)
	}
	assert.NotContains(t, string(svg), "ppm")
}

// The heatmap is even by default when the values are unevenly spaced;
// --even=false keeps the spacing, --even forces equal cells.
func TestPlotHeatmapEven(t *testing.T) {
	heat := []string{sweepCSV, "--heatmap", "--x", "lock.ttl", "--y", "nodes.clock.rate_ppm", "--z", "mutex_violation_rate"}
	auto := plotSVG(t, heat...)
	assert.Contains(t, strings.Join(texts(auto), " "), "Not to scale: one equal cell per value of lock TTL (s) and of server clock rate (%, positive = fast).")
	assert.Equal(t, auto, plotSVG(t, append(heat, "--even")...))
	assert.Equal(t, auto, plotSVG(t, append(heat, "--even=true")...))
	spaced := plotSVG(t, append(heat, "--even=false")...)
	assert.NotContains(t, spaced, "Not to scale")
	assert.NotEqual(t, auto, spaced)

	out := filepath.Join(t.TempDir(), "fig.svg")
	code, _, stderr := runPlotCmd(t, append(heat, "--even=maybe", "--out", out)...)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `invalid boolean value "maybe" for -even: --even takes true or false, got "maybe"`)
	code, _, stderr = runPlotCmd(t, sweepCSV, "--x", "lock.ttl", "--y", "mutex_violation_rate", "--even", "--out", out)
	assert.Equal(t, 2, code)
	assert.Equal(t, "redlocksim plot: --even needs --heatmap\n", stderr)
}

// TestPlotRatesDownTo1e9: --log-y draws the rates per acquisition down to
// 1e-9, a zero count as an arrow from its Garwood upper bound (3.7e-9 at
// 0 of a billion), and names Garwood's intervals in the caption.
func TestPlotRatesDownTo1e9(t *testing.T) {
	in := filepath.Join(t.TempDir(), "rates.csv")
	require.NoError(t, os.WriteFile(in, []byte(`point,lock.ttl,runs,mutex_violations_per_acquisition,mutex_violations_per_acquisition_ci_low,mutex_violations_per_acquisition_ci_high
0,1s,100,0,0,3.68888e-09
1,2s,100,2e-09,2.42209e-10,7.22469e-09
2,5s,100,4e-06,3e-06,5e-06
`), 0o644))
	svg := plotSVG(t, in, "--x", "lock.ttl", "--y", "mutex_violations_per_acquisition", "--log-y")
	for _, s := range []string{
		">mutex violation rate (per acquisition)</text>",
		">" + plots.UpperBoundNote + "</text>",
		">1e-09</text>", ">1e-06</text>",
		"exact 95% Poisson (Garwood) intervals",
	} {
		assert.Contains(t, svg, s)
	}
	assert.NotContains(t, svg, "0 drawn at", "a zero with an upper bound needs no floor")
}
