package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

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
	// Cells says how a numeric axis places its cells (a category axis
	// has one equal cell per name whatever it says).
	Cells CellSpacing
	// Caption is printed under the figure (see Figure); Heatmap adds a
	// sentence when an axis is not to scale.
	Caption string
	// ZFraction says Z is a fraction (of runs): the colour scale then runs
	// from 0 to 1 whatever the values, so that heatmaps of rates share
	// their colours.
	ZFraction bool
}

// CellSpacing is how a heatmap's numeric axis places its cells.
type CellSpacing uint8

const (
	// CellsAuto is CellsEven when an axis's values are unevenly spaced
	// (0, 1000, 5000, 20000), and true spacing otherwise (where the two
	// are the same thing).
	CellsAuto CellSpacing = 1 + iota
	// CellsEven gives one equal cell per value, in order: the axis is
	// not to scale, and the caption says so.
	CellsEven
	// CellsTrue keeps the values' spacing: each cell reaches halfway to
	// its neighbours, so some cells may be narrow.
	CellsTrue
)

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
// cell (and its interval under it, when the grid has one). Cells are
// placed as Cells says; a category axis (names given) has equal cells,
// one per name. The axes are labelled with the values or names
// themselves, every one of them. A colour bar on the right, titled
// ZLabel, gives the scale; it starts at zero when no value is negative
// (and runs from 0 to 1 for a ZFraction).
// Cells without a measurement are hatched grey.
//
// Nothing is dropped: a cell's text is written smaller (down to 7 points)
// where the cell is small, and where even that does not fit, the cell (or
// the tick) gets a number, "[1]", and a note under the figure gives what
// it stands for. The notes are planned for the size the figure is drawn
// at (see Figure).
//
// It returns an error if an axis is empty or holds a NaN or infinite
// value, if a numeric axis is not increasing, if Z's shape is not
// len(Ys) rows of len(Xs), if a Z value is infinite, if every Z value is
// NaN, or if Cells is not set.
func Heatmap(g Grid) (*Figure, error) {
	f, _, err := heatmap(g)
	return f, err
}

// heatmap is Heatmap, and also returns the plotter that draws the cells
// (for tests of their layout).
func heatmap(g Grid) (*Figure, *heat, error) {
	lo, hi, err := checkGrid(g)
	if err != nil {
		return nil, nil, err
	}
	cm := colourMap(g.ZFraction, lo, hi)
	xEven := g.XNames == nil && evenCells(g.Cells, g.Xs)
	yEven := g.YNames == nil && evenCells(g.Cells, g.Ys)
	xc, xe := cellPositions(g.Xs, g.XNames, xEven)
	yc, ye := cellPositions(g.Ys, g.YNames, yEven)

	p := newPlot(g.Title)
	p.X.Label.Text = g.XLabel
	p.Y.Label.Text = g.YLabel
	p.X.Min, p.X.Max = xe[0], xe[len(xe)-1]
	p.Y.Min, p.Y.Max = ye[0], ye[len(ye)-1]
	p.X.Padding, p.Y.Padding = 0, 0
	h := &heat{g: g, cm: cm, xEdges: xe, yEdges: ye, label: textStyle(9, black), bar: colorBar{cm: cm, title: g.ZLabel, missing: hasNaN(g.Z)}}
	h.x = heatAxis{centres: xc, labels: axisLabels(g.Xs, g.XNames), name: g.XLabel}
	h.y = heatAxis{centres: yc, labels: axisLabels(g.Ys, g.YNames), name: g.YLabel}
	h.bar.style = textStyle(10, black)
	h.bar.titleStyle = textStyle(12, black)
	h.setTicks(p)
	p.Add(h)
	return &Figure{Plot: p, Caption: notToScale(g, xEven, yEven), plan: h.plan}, h, nil
}

// checkGrid refuses a grid that cannot be drawn honestly (see Heatmap),
// and returns the range of its z values.
func checkGrid(g Grid) (lo, hi float64, err error) {
	if len(g.Xs) == 0 || len(g.Ys) == 0 {
		return 0, 0, fmt.Errorf("heatmap needs at least one x and one y value, got %d and %d", len(g.Xs), len(g.Ys))
	}
	for _, ax := range []struct {
		name string
		vs   []float64
	}{{"x", g.Xs}, {"y", g.Ys}} {
		for i, v := range ax.vs {
			if !finite(v) {
				return 0, 0, fmt.Errorf("heatmap %s value %d is %g", ax.name, i, v)
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
			return 0, 0, fmt.Errorf("heatmap interval %s is not %d rows of %d values", iv.name, len(g.Ys), len(g.Xs))
		}
	}
	if (g.Low == nil) != (g.High == nil) {
		return 0, 0, errors.New("heatmap interval needs both low and high")
	}
	if len(g.Z) != len(g.Ys) {
		return 0, 0, fmt.Errorf("heatmap has %d rows of z for %d y values", len(g.Z), len(g.Ys))
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for yi, row := range g.Z {
		if len(row) != len(g.Xs) {
			return 0, 0, fmt.Errorf("heatmap z row %d (y=%g) has %d values for %d x values", yi, g.Ys[yi], len(row), len(g.Xs))
		}
		for xi, z := range row {
			if math.IsInf(z, 0) {
				return 0, 0, fmt.Errorf("heatmap z at x=%g y=%g is infinite", g.Xs[xi], g.Ys[yi])
			}
			if !math.IsNaN(z) {
				lo, hi = math.Min(lo, z), math.Max(hi, z)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 0, errors.New("heatmap has no z value (all are NaN)")
	}
	if g.Cells < CellsAuto || g.Cells > CellsTrue {
		return 0, 0, errors.New("heatmap cell spacing is not set: give CellsAuto, CellsEven or CellsTrue")
	}
	if g.ZFraction && (lo < 0 || hi > 1) {
		return 0, 0, fmt.Errorf("heatmap z is a fraction, but its values run from %g to %g", lo, hi)
	}
	for _, a := range []struct {
		what  string
		names []string
		n     int
	}{{"x", g.XNames, len(g.Xs)}, {"y", g.YNames, len(g.Ys)}} {
		if a.names != nil && len(a.names) != a.n {
			return 0, 0, fmt.Errorf("heatmap has %d %s names for %d %s values", len(a.names), a.what, a.n, a.what)
		}
	}
	for _, a := range []struct {
		what string
		vs   []float64
	}{{"x", g.Xs}, {"y", g.Ys}} {
		if g.XNames == nil && a.what == "x" || g.YNames == nil && a.what == "y" {
			if !slices.IsSorted(a.vs) || len(slices.Compact(slices.Clone(a.vs))) != len(a.vs) {
				return 0, 0, fmt.Errorf("heatmap %s values must be distinct and increasing", a.what)
			}
		}
	}
	return lo, hi, nil
}

// colourMap is the colour scale of z values from lo to hi: from 0 up
// when none is negative, 0 to 1 for a fraction, whatever the values, so
// that heatmaps of rates share their colours.
func colourMap(fraction bool, lo, hi float64) palette.ColorMap {
	if fraction {
		lo, hi = 0, 1
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
	return cm
}

// notToScale is the grid's caption, with a sentence naming the axes whose
// equal cells are not to scale.
func notToScale(g Grid, xEven, yEven bool) string {
	caption := g.Caption
	var notScale []string
	for _, a := range []struct {
		even bool
		vs   []float64
		name string
	}{{xEven, g.Xs, g.XLabel}, {yEven, g.Ys, g.YLabel}} {
		if a.even && !evenlySpaced(a.vs) {
			notScale = append(notScale, pick(a.name != "", a.name, "an axis"))
		}
	}
	if len(notScale) > 0 {
		caption = strings.TrimSpace(caption + " Not to scale: one equal cell per value of " + strings.Join(notScale, " and of ") + ".")
	}
	return caption
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// evenCells says whether a numeric axis with values vs gets equal cells.
func evenCells(c CellSpacing, vs []float64) bool {
	switch c {
	case CellsEven:
		return true
	case CellsTrue:
		return false
	}
	return !evenlySpaced(vs)
}

// evenlySpaced reports whether the steps between successive values are
// all the same (to a part in a million of the range).
func evenlySpaced(vs []float64) bool {
	if len(vs) < 3 {
		return true
	}
	step := vs[1] - vs[0]
	tol := (vs[len(vs)-1] - vs[0]) * 1e-6
	for i := 2; i < len(vs); i++ {
		if math.Abs(vs[i]-vs[i-1]-step) > tol {
			return false
		}
	}
	return true
}

// cellPositions returns where an axis puts its cells: the centres and the
// len+1 edges. Categories (names given), even cells and a lone value get
// unit cells at 0, 1, 2, ... (a lone number: a unit cell around it);
// otherwise numeric values keep their spacing, each cell reaching halfway
// to its neighbours and the outer cells as far out as in.
func cellPositions(vs []float64, names []string, even bool) (centres, edges []float64) {
	n := len(vs)
	edges = make([]float64, n+1)
	if names != nil || even || n == 1 {
		centres = make([]float64, n)
		for i := range n {
			centres[i] = float64(i)
			edges[i] = float64(i) - 0.5
		}
		edges[n] = float64(n) - 0.5
		if names == nil && n == 1 {
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

// axisLabels are an axis's tick labels: its names, or its values.
func axisLabels(vs []float64, names []string) []string {
	if names != nil {
		return slices.Clone(names)
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = formatNumber(v)
	}
	return out
}

// heatAxis is one axis of a heatmap: a tick at each cell's centre, with
// its label, or a note's number where the label does not fit its cell.
type heatAxis struct {
	centres []float64
	labels  []string
	name    string
	keys    []int // the note number standing for a label, 0 = the label
}

func (a *heatAxis) ticks() plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(a.centres))
	for i, c := range a.centres {
		ticks[i] = plot.Tick{Value: c, Label: a.labels[i]}
		if a.keys != nil && a.keys[i] > 0 {
			ticks[i].Label = noteKey(a.keys[i])
		}
	}
	return ticks
}

func noteKey(n int) string { return "[" + strconv.Itoa(n) + "]" }

// heat draws the cells and the colour bar.
type heat struct {
	g              Grid
	cm             palette.ColorMap
	xEdges, yEdges []float64
	x, y           heatAxis
	label          text.Style
	bar            colorBar
	// layout is what each cell shows, planned for the data area it was
	// planned for (see plan); Plot plans again for any other area.
	layout *cellLayout
}

// cellLayout is the text of every cell for one data area.
type cellLayout struct {
	area  vg.Rectangle
	cells [][]cellText // [yi][xi]
	notes []string     // the cells' notes, numbered on from the ticks'
}

// cellText is what one cell shows: lines of text in one size, centred;
// noted when a note gives what the cell could not hold.
type cellText struct {
	lines []string
	size  vg.Length
	noted bool
}

func hasNaN(z [][]float64) bool {
	return slices.ContainsFunc(z, func(row []float64) bool { return slices.ContainsFunc(row, math.IsNaN) })
}

func (h *heat) setTicks(p *plot.Plot) {
	p.X.Tick.Marker = h.x.ticks()
	p.Y.Tick.Marker = h.y.ticks()
}

// plan lays the heatmap out for canvas c (the figure's, above its
// caption): a tick label wider (x) or taller (y) than its cell becomes a
// note's number, which frees room for the data; then each cell's text is
// planned for the data area that leaves. It returns the notes, in order:
// the ticks', then the cells', top row first, left to right.
func (h *heat) plan(p *plot.Plot, c draw.Canvas) []string {
	h.x.keys, h.y.keys = nil, nil
	h.setTicks(p)
	dc := p.DataCanvas(c)
	trX, trY := p.Transforms(&dc)
	var notes []string
	xSty, ySty := p.X.Tick.Label, p.Y.Tick.Label
	xKeys := make([]int, len(h.x.labels))
	for i, l := range h.x.labels {
		// a label is centred on its tick, which true spacing may put
		// near an edge of its cell
		c := trX(h.x.centres[i])
		if room := min(c-trX(h.xEdges[i]), trX(h.xEdges[i+1])-c); xSty.Width(l)/2+1 > room {
			notes = append(notes, noteKey(len(notes)+1)+" "+h.x.name+": "+l)
			xKeys[i] = len(notes)
		}
	}
	yKeys := make([]int, len(h.y.labels))
	for i, l := range h.y.labels {
		c := trY(h.y.centres[i])
		if room := min(c-trY(h.yEdges[i]), trY(h.yEdges[i+1])-c); ySty.Height(l)/2 > room {
			notes = append(notes, noteKey(len(notes)+1)+" "+h.y.name+": "+l)
			yKeys[i] = len(notes)
		}
	}
	if len(notes) > 0 {
		h.x.keys, h.y.keys = xKeys, yKeys
		h.setTicks(p)
		dc = p.DataCanvas(c)
	}
	h.layout = h.layoutCells(p, dc, len(notes))
	return append(notes, h.layout.notes...)
}

// layoutCells plans every cell's text for data area dc, numbering notes
// from after the first used ones. All cells whose text fits are written
// in one size, the largest in which all of them fit, so that no cell
// looks more important than another for being wider.
func (h *heat) layoutCells(p *plot.Plot, dc draw.Canvas, used int) *cellLayout {
	trX, trY := p.Transforms(&dc)
	plan := func(sizes []vg.Length) *cellLayout {
		l := &cellLayout{area: dc.Rectangle, cells: make([][]cellText, len(h.g.Z))}
		for yi := range h.g.Z {
			l.cells[yi] = make([]cellText, len(h.g.Xs))
		}
		for yi := len(h.g.Z) - 1; yi >= 0; yi-- { // top row first: reading order
			for xi, z := range h.g.Z[yi] {
				if math.IsNaN(z) {
					continue
				}
				w := trX(h.xEdges[xi+1]) - trX(h.xEdges[xi])
				ht := trY(h.yEdges[yi+1]) - trY(h.yEdges[yi])
				ct, full := h.cellText(sizes, w, ht, z, yi, xi, used+len(l.notes)+1)
				if full != "" {
					l.notes = append(l.notes, noteKey(used+len(l.notes)+1)+" "+full)
				}
				l.cells[yi][xi] = ct
			}
		}
		return l
	}
	l := plan(cellSizes)
	size := cellSizes[0]
	for yi, row := range l.cells {
		for xi, ct := range row {
			if ct.lines != nil && !ct.noted {
				size = min(size, l.cells[yi][xi].size)
			}
		}
	}
	i := slices.Index(cellSizes, size)
	return plan(cellSizes[i:]) // a text that fits in one size fits in a smaller one
}

// Cell texts are written in the largest of these sizes that fits.
var cellSizes = []vg.Length{9, 8, 7}

// cellText is what a w × ht cell shows for z: its value, and under it
// its interval when the grid has one, in the largest size that fits.
// Where the interval does not fit, the value is followed by note key's
// number; where the value does not fit either, the number alone stands
// in the cell. full is then the note's text (the cell's value and
// interval), else "".
func (h *heat) cellText(sizes []vg.Length, w, ht vg.Length, z float64, yi, xi, key int) (ct cellText, full string) {
	value := formatCell(z)
	interval := ""
	if h.g.Low != nil && !math.IsNaN(h.g.Low[yi][xi]) {
		interval = "[" + formatCell(h.g.Low[yi][xi]) + ", " + formatCell(h.g.High[yi][xi]) + "]"
	}
	fits := func(size vg.Length, lines ...string) bool {
		s := h.label
		s.Font.Size = size
		if vg.Length(len(lines))*(size+2)+2 > ht {
			return false
		}
		for _, t := range lines {
			if s.Width(t)+4 > w {
				return false
			}
		}
		return true
	}
	want := []string{value}
	if interval != "" {
		want = append(want, interval)
	}
	for _, size := range sizes {
		if fits(size, want...) {
			return cellText{lines: want, size: size}, ""
		}
	}
	full = strings.Join(want, " ")
	k := noteKey(key)
	if interval != "" {
		for _, size := range sizes {
			for _, lines := range [][]string{{value, k}, {value + " " + k}} {
				if fits(size, lines...) {
					return cellText{lines: lines, size: size, noted: true}, full
				}
			}
		}
	}
	for _, size := range sizes {
		if fits(size, k) {
			return cellText{lines: []string{k}, size: size, noted: true}, full
		}
	}
	// not even the number fits: it is written anyway, the smallest, and
	// may cross the cell's edge (the note still says what it stands for)
	return cellText{lines: []string{k}, size: sizes[len(sizes)-1], noted: true}, full
}

func (h *heat) DataRange() (xmin, xmax, ymin, ymax float64) {
	return h.xEdges[0], h.xEdges[len(h.xEdges)-1], h.yEdges[0], h.yEdges[len(h.yEdges)-1]
}

func (h *heat) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	// a box at the right edge, without height, reserves the bar's width
	return []plot.GlyphBox{{X: 1, Y: 0.5, Rectangle: vg.Rectangle{Max: vg.Point{X: h.bar.width()}}}}
}

func (h *heat) Plot(c draw.Canvas, p *plot.Plot) {
	if h.layout == nil || h.layout.area != c.Rectangle {
		// drawn without its Figure, or at another size: the cells are
		// planned for this area (the notes then go unprinted, which only
		// a caller bypassing Figure can do)
		used := 0
		for _, k := range slices.Concat(h.x.keys, h.y.keys) {
			used = max(used, k)
		}
		h.layout = h.layoutCells(p, c, used)
	}
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
			h.writeCell(&c, r, col, h.layout.cells[yi][xi])
		}
	}
	h.bar.draw(c)
}

// writeCell writes a cell's planned lines, centred in r.
func (h *heat) writeCell(c *draw.Canvas, r vg.Rectangle, bg color.Color, ct cellText) {
	sty := h.label
	sty.Font.Size = ct.size
	sty.Color = textOn(bg)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	lineH := ct.size + 2
	mid := vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
	top := mid.Y + lineH*vg.Length(len(ct.lines)-1)/2
	for i, l := range ct.lines {
		c.FillText(sty, vg.Point{X: mid.X, Y: top - lineH*vg.Length(i)}, l)
	}
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
