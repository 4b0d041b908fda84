package plots

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Point is one measurement of a sweep: Y at X, with the interval
// [Low, High] around Y (a confidence interval); Low and High are both NaN
// when there is none.
type Point struct{ X, Y, Low, High float64 }

// Series is one line of a sweep: the points measured with everything but
// X held fixed. Name is its legend entry.
type Series struct {
	Name   string
	Points []Point
}

// LineOptions are a line plot's texts and axis scales.
type LineOptions struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	// LegendNote, when set, is a line under the legend's entries, the
	// full width: what the legend's values mean ("positive = fast").
	LegendNote string
	// Caption is printed under the figure (see Figure): what the bars
	// are and how many runs stand behind each point.
	Caption string
}

// xPad is the share of the x range added on each side, so that the first
// and last markers, their interval caps and the dodge (below) stay inside
// the axes and the last value gets its tick.
const xPad = 0.05

// LineWidth and LineHeight are the size LinePlot lays its legend out for.
const (
	LineWidth  = 7 * vg.Inch
	LineHeight = 4.5 * vg.Inch
)

// LinePlot draws each series as a line through its points, sorted by X,
// with a glyph at every point and a vertical bar over its interval, in one
// colour, one dash pattern and one glyph shape per series, so that series
// stay apart for colour-blind readers and in greyscale print. The legend
// sits in a strip above the data, with LegendNote under its entries; the
// Caption is printed under the figure. Without LogY the y axis starts at zero
// when no value is negative. The x axis is padded by 5% of its range on
// each side.
//
// Dodge: when there are several series, series k of n is drawn shifted
// right by (k − (n−1)/2) × 3 points (at most 12 points between the first
// and the last), so that the interval bars of series measured at the same
// x do not hide each other. The shift is in points on the page, not in
// data units: the x value of a marker is the centre of its group.
//
// With LogY, a y value or interval bound of zero is drawn at a floor, the
// power of ten below the smallest positive value shown, and the y label
// says so ("0 drawn at 0.001", inside the label's parenthesis when it
// ends in one): a rate of zero is a result, not a gap.
//
// It returns an error if there is no series, a series has no points or
// shares its name with another, two points of a series have the same X, a
// value is NaN or infinite (an interval bound may be NaN only together
// with the other), an interval's Low exceeds its High, a log x axis would
// have to show a value that is not positive, or a log y axis a negative
// one.
func LinePlot(o LineOptions, s []Series) (*Figure, error) { return linePlot(o, s, nil) }

// linePlot is LinePlot with overlays (see LineOverlayPlot); their points
// share the y floor, the x padding and the y axis's zero with the lines.
func linePlot(o LineOptions, s []Series, over []Overlay) (*Figure, error) {
	if err := checkLines(o, s, over); err != nil {
		return nil, err
	}
	// On a log axis a zero count with an upper bound is drawn as an
	// upper-bound marker (upperBounds), not at a floor: drawn holds the
	// points drawn as points, all of them on a linear axis.
	all, drawn := s, s
	var bounds []plotter.XYs
	haveBounds := false
	if o.LogY {
		drawn, bounds, haveBounds = splitBounds(s)
	}
	floor := math.NaN()
	if o.LogY {
		floor = logFloor(append(slices.Clip(drawn), overlaySeries(over)...))
		if !math.IsNaN(floor) {
			drawn = floored(drawn, floor)
			all = floored(all, floor)
			over = flooredOverlays(over, floor)
		}
	}
	p := lineAxes(o, floor)
	legend := newLegendStrip(LineWidth - vg.Inch)
	if o.LegendNote != "" {
		legend.notes = []string{o.LegendNote}
	}
	if haveBounds {
		legend.notes = append(legend.notes, UpperBoundNote)
	}
	ymin := math.Inf(1)
	for k, se := range drawn {
		var kb plotter.XYs
		if bounds != nil {
			kb = bounds[k]
		}
		low, err := addSeries(p, legend, se, k, len(s), kb)
		if err != nil {
			return nil, err
		}
		ymin = math.Min(ymin, low)
	}
	ymin = math.Min(ymin, addOverlays(p, legend, s, over))
	if !o.LogY && ymin >= 0 {
		p.Y.Min = 0
	}
	padX(p, append(slices.Clip(all), overlaySeries(over)...), o.LogX)
	if o.LogY {
		setLogY(p, append(slices.Clip(all), overlaySeries(over)...))
		if lo := boundsFloor(s); lo < p.Y.Min {
			p.Y.Min = lo // room for the arrows under the bounds
		}
	}
	p.Add(legend)
	return &Figure{Plot: p, Caption: o.Caption}, nil
}

// checkLines refuses what a line figure cannot draw honestly: no series,
// two of one name, a series or an overlay checkSeries or checkOverlays
// refuses.
func checkLines(o LineOptions, s []Series, over []Overlay) error {
	if len(s) == 0 {
		return errors.New("no series to plot")
	}
	seen := make(map[string]bool, len(s))
	for _, se := range s {
		if seen[se.Name] {
			return fmt.Errorf("two series are named %q", se.Name)
		}
		seen[se.Name] = true
		if err := checkSeries(o, se); err != nil {
			return err
		}
	}
	return checkOverlays(o, s, over)
}

// lineAxes is a line figure's plot: its title, axes (log or linear, the
// y label saying where a log axis draws zero, at floor unless NaN), ticks
// and grid.
func lineAxes(o LineOptions, floor float64) *plot.Plot {
	p := newPlot(o.Title)
	p.X.Label.Text = o.XLabel
	p.Y.Label.Text = o.YLabel
	if !math.IsNaN(floor) {
		note := fmt.Sprintf("log scale; 0 drawn at %s", formatNumber(floor))
		if base, ok := strings.CutSuffix(p.Y.Label.Text, ")"); ok && strings.Contains(base, "(") {
			p.Y.Label.Text = base + "; " + note + ")" // one parenthesis: "(fraction of runs; log scale; ...)"
		} else {
			p.Y.Label.Text += " (" + note + ")"
		}
	}
	p.X.Tick.Marker = linearTicks(8)
	p.Y.Tick.Marker = linearTicks(6)
	if o.LogX {
		p.X.Scale, p.X.Tick.Marker = logScale{}, logTicks()
	}
	if o.LogY {
		p.Y.Scale, p.Y.Tick.Marker = logScale{}, logTicks()
	}
	grid := plotter.NewGrid()
	grid.Vertical = draw.LineStyle{Color: gridGrey, Width: 0.5}
	grid.Horizontal = grid.Vertical
	p.Add(grid)
	return p
}

// addSeries draws series se, the k-th of n, with its colour, dash, glyph
// and interval bars, shifted a little off its x (dodge), its upper-bound
// arrows (bounds, on a log axis) and its legend entry; it returns the
// lowest y it drew.
func addSeries(p *plot.Plot, legend *legendStrip, se Series, k, n int, bounds plotter.XYs) (float64, error) {
	pts := slices.Clone(se.Points)
	slices.SortStableFunc(pts, func(a, b Point) int { return cmp.Compare(a.X, b.X) })
	col := seriesColors[k%len(seriesColors)]
	xys, bars, errs, low := pointXYs(pts)
	shift := dodge(k, n)
	if len(bounds) > 0 {
		p.Add(shifted{upperBounds{xys: bounds, color: draw.LineStyle{Color: col, Width: 1.2}}, shift})
		if len(xys) == 0 { // the legend's thumbnails still need a line
			xys = bounds
		}
	}
	line, err := plotter.NewLine(xys)
	if err != nil {
		return 0, fmt.Errorf("series %q: %w", se.Name, err)
	}
	line.LineStyle = draw.LineStyle{Color: col, Width: 1.6, Dashes: seriesDashes[k%len(seriesDashes)]}
	dots, err := plotter.NewScatter(xys)
	if err != nil {
		return 0, fmt.Errorf("series %q: %w", se.Name, err)
	}
	dots.GlyphStyle = draw.GlyphStyle{Color: col, Radius: 3.2, Shape: seriesGlyphs[k%len(seriesGlyphs)]}
	// Series side by side at the same x would hide each other's
	// intervals: each is drawn shifted a little, centred on the x.
	if len(bars) > 0 {
		eb := &plotter.YErrorBars{
			XYs:       bars,
			YErrors:   errs,
			LineStyle: draw.LineStyle{Color: col, Width: 1},
			CapWidth:  6,
		}
		p.Add(shifted{eb, shift})
	}
	if len(pts) > 0 {
		p.Add(shifted{line, shift}, shifted{dots, shift})
	}
	legend.add(se.Name, line, dots)
	return low, nil
}

// padX widens the x axis by xPad of its range on each side (of its
// decades, on a log axis); a single x value gets a range around it.
func padX(p *plot.Plot, s []Series, logX bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, se := range s {
		for _, pt := range se.Points {
			lo, hi = math.Min(lo, pt.X), math.Max(hi, pt.X)
		}
	}
	if logX {
		a, b := math.Log10(lo), math.Log10(hi)
		pad := math.Max((b-a)*xPad, 0.1)
		p.X.Min, p.X.Max = math.Pow(10, a-pad), math.Pow(10, b+pad)
		return
	}
	pad := (hi - lo) * xPad
	if pad == 0 {
		pad = math.Max(math.Abs(lo)*0.1, 0.5)
	}
	p.X.Min, p.X.Max = lo-pad, hi+pad
}

// logFloor returns where a log y axis draws zero: the power of ten below
// the smallest positive value or bound, or NaN when no value is zero.
func logFloor(s []Series) float64 {
	minPos, zero := math.Inf(1), false
	for _, se := range s {
		for _, pt := range se.Points {
			for _, v := range []float64{pt.Y, pt.Low} {
				switch {
				case v == 0:
					zero = true
				case v > 0:
					minPos = math.Min(minPos, v)
				}
			}
		}
	}
	if !zero {
		return math.NaN()
	}
	if math.IsInf(minPos, 1) {
		return 1e-3 // nothing but zeros: any decade shows them
	}
	f := math.Pow(10, math.Ceil(math.Log10(minPos))-1)
	if f >= minPos {
		f /= 10
	}
	return f
}

// floored returns s with every zero value and bound replaced by floor.
func floored(s []Series, floor float64) []Series {
	out := make([]Series, len(s))
	for i, se := range s {
		out[i] = Series{Name: se.Name, Points: slices.Clone(se.Points)}
		for j := range out[i].Points {
			pt := &out[i].Points[j]
			pt.Y = cmp.Or(pt.Y, floor)
			pt.Low = cmp.Or(pt.Low, floor)
			pt.High = cmp.Or(pt.High, floor)
		}
	}
	return out
}

// dodge is how far series k of n is drawn right of its x: 3 points
// between neighbours, 12 in all at most (see LinePlot).
func dodge(k, n int) vg.Length {
	if n < 2 {
		return 0
	}
	step := min(vg.Length(3), 12/vg.Length(n-1))
	return (vg.Length(k) - vg.Length(n-1)/2) * step
}

// shifted draws a plotter moved dx to the right. It keeps the plotter's
// data range, and its glyph boxes, which a few points do not change.
type shifted struct {
	plot.Plotter
	dx vg.Length
}

func (s shifted) Plot(c draw.Canvas, p *plot.Plot) {
	if s.dx == 0 {
		s.Plotter.Plot(c, p)
		return
	}
	c.Push()
	c.Translate(vg.Point{X: s.dx})
	s.Plotter.Plot(c, p)
	c.Pop()
}

func (s shifted) DataRange() (xmin, xmax, ymin, ymax float64) {
	return s.Plotter.(plot.DataRanger).DataRange()
}

func (s shifted) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	return s.Plotter.(plot.GlyphBoxer).GlyphBoxes(p)
}

// checkSeries returns the first problem with se's points, or nil.
func checkSeries(o LineOptions, se Series) error {
	if len(se.Points) == 0 {
		return fmt.Errorf("series %q has no points", se.Name)
	}
	xs := make(map[float64]bool, len(se.Points))
	for i, pt := range se.Points {
		where := func() string { return fmt.Sprintf("series %q point %d (x=%g)", se.Name, i, pt.X) }
		if !finite(pt.X) || !finite(pt.Y) {
			return fmt.Errorf("%s: x and y must be finite numbers, got x=%g y=%g", where(), pt.X, pt.Y)
		}
		if xs[pt.X] {
			return fmt.Errorf("series %q has two points at x=%g", se.Name, pt.X)
		}
		xs[pt.X] = true
		lowNaN, highNaN := math.IsNaN(pt.Low), math.IsNaN(pt.High)
		if lowNaN != highNaN || !lowNaN && (math.IsInf(pt.Low, 0) || math.IsInf(pt.High, 0)) {
			return fmt.Errorf("%s: interval [%g, %g] must have two finite bounds or none (NaN, NaN)", where(), pt.Low, pt.High)
		}
		if !lowNaN && pt.Low > pt.High {
			return fmt.Errorf("%s: interval low %g exceeds high %g", where(), pt.Low, pt.High)
		}
		if o.LogX && pt.X <= 0 {
			return fmt.Errorf("%s: a log x axis cannot show x=%g (not positive)", where(), pt.X)
		}
		if o.LogY && pt.Y < 0 {
			return fmt.Errorf("%s: a log y axis cannot show y=%g (negative)", where(), pt.Y)
		}
		if o.LogY && !lowNaN && pt.Low < 0 {
			return fmt.Errorf("%s: a log y axis cannot show the interval's low bound %g (negative)", where(), pt.Low)
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// setLogY sets a log y axis to the range of the values and interval bounds
// of s (see logRange), after the zeros are floored.
func setLogY(p *plot.Plot, s []Series) {
	var vs []float64
	for _, se := range s {
		for _, pt := range se.Points {
			vs = append(vs, pt.Y, pt.Low, pt.High)
		}
	}
	if lo, hi, ok := logRange(vs...); ok {
		p.Y.Min, p.Y.Max = lo, hi
	}
}
