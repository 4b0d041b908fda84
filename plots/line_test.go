package plots

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
)

func TestLineGolden(t *testing.T) {
	o := LineOptions{Title: "violations as server clocks run fast", XLabel: "nodes.clock.rate_ppm (ppm)", YLabel: "mutex_violation_rate"}
	p, err := LinePlot(o, threeSeries())
	if err != nil {
		t.Fatal(err)
	}
	svg := svgOf(t, p, LineWidth, LineHeight)
	checkGolden(t, "line_three_series.svg", svg)
	requireTexts(t, svg, o.Title, o.XLabel, o.YLabel, "lock.ttl=1s", "lock.ttl=10s", "lock.ttl=30s", "0", "10000")
	// 17 of the 18 points have an interval: a bar and two caps each.
	// Colours tell the series apart: each series' colour strokes its line,
	// its bars and its legend thumbnail.
	for k, want := range []int{6, 6, 5} {
		col := colorHex(seriesColors[k])
		bars := bytes.Count(svg, []byte("style=\"fill:none;stroke:"+col+"\" />")) // width 1 is the default, left out
		if bars != 3*want {
			t.Errorf("series %d: %d interval strokes in %s, want %d (a bar and two caps per interval)", k, bars, col, 3*want)
		}
	}
}

// colorHex is how the SVG writer prints an opaque colour.
func colorHex(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, b, _ := c.RGBA()
	const hex = "0123456789ABCDEF"
	out := []byte{'#'}
	for _, v := range []uint32{r >> 8, g >> 8, b >> 8} {
		out = append(out, hex[v>>4], hex[v&15])
	}
	return string(out)
}

func TestLineLogAxes(t *testing.T) {
	nan := math.NaN()
	s := []Series{{Name: "a", Points: []Point{
		{X: 1, Y: 0.001, Low: 0.0005, High: 0.002},
		{X: 10, Y: 0.01, Low: nan, High: nan},
		{X: 1000, Y: 0.2, Low: 0.1, High: 0.3},
	}}}
	p, err := LinePlot(LineOptions{LogX: true, LogY: true, XLabel: "x", YLabel: "y"}, s)
	if err != nil {
		t.Fatal(err)
	}
	svg := svgOf(t, p, LineWidth, LineHeight)
	// over more than two decades only the powers of ten are labelled
	requireTexts(t, svg, "1", "10", "100", "1000", "0.001", "0.01", "0.1")
	forbidTexts(t, svg, "2", "20", "50", "0.2", "0.005")

	// over at most two decades, 2, 3 and 5 times them too: a TTL sweep's
	// last value, 30 s, gets its label
	s = []Series{{Name: "a", Points: []Point{{X: 1, Y: 1, Low: nan, High: nan}, {X: 60, Y: 2, Low: nan, High: nan}}}}
	if p, err = LinePlot(LineOptions{LogX: true}, s); err != nil {
		t.Fatal(err)
	}
	requireTexts(t, svgOf(t, p, LineWidth, LineHeight), "1", "2", "3", "5", "10", "20", "30", "50")
}

func TestLineErrors(t *testing.T) {
	nan := math.NaN()
	pt := func(x, y float64) Point { return Point{X: x, Y: y, Low: nan, High: nan} }
	one := func(pts ...Point) []Series { return []Series{{Name: "s", Points: pts}} }
	tests := []struct {
		name string
		o    LineOptions
		s    []Series
		want string
	}{
		{"no series", LineOptions{}, nil, "no series to plot"},
		{"empty series", LineOptions{}, []Series{{Name: "s"}}, `series "s" has no points`},
		{"same name", LineOptions{}, []Series{{Name: "s", Points: []Point{pt(1, 1)}}, {Name: "s", Points: []Point{pt(1, 1)}}}, `two series are named "s"`},
		{"duplicate x", LineOptions{}, one(pt(1, 1), pt(2, 1), pt(1, 3)), `series "s" has two points at x=1`},
		{"NaN y", LineOptions{}, one(pt(1, nan)), `series "s" point 0 (x=1): x and y must be finite numbers, got x=1 y=NaN`},
		{"infinite x", LineOptions{}, one(pt(math.Inf(1), 1)), `series "s" point 0 (x=+Inf): x and y must be finite numbers, got x=+Inf y=1`},
		{"half an interval", LineOptions{}, one(Point{X: 1, Y: 1, Low: 0.5, High: nan}), `series "s" point 0 (x=1): interval [0.5, NaN] must have two finite bounds or none (NaN, NaN)`},
		{"interval upside down", LineOptions{}, one(Point{X: 1, Y: 1, Low: 2, High: 0.5}), `series "s" point 0 (x=1): interval low 2 exceeds high 0.5`},
		{"log x with zero", LineOptions{LogX: true}, one(pt(0, 1)), `series "s" point 0 (x=0): a log x axis cannot show x=0 (not positive)`},
		{"log y with a negative", LineOptions{LogY: true}, one(pt(1, -1)), `series "s" point 0 (x=1): a log y axis cannot show y=-1 (negative)`},
		{"log y with a negative low", LineOptions{LogY: true}, one(Point{X: 1, Y: 0.1, Low: -0.1, High: 0.2}), `series "s" point 0 (x=1): a log y axis cannot show the interval's low bound -0.1 (negative)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LinePlot(tt.o, tt.s)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// Points are joined in x order whatever their order in the series.
func TestLineSortsPoints(t *testing.T) {
	nan := math.NaN()
	a := []Series{{Name: "s", Points: []Point{{X: 3, Y: 1, Low: nan, High: nan}, {X: 1, Y: 2, Low: nan, High: nan}, {X: 2, Y: 0, Low: nan, High: nan}}}}
	b := []Series{{Name: "s", Points: []Point{{X: 1, Y: 2, Low: nan, High: nan}, {X: 2, Y: 0, Low: nan, High: nan}, {X: 3, Y: 1, Low: nan, High: nan}}}}
	pa, err := LinePlot(LineOptions{}, a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := LinePlot(LineOptions{}, b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(svgOf(t, pa, LineWidth, LineHeight), svgOf(t, pb, LineWidth, LineHeight)) {
		t.Error("the order of a series' points changes the figure")
	}
}

// A zero rate without an upper bound (an interval [0, 0], or none) and
// an interval's low end of zero are drawn at a floor a decade below the
// smallest positive value, and the axis says so.
func TestLineLogYFloor(t *testing.T) {
	s := []Series{{Name: "a", Points: []Point{
		{X: 1, Y: 0, Low: 0, High: 0},
		{X: 2, Y: 0.0025, Low: 0, High: 0.01},
		{X: 3, Y: 0.5, Low: 0.3, High: 0.7},
	}}}
	assert := func(cond bool, format string, a ...any) {
		t.Helper()
		if !cond {
			t.Errorf(format, a...)
		}
	}
	f := logFloor(s)
	assert(f == 0.001, "floor %g, want 0.001 (the power of ten below 0.0025)", f)
	assert(math.IsNaN(logFloor(s[:0])), "no zero, no floor")
	p, err := LinePlot(LineOptions{LogY: true, YLabel: "rate"}, s)
	if err != nil {
		t.Fatal(err)
	}
	assert(p.Plot.Y.Label.Text == "rate (log scale; 0 drawn at 0.001)", "label %q", p.Plot.Y.Label.Text)
	ymin := p.Plot.Y.Min
	assert(ymin <= 0.001 && ymin > 0, "y axis from %g", ymin)
	assert(s[0].Points[0].Y == 0, "the caller's points are left alone")
}

// A zero count with an upper bound (Garwood's 3.7e-9 per acquisition at
// 0 of a billion) is drawn on a log axis as an arrow down from a bar at
// the bound, not as a point at a floor; the axis reaches a decade under
// the bound, down to 1e-9 and below, and the legend explains the arrow.
func TestLineLogYUpperBound(t *testing.T) {
	nan := math.NaN()
	s := []Series{{Name: "a", Points: []Point{
		{X: 1, Y: 0, Low: 0, High: 3.7e-9},
		{X: 2, Y: 2e-8, Low: 5e-9, High: 6e-8},
		{X: 3, Y: 4e-6, Low: nan, High: nan},
	}}, {Name: "b", Points: []Point{{X: 1, Y: 0, Low: 0, High: 2e-7}}}}
	measured, bounds, some := splitBounds(s)
	if !some || len(measured[0].Points) != 2 || len(measured[1].Points) != 0 ||
		len(bounds[0]) != 1 || bounds[0][0].Y != 3.7e-9 || len(bounds[1]) != 1 || bounds[1][0].Y != 2e-7 {
		t.Fatalf("splitBounds: measured %v, bounds %v", measured, bounds)
	}
	p, err := LinePlot(LineOptions{LogY: true, YLabel: "mutex violations per acquisition"}, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Plot.Y.Label.Text; got != "mutex violations per acquisition" {
		t.Errorf("label %q: no floor, since no zero is drawn as a point", got)
	}
	if p.Plot.Y.Min > 3.7e-10 || p.Plot.Y.Max < 4e-6 {
		t.Errorf("y axis [%g, %g], want it to hold 3.7e-10 (a decade under the lowest bound) to 4e-6", p.Plot.Y.Min, p.Plot.Y.Max)
	}
	svg := svgOf(t, p, LineWidth, LineHeight)
	requireTexts(t, svg, UpperBoundNote, "1e-09", "1e-06")
	// Each arrow head is a path filled in its series' colour, beside the
	// series' glyphs (a, with two points, and b, with none, drawn only
	// in the legend).
	heads := func(k int) int {
		return bytes.Count(svg, []byte("style=\"fill:"+colorHex(seriesColors[k])+"\""))
	}
	withoutBounds, err := LinePlot(LineOptions{LogY: true}, measured[:1])
	if err != nil {
		t.Fatal(err)
	}
	plain := bytes.Count(svgOf(t, withoutBounds, LineWidth, LineHeight), []byte("style=\"fill:"+colorHex(seriesColors[0])+"\""))
	if heads(0) != plain+1 {
		t.Errorf("series a: %d fills, want %d (its glyphs) + 1 arrow head", heads(0), plain)
	}
	if heads(1) < 1 {
		t.Errorf("series b: no arrow head")
	}
}

// The x axis is padded so that the markers at the ends are whole and the
// last value gets its tick.
func TestLinePadsX(t *testing.T) {
	nan := math.NaN()
	s := []Series{{Name: "a", Points: []Point{{X: 1, Y: 1, Low: nan, High: nan}, {X: 30, Y: 2, Low: nan, High: nan}}}}
	p, err := LinePlot(LineOptions{}, s)
	if err != nil {
		t.Fatal(err)
	}
	if p.Plot.X.Min >= 1 || p.Plot.X.Max <= 30 {
		t.Errorf("x axis [%g, %g] does not pad [1, 30]", p.Plot.X.Min, p.Plot.X.Max)
	}
	svg := svgOf(t, p, LineWidth, LineHeight)
	requireTexts(t, svg, "30")
}

// Series differ in dash pattern as well as colour.
func TestLineDashesDiffer(t *testing.T) {
	p, err := LinePlot(LineOptions{}, threeSeries())
	if err != nil {
		t.Fatal(err)
	}
	svg := svgOf(t, p, LineWidth, LineHeight)
	if n := bytes.Count(svg, []byte("stroke-dasharray")); n < 2*2 { // two dashed series: line and legend thumbnail
		t.Errorf("%d dashed strokes, want at least 4", n)
	}
}

// TestLogTicksBounded: the log ticker ends, with a bounded number of
// ticks, on any range, and gives none on one a log axis cannot show.
func TestLogTicksBounded(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		none     bool
	}{
		{1e-300, 1e16, false}, {math.SmallestNonzeroFloat64, math.MaxFloat64, false},
		{1, 1e16, false}, {0.001, 1, false},
		{0, 1e16, true}, {-1, 5, true}, {math.NaN(), 1, true}, {1, math.Inf(1), true}, {5, 1, true},
	} {
		ticks := logTicks().Ticks(c.min, c.max)
		if c.none {
			require.Empty(t, ticks, "[%g, %g]", c.min, c.max)
			continue
		}
		require.NotEmpty(t, ticks, "[%g, %g]", c.min, c.max)
		require.LessOrEqual(t, len(ticks), 9*(maxLogDecades+2), "[%g, %g]", c.min, c.max)
		labels := 0
		for _, tk := range ticks {
			require.True(t, tk.Value >= c.min*(1-1e-9) && tk.Value <= c.max*(1+1e-9), "tick %g outside [%g, %g]", tk.Value, c.min, c.max)
			if tk.Label != "" {
				labels++
			}
		}
		require.GreaterOrEqual(t, labels, 2, "[%g, %g] has its decades labelled", c.min, c.max)
	}
	// Within 12 decades every power of ten is labelled, as before.
	var labels []string
	for _, tk := range logTicks().Ticks(0.001, 10) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"0.001", "0.01", "0.1", "1", "10"}, labels)
}

// BenchmarkLegendLayout: laying out a legend of n entries measures each
// once (it was measured once per row count tried: quadratic).
func BenchmarkLegendLayout(b *testing.B) {
	l := newLegendStrip(LineWidth - vg.Inch)
	for i := range 1000 {
		l.add(fmt.Sprintf("nodes.count = %d", i))
	}
	for b.Loop() {
		l.planned = nil
		l.layout(l.nominal)
	}
}
