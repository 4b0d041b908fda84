package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Grid is a two-parameter sweep: Z[yi][xi] was measured at (Xs[xi],
// Ys[yi]). A NaN in Z is a cell without a measurement.
type Grid struct {
	Xs, Ys []float64
	// XNames and YNames, when set (one per value), label an axis whose
	// values stand for categories, like a persistence policy.
	XNames, YNames                []string
	Z                             [][]float64
	XLabel, YLabel, ZLabel, Title string
	// Low and High, when not nil, are an interval around each Z (the
	// same shape, NaN where there is none), written in the cell under the
	// value: `redlocksim plot --annotate ci`.
	Low, High [][]float64
}

// HeatmapWidth and HeatmapHeight are a good size for Heatmap's figure.
const (
	HeatmapWidth  = 7 * vg.Inch
	HeatmapHeight = 5 * vg.Inch
)

// noData is the colour of a cell without a measurement (it is hatched too).
var (
	noData   = color.Gray{Y: 235}
	cellEdge = draw.LineStyle{Color: color.Gray{Y: 200}, Width: 0.6}
)

// Heatmap draws one cell per (x, y) of the grid, coloured by Z on a
// perceptually uniform scale from white through yellow and red to black
// (moreland's black-body scale, reversed), with the value written in the
// cell where it fits (and its interval under it, when the grid has one).
// A numeric axis keeps the true spacing of its values: each cell reaches
// halfway to its neighbours, so that 0, 1, 2, 4, 7, 11 s are not drawn as
// equal steps. A category axis (names given) has equal cells, one per
// name. The axes are labelled with the values or names themselves. A
// colour bar on the right, titled ZLabel, gives the scale; it starts at
// zero when no value is negative. Cells without a measurement are hatched
// grey.
//
// It returns an error if an axis is empty or holds a NaN or infinite
// value, if Z's shape is not len(Ys) rows of len(Xs), if a Z value is
// infinite, or if every Z value is NaN.
func Heatmap(g Grid) (*plot.Plot, error) {
	if len(g.Xs) == 0 || len(g.Ys) == 0 {
		return nil, fmt.Errorf("heatmap needs at least one x and one y value, got %d and %d", len(g.Xs), len(g.Ys))
	}
	for _, ax := range []struct {
		name string
		vs   []float64
	}{{"x", g.Xs}, {"y", g.Ys}} {
		for i, v := range ax.vs {
			if !finite(v) {
				return nil, fmt.Errorf("heatmap %s value %d is %g", ax.name, i, v)
			}
		}
	}
	for _, iv := range []struct {
		name string
		m    [][]float64
	}{{"low", g.Low}, {"high", g.High}} {
		if iv.m == nil {
			continue
		}
		if len(iv.m) != len(g.Ys) || slices.ContainsFunc(iv.m, func(r []float64) bool { return len(r) != len(g.Xs) }) {
			return nil, fmt.Errorf("heatmap interval %s is not %d rows of %d values", iv.name, len(g.Ys), len(g.Xs))
		}
	}
	if (g.Low == nil) != (g.High == nil) {
		return nil, errors.New("heatmap interval needs both low and high")
	}
	if len(g.Z) != len(g.Ys) {
		return nil, fmt.Errorf("heatmap has %d rows of z for %d y values", len(g.Z), len(g.Ys))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for yi, row := range g.Z {
		if len(row) != len(g.Xs) {
			return nil, fmt.Errorf("heatmap z row %d (y=%g) has %d values for %d x values", yi, g.Ys[yi], len(row), len(g.Xs))
		}
		for xi, z := range row {
			if math.IsInf(z, 0) {
				return nil, fmt.Errorf("heatmap z at x=%g y=%g is infinite", g.Xs[xi], g.Ys[yi])
			}
			if !math.IsNaN(z) {
				lo, hi = math.Min(lo, z), math.Max(hi, z)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return nil, errors.New("heatmap has no z value (all are NaN)")
	}
	if lo >= 0 {
		lo = 0
	}
	if lo == hi {
		hi = lo + 1
	}
	cm := palette.Reverse(moreland.BlackBody())
	cm.SetMin(lo)
	cm.SetMax(hi)

	for _, a := range []struct {
		what  string
		names []string
		n     int
	}{{"x", g.XNames, len(g.Xs)}, {"y", g.YNames, len(g.Ys)}} {
		if a.names != nil && len(a.names) != a.n {
			return nil, fmt.Errorf("heatmap has %d %s names for %d %s values", len(a.names), a.what, a.n, a.what)
		}
	}
	xc, xe := cellPositions(g.Xs, g.XNames)
	yc, ye := cellPositions(g.Ys, g.YNames)
	for _, a := range []struct {
		what string
		vs   []float64
	}{{"x", g.Xs}, {"y", g.Ys}} {
		if g.XNames == nil && a.what == "x" || g.YNames == nil && a.what == "y" {
			if !slices.IsSorted(a.vs) || len(slices.Compact(slices.Clone(a.vs))) != len(a.vs) {
				return nil, fmt.Errorf("heatmap %s values must be distinct and increasing", a.what)
			}
		}
	}

	p := newPlot(g.Title)
	p.X.Label.Text = g.XLabel
	p.Y.Label.Text = g.YLabel
	p.X.Min, p.X.Max = xe[0], xe[len(xe)-1]
	p.Y.Min, p.Y.Max = ye[0], ye[len(ye)-1]
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Tick.Marker = valueTicks(xc, g.Xs, g.XNames, 12)
	p.Y.Tick.Marker = valueTicks(yc, g.Ys, g.YNames, 20)
	h := &heat{g: g, cm: cm, xEdges: xe, yEdges: ye, label: textStyle(9, black), bar: colorBar{cm: cm, title: g.ZLabel, missing: hasNaN(g.Z)}}
	h.bar.style = textStyle(10, black)
	h.bar.titleStyle = textStyle(12, black)
	p.Add(h)
	return p, nil
}

// cellPositions returns where an axis puts its cells: the centres and the
// len+1 edges. Categories (names given) and a lone value get unit cells at
// 0, 1, 2, ...; numeric values keep their spacing, each cell reaching
// halfway to its neighbours and the outer cells as far out as in.
func cellPositions(vs []float64, names []string) (centres, edges []float64) {
	n := len(vs)
	edges = make([]float64, n+1)
	if names != nil || n == 1 {
		centres = make([]float64, n)
		for i := range n {
			centres[i] = float64(i)
			edges[i] = float64(i) - 0.5
		}
		edges[n] = float64(n) - 0.5
		if names == nil { // a lone number: a unit cell around it
			centres[0] = vs[0]
			edges[0], edges[1] = vs[0]-0.5, vs[0]+0.5
		}
		return centres, edges
	}
	centres = slices.Clone(vs)
	for i := 1; i < n; i++ {
		edges[i] = (vs[i-1] + vs[i]) / 2
	}
	edges[0] = vs[0] - (edges[1] - vs[0])
	edges[n] = vs[n-1] + (vs[n-1] - edges[n-1])
	return centres, edges
}

// valueTicks puts a tick at each cell centre, labelled with the value (or
// its name), leaving out a label that would come closer than 1/max of the
// axis to the previous one.
func valueTicks(centres, vs []float64, names []string, max int) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(vs))
	span := centres[len(centres)-1] - centres[0]
	last := math.Inf(-1)
	for i, v := range vs {
		ticks[i] = plot.Tick{Value: centres[i]}
		if len(vs) > 1 && centres[i]-last < span/float64(max)*0.999 {
			continue
		}
		last = centres[i]
		if names != nil {
			ticks[i].Label = names[i]
		} else {
			ticks[i].Label = formatNumber(v)
		}
	}
	return ticks
}

// heat draws the cells and the colour bar.
type heat struct {
	g              Grid
	cm             palette.ColorMap
	xEdges, yEdges []float64
	label          text.Style
	bar            colorBar
}

func hasNaN(z [][]float64) bool {
	return slices.ContainsFunc(z, func(row []float64) bool { return slices.ContainsFunc(row, math.IsNaN) })
}

func (h *heat) DataRange() (xmin, xmax, ymin, ymax float64) {
	return h.xEdges[0], h.xEdges[len(h.xEdges)-1], h.yEdges[0], h.yEdges[len(h.yEdges)-1]
}

func (h *heat) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	// a box at the right edge, without height, reserves the bar's width
	return []plot.GlyphBox{{X: 1, Y: 0.5, Rectangle: vg.Rectangle{Max: vg.Point{X: h.bar.width()}}}}
}

func (h *heat) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for yi, row := range h.g.Z {
		for xi, z := range row {
			r := vg.Rectangle{
				Min: vg.Point{X: trX(h.xEdges[xi]), Y: trY(h.yEdges[yi])},
				Max: vg.Point{X: trX(h.xEdges[xi+1]), Y: trY(h.yEdges[yi+1])},
			}
			if math.IsNaN(z) {
				fillRect(&c, noData, r)
				hatch(&c, draw.LineStyle{Color: hatchGrey, Width: 0.5}, r, 5)
				strokeRect(&c, cellEdge, r)
				continue
			}
			col := h.color(z)
			fillRect(&c, col, r)
			strokeRect(&c, cellEdge, r)
			h.writeCell(&c, r, col, z, yi, xi)
		}
	}
	h.bar.draw(c)
}

// writeCell writes z in the middle of cell r, and its interval under it
// when the grid has one and there is room. The value is always written:
// in a smaller size when the cell is narrow (true spacing makes some
// cells narrow), and turned a quarter when even that does not fit.
func (h *heat) writeCell(c *draw.Canvas, r vg.Rectangle, bg color.Color, z float64, yi, xi int) {
	cellW, cellH := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	mid := vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
	sty := h.label
	sty.Color = textOn(bg)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	value := formatCell(z)
	interval := ""
	if h.g.Low != nil && !math.IsNaN(h.g.Low[yi][xi]) {
		interval = "[" + formatCell(h.g.Low[yi][xi]) + ", " + formatCell(h.g.High[yi][xi]) + "]"
	}
	lineH := sty.Font.Size + 2
	fits := func(s text.Style, txt string, lines int) bool {
		return s.Width(txt)+4 <= cellW && vg.Length(lines)*(s.Font.Size+2)+2 <= cellH
	}
	if interval != "" && fits(sty, value, 2) && fits(sty, interval, 2) {
		c.FillText(sty, vg.Point{X: mid.X, Y: mid.Y + lineH/2}, value)
		c.FillText(sty, vg.Point{X: mid.X, Y: mid.Y - lineH/2}, interval)
		return
	}
	for _, size := range []vg.Length{9, 8, 7, 6} {
		s := sty
		s.Font.Size = size
		if fits(s, value, 1) {
			c.FillText(s, mid, value)
			return
		}
	}
	s := sty
	s.Rotation = math.Pi / 2
	c.FillText(s, mid, value) // narrow and tall: read it sideways
}

func (h *heat) color(z float64) color.Color {
	z = math.Max(h.cm.Min(), math.Min(h.cm.Max(), z))
	col, err := h.cm.At(z)
	if err != nil {
		panic(fmt.Sprintf("plots: colour map rejects %g within [%g, %g]: %v", z, h.cm.Min(), h.cm.Max(), err))
	}
	return col
}

// formatCell prints a cell's value with three significant digits.
func formatCell(z float64) string {
	if z == 0 {
		return "0"
	}
	if a := math.Abs(z); a >= 1e-3 && a < 1e5 {
		return strconv.FormatFloat(roundSig(z, 3), 'f', -1, 64)
	}
	return strconv.FormatFloat(z, 'g', 3, 64)
}

// roundSig rounds v, which is not 0, to digits significant digits.
func roundSig(v float64, digits int) float64 {
	scale := math.Pow(10, float64(digits)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*scale) / scale
}

// colorBar is the heatmap's scale, drawn right of the data area.
// When some cells have no measurement, a hatched swatch labelled "no data"
// sits below the bar.
type colorBar struct {
	cm                palette.ColorMap
	title             string
	style, titleStyle text.Style
	missing           bool
}

const (
	barGap   = vg.Length(14)
	barWidth = vg.Length(14)
	barSteps = 64
)

func (b *colorBar) ticks() []plot.Tick {
	return linearTicks(5).Ticks(b.cm.Min(), b.cm.Max())
}

// labelWidth is the width of the widest text right of the bar.
func (b *colorBar) labelWidth() vg.Length {
	var labels vg.Length
	for _, t := range b.ticks() {
		labels = max(labels, b.style.Width(t.Label))
	}
	if b.missing {
		labels = max(labels, b.style.Width("no data"))
	}
	return labels
}

func (b *colorBar) width() vg.Length {
	labels := b.labelWidth()
	w := barGap + barWidth + 6 + labels
	if b.title != "" {
		w += 8 + b.titleStyle.Font.Size
	}
	return w
}

func (b *colorBar) draw(c draw.Canvas) {
	x0 := c.Max.X + barGap
	x1 := x0 + barWidth
	y0, y1 := c.Min.Y, c.Max.Y
	if b.missing {
		sw := vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y0 + barWidth}}
		fillRect(&c, noData, sw)
		hatch(&c, draw.LineStyle{Color: hatchGrey, Width: 0.5}, sw, 4)
		strokeRect(&c, draw.LineStyle{Color: black, Width: 0.5}, sw)
		sty := b.style
		sty.YAlign = draw.YCenter
		c.FillText(sty, vg.Point{X: x1 + 6, Y: y0 + barWidth/2}, "no data")
		y0 += barWidth + 12
	}
	lo, hi := b.cm.Min(), b.cm.Max()
	yOf := func(v float64) vg.Length { return y0 + (y1-y0)*vg.Length((v-lo)/(hi-lo)) }
	for i := range barSteps {
		v0 := lo + (hi-lo)*float64(i)/barSteps
		v1 := lo + (hi-lo)*float64(i+1)/barSteps
		col, err := b.cm.At((v0 + v1) / 2)
		if err != nil {
			panic(fmt.Sprintf("plots: colour map rejects its own range: %v", err))
		}
		// overlap by a hair so that no seam shows between steps
		fillRect(&c, col, vg.Rectangle{Min: vg.Point{X: x0, Y: yOf(v0)}, Max: vg.Point{X: x1, Y: min(yOf(v1)+0.3, y1)}})
	}
	strokeRect(&c, draw.LineStyle{Color: black, Width: 0.5}, vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}})
	sty := b.style
	sty.YAlign = draw.YCenter
	labels := b.labelWidth()
	for _, t := range b.ticks() {
		y := yOf(t.Value)
		if t.IsMinor() {
			c.StrokeLine2(draw.LineStyle{Color: black, Width: 0.5}, x1, y, x1+2, y)
			continue
		}
		c.StrokeLine2(draw.LineStyle{Color: black, Width: 0.5}, x1, y, x1+4, y)
		c.FillText(sty, vg.Point{X: x1 + 6, Y: y}, t.Label)
	}
	if b.title != "" {
		ts := b.titleStyle
		ts.Rotation = math.Pi / 2
		// rotated a quarter turn, the text's bottom faces right
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YBottom
		x := x1 + 6 + labels + 8 + ts.Font.Size - ts.FontExtents().Descent
		c.FillText(ts, vg.Point{X: x, Y: (y0 + y1) / 2}, b.title)
	}
}
