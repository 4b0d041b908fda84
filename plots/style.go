package plots

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// sans is the typeface of every figure: Liberation Sans reads better than
// the library's default serif when projected.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// seriesColors is the Okabe–Ito colour-blind-safe palette without its
// vermilion, which is kept for violations and rejections.
var seriesColors = []color.Color{
	rgb(0x0072B2), // blue
	rgb(0xE69F00), // orange
	rgb(0x009E73), // bluish green
	rgb(0xCC79A7), // reddish purple
	rgb(0x56B4E9), // sky blue
	rgb(0x8C6D31), // brown
	rgb(0xF0E442), // yellow
	rgb(0x555555), // grey
}

// seriesDashes give each series its own line pattern, so that lines stay
// apart where colours do not (greyscale print, colour blindness): solid
// first, then dashes of clearly different rhythm.
var seriesDashes = [][]vg.Length{
	nil,
	{vg.Points(7), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(9), vg.Points(3), vg.Points(2), vg.Points(3)},
	{vg.Points(4), vg.Points(4)},
	{vg.Points(12), vg.Points(4)},
	{vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2), vg.Points(2), vg.Points(2)},
	{vg.Points(1), vg.Points(3)},
}

// seriesGlyphs tell series apart in grey-scale print as well.
var seriesGlyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{},
}

var (
	violationRed = rgb(0xD7191C)
	black        = color.Gray{Y: 0}
	white        = color.Gray{Y: 255}
)

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

func withAlpha(c color.Color, a uint8) color.NRGBA {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = a
	return n
}

// luminance is the relative luminance of c in [0, 1] (sRGB weights on
// the gamma-encoded channels, which is enough to pick a text colour).
func luminance(c color.Color) float64 {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return (0.2126*float64(n.R) + 0.7152*float64(n.G) + 0.0722*float64(n.B)) / 255
}

// textOn returns black or white, whichever reads better on background bg.
func textOn(bg color.Color) color.Color {
	if luminance(bg) > 0.5 {
		return black
	}
	return white
}

// textStyle is a plain-text style in the figures' typeface.
func textStyle(size vg.Length, c color.Color) text.Style {
	return text.Style{
		Color:   c,
		Font:    font.From(sans, size),
		XAlign:  draw.XLeft,
		YAlign:  draw.YBottom,
		Handler: plot.DefaultTextHandler,
	}
}

// newPlot returns a plot whose every text is in the figures' typeface.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 14)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 12)
		a.Tick.Label.Font = font.From(sans, 10)
		a.Label.Padding = vg.Points(4)
	}
	p.Legend.TextStyle.Font = font.From(sans, 10)
	return p
}

// formatNumber prints an axis value compactly: 0.001, 2.5, 1e+06.
func formatNumber(v float64) string {
	if v == 0 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'g', 4, 64)
	if f := strconv.FormatFloat(v, 'f', -1, 64); len(f) <= len(s) && len(f) <= 8 {
		return f
	}
	return s
}

// niceStep returns the smallest step of the form {1, 2, 5}·10^k that cuts
// span into at most max intervals.
func niceStep(span float64, max int) float64 {
	if span <= 0 || math.IsInf(span, 0) || math.IsNaN(span) {
		return 1
	}
	raw := span / float64(max)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// linearTicks labels multiples of a nice step with at most max intervals
// between min and max, with unlabelled minor ticks between them.
func linearTicks(maxMajor int) plot.Ticker {
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		step := niceStep(max-min, maxMajor)
		prec := max0(int(-math.Floor(math.Log10(step) + 1e-9)))
		minor := step / 5
		if m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9)); m > 1.5 && m < 2.5 {
			minor = step / 4
		}
		var ticks []plot.Tick
		first := math.Ceil(min/minor - 1e-9)
		for i := first; i*minor <= max+minor*1e-9; i++ {
			v := i * minor
			ratio := v / step
			if math.Abs(ratio-math.Round(ratio)) < 1e-6 {
				v = math.Round(ratio) * step
				v += 0 // -0 → 0
				ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
			} else {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
		return ticks
	})
}

// logTicks labels 1, 2, 3 and 5 times the powers of ten over a range of at
// most two decades, and only the powers of ten over a wider one; the other
// integer multiples are minor ticks. Over more than maxLogDecades decades
// it labels every k-th power of ten and draws no minor ticks, so that a
// range from 1e-300 to 1e16 gives a few dozen ticks, not thousands. A
// range that is not positive and finite (which a log axis cannot show;
// logRange keeps the plots' axes clear of it) gets no ticks, never an
// endless loop.
func logTicks() plot.Ticker {
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		lo := math.Floor(math.Log10(min))
		hi := math.Ceil(math.Log10(max))
		if !(min > 0) || !finite(lo) || !finite(hi) || hi < lo {
			return nil
		}
		step := math.Max(1, math.Round(niceStep(hi-lo, maxLogDecades)))
		if step > 1 {
			lo = math.Floor(lo/step) * step
		}
		dense := math.Log10(max/min) <= 2+1e-9
		var ticks []plot.Tick
		for e := lo; e <= hi; e += step {
			base := math.Pow(10, e)
			for m := 1; m <= 9; m++ {
				if step > 1 && m > 1 {
					break
				}
				v := float64(m) * base
				if v < min*(1-1e-9) || v > max*(1+1e-9) {
					continue
				}
				t := plot.Tick{Value: v}
				if m == 1 || dense && (m == 2 || m == 3 || m == 5) {
					t.Label = formatNumber(v)
				}
				ticks = append(ticks, t)
			}
		}
		return ticks
	})
}

// logScale is plot.LogScale that draws a value that is not positive at the
// axis's minimum instead of panicking. Only an interval bar's end can be
// one: gonum keeps a bar as Y and Y − Low, and Y − (Y − Low) is 0 when Low
// is a zero drawn at the floor (the axis's minimum: exactly where it
// belongs) or more than 10¹⁶ times smaller than Y (then the bar reaches
// the axis's bottom).
type logScale struct{}

func (logScale) Normalize(min, max, x float64) float64 {
	if !(x > 0) {
		x = min
	}
	return plot.LogScale{}.Normalize(min, max, x)
}

// maxLogDecades is the most decades a log axis ticks one by one.
const maxLogDecades = 12

// logRange is the range a log axis shows for values vs: from the smallest
// positive one to the largest, a decade either side of a single value.
// Zeros and negative values are left out (a log y axis draws a zero at
// its floor, see LinePlot), as are NaN and infinities. ok is false when
// no value is positive.
//
// The range is set on the axis rather than taken from the plotters:
// an interval bar's extent is kept as Y − (Y − Low), which is 0, not
// Low, when Low is 10¹⁶ times smaller than Y, and a log axis from 0 has
// no first decade.
func logRange(vs ...float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if v > 0 && finite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 0, false
	}
	if lo == hi {
		if lo/10 > 0 { // not below the smallest float
			lo /= 10
		}
		if finite(hi * 10) {
			hi *= 10
		}
	}
	return lo, hi, true
}

func max0(v int) int {
	if v < 0 {
		return 0
	}
	return v
}

// legendEntry is one line of a legend: the thumbnails drawn on top of each
// other, then the text.
type legendEntry struct {
	text   string
	thumbs []plot.Thumbnailer
}

// legendStrip is a legend laid out in columns in a strip above the data
// area, so that it never hides data. It reserves its height through a
// glyph box at the top of the data area; its column count is fixed from
// the width the figure is designed for (nominal), so that the reserved
// height does not depend on the canvas.
type legendStrip struct {
	entries []legendEntry
	style   text.Style
	thumbW  vg.Length
	nominal vg.Length // width of the data area the layout is planned for
	below   vg.Length // room left free between the strip and the data area
	notes   []string  // lines of text below the entries, each the full width
	// planned caches layout(nominal), which every glyph-box pass and the
	// drawing ask for: measuring each entry once keeps a legend of n
	// entries linear in n, not quadratic.
	planned *legendPlan
}

// legendPlan is a layout: its rows and its columns' widths.
type legendPlan struct {
	rows int
	colW []vg.Length
}

func newLegendStrip(nominal vg.Length) *legendStrip {
	return &legendStrip{style: textStyle(10, black), thumbW: vg.Points(22), nominal: nominal}
}

func (l *legendStrip) add(text string, thumbs ...plot.Thumbnailer) {
	l.entries = append(l.entries, legendEntry{text: text, thumbs: thumbs})
	l.planned = nil
}

const (
	legendRowH = vg.Length(14)
	legendGap  = vg.Length(8) // between the strip and the data area
)

func (l *legendStrip) entryWidth(e legendEntry) vg.Length {
	return l.thumbW + vg.Points(4) + l.style.Width(e.text) + vg.Points(16)
}

// layout returns the number of rows and the width of each column of the
// most compact arrangement (fewest rows) that fits in width w. Entries
// fill the columns top to bottom, left to right, so that related entries
// stay together. Each entry is measured once.
func (l *legendStrip) layout(w vg.Length) (rows int, colW []vg.Length) {
	if l.planned != nil && w == l.nominal {
		return l.planned.rows, l.planned.colW
	}
	widths := make([]vg.Length, len(l.entries))
	for i, e := range l.entries {
		widths[i] = l.entryWidth(e)
	}
	n := len(l.entries)
	rows, colW = n, columnWidths(widths, n)
	for r := 1; r < n; r++ {
		cw := columnWidths(widths, r)
		var sum vg.Length
		for _, c := range cw {
			sum += c
		}
		if sum <= w {
			rows, colW = r, cw
			break
		}
	}
	if w == l.nominal {
		l.planned = &legendPlan{rows, colW}
	}
	return rows, colW
}

// columnWidths are the widths of the columns of entries of the given
// widths laid out in columns of rows entries.
func columnWidths(widths []vg.Length, rows int) []vg.Length {
	var colW []vg.Length
	for i, w := range widths {
		if i%rows == 0 {
			colW = append(colW, 0)
		}
		colW[len(colW)-1] = max(colW[len(colW)-1], w)
	}
	return colW
}

func (l *legendStrip) height() vg.Length {
	if len(l.entries) == 0 && len(l.notes) == 0 {
		return 0
	}
	rows := 0
	if len(l.entries) > 0 {
		rows, _ = l.layout(l.nominal)
	}
	return vg.Length(rows+len(l.notes))*legendRowH + legendGap + l.below
}

// GlyphBoxes reserves the strip above the data area. The box has no width,
// so that it plays no part in horizontal padding.
func (l *legendStrip) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	if l.height() == 0 {
		return nil
	}
	return []plot.GlyphBox{{X: 0, Y: 1, Rectangle: vg.Rectangle{Max: vg.Point{Y: l.height()}}}}
}

// Plot draws the strip above c, the data area, with the layout planned
// for the nominal width; the columns share out any width to spare.
func (l *legendStrip) Plot(c draw.Canvas, _ *plot.Plot) {
	if l.height() == 0 {
		return
	}
	top := c.Max.Y + l.height()
	rows, colW := 0, []vg.Length(nil)
	if len(l.entries) > 0 {
		rows, colW = l.layout(l.nominal)
	}
	for k, note := range l.notes {
		sty := l.style
		sty.YAlign = draw.YCenter
		c.FillText(sty, vg.Point{X: c.Min.X, Y: top - vg.Length(rows+k)*legendRowH - legendRowH/2}, note)
	}
	if len(l.entries) == 0 {
		return
	}
	var used vg.Length
	for _, w := range colW {
		used += w
	}
	spare := max(0, (c.Max.X-c.Min.X-used)/vg.Length(len(colW)))
	x := c.Min.X
	for i, e := range l.entries {
		col, row := i/rows, i%rows
		if row == 0 && col > 0 {
			x += colW[col-1] + spare
		}
		y := top - vg.Length(row+1)*legendRowH
		icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: y + 2},
			Max: vg.Point{X: x + l.thumbW, Y: y + legendRowH - 2},
		}}
		for _, t := range e.thumbs {
			t.Thumbnail(&icon)
		}
		sty := l.style
		sty.YAlign = draw.YCenter
		c.FillText(sty, vg.Point{X: x + l.thumbW + vg.Points(4), Y: y + legendRowH/2}, e.text)
	}
}

// thumbFunc adapts a function to plot.Thumbnailer.
type thumbFunc func(c *draw.Canvas)

func (f thumbFunc) Thumbnail(c *draw.Canvas) { f(c) }

// fillRect fills r with col.
func fillRect(c *draw.Canvas, col color.Color, r vg.Rectangle) {
	c.FillPolygon(col, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// strokeRect outlines r.
func strokeRect(c *draw.Canvas, sty draw.LineStyle, r vg.Rectangle) {
	c.StrokeLines(sty, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})
}

// hatch draws diagonal lines across r, spaced gap apart, clipped to r.
func hatch(c *draw.Canvas, sty draw.LineStyle, r vg.Rectangle, gap vg.Length) {
	clip := draw.Canvas{Canvas: c.Canvas, Rectangle: r}
	h := r.Max.Y - r.Min.Y
	// lines x - y = const, starting left of r so the corner is covered;
	// anchored at x = 0 so that adjacent rectangles' hatches line up
	start := vg.Length(math.Floor(float64((r.Min.X-h)/gap))) * gap
	for x := start; x <= r.Max.X; x += gap {
		seg := []vg.Point{{X: x, Y: r.Min.Y}, {X: x + h, Y: r.Max.Y}}
		c.StrokeLines(sty, clip.ClipLinesXY(seg)...)
	}
}
