package plots

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Overlay is a set of points measured another way than a line's (real
// runs beside the simulator's), drawn over that line as markers with
// their intervals.
type Overlay struct {
	// Series is the Name of the line the points belong to: they take its
	// colour and its dodge, so each marker sits over the line's own point
	// at the same x.
	Series string
	// Name is the overlay's legend entry; it should say how the points
	// were measured ("drift 2%, real runs").
	Name   string
	Points []Point
}

// Overlay markers: a ring larger than any line's glyph, so that a line's
// point inside its ring reads as agreement and a ring away from it as a
// difference; its bars are drawn thicker than the lines', with wider caps.
const (
	overlayRadius = 5.5
	overlayWidth  = 1.6
	overlayCap    = 10
)

// LineOverlayPlot is LinePlot with overlays: each overlay's points are
// drawn as rings in its line's colour, at its line's dodge, with a
// vertical bar over each interval, and get their own legend entries,
// after the lines'. The y floor of LogY, the x padding and whether the y
// axis starts at zero take the overlays' points into account.
//
// Besides LinePlot's errors, it returns one if an overlay names no line,
// two overlays share a name (or one a line's), an overlay has no points
// or two at the same x, or a point cannot be shown (as for a line).
func LineOverlayPlot(o LineOptions, s []Series, over []Overlay) (*Figure, error) {
	if len(over) == 0 {
		return nil, errors.New("no overlay to draw")
	}
	return linePlot(o, s, over)
}

// checkOverlays returns the first problem with over, or nil.
func checkOverlays(o LineOptions, s []Series, over []Overlay) error {
	names := map[string]bool{}
	for _, se := range s {
		names[se.Name] = true
	}
	seen := map[string]bool{}
	for _, ov := range over {
		if !names[ov.Series] {
			return fmt.Errorf("overlay %q is over the line %q, which is not drawn", ov.Name, ov.Series)
		}
		if seen[ov.Name] || names[ov.Name] {
			return fmt.Errorf("two legend entries are named %q", ov.Name)
		}
		seen[ov.Name] = true
		if err := checkSeries(o, Series{Name: ov.Name, Points: ov.Points}); err != nil {
			return fmt.Errorf("overlay: %w", err)
		}
	}
	return nil
}

// overlaySeries are the overlays' points as series, for the axes' ranges.
func overlaySeries(over []Overlay) []Series {
	out := make([]Series, len(over))
	for i, ov := range over {
		out[i] = Series{Name: ov.Name, Points: ov.Points}
	}
	return out
}

func flooredOverlays(over []Overlay, floor float64) []Overlay {
	fs := floored(overlaySeries(over), floor)
	out := slices.Clone(over)
	for i := range out {
		out[i].Points = fs[i].Points
	}
	return out
}

// addOverlays draws over onto p, each in its line's colour and at its
// dodge, adds their legend entries, and returns the smallest y or interval
// bound drawn (+Inf if none).
func addOverlays(p *plot.Plot, legend *legendStrip, s []Series, over []Overlay) float64 {
	ymin := math.Inf(1)
	for _, ov := range over {
		k := slices.IndexFunc(s, func(se Series) bool { return se.Name == ov.Series })
		col := seriesColors[k%len(seriesColors)]
		xys, bars, errs, low := pointXYs(ov.Points)
		ymin = math.Min(ymin, low)
		shift := dodge(k, len(s))
		rings, _ := plotter.NewScatter(xys) // checked finite above
		rings.GlyphStyle = draw.GlyphStyle{Color: col, Radius: overlayRadius, Shape: thickRing{}}
		if len(bars) > 0 {
			p.Add(shifted{&plotter.YErrorBars{
				XYs: bars, YErrors: errs, CapWidth: overlayCap,
				LineStyle: draw.LineStyle{Color: col, Width: overlayWidth},
			}, shift})
		}
		p.Add(shifted{rings, shift})
		legend.add(ov.Name, rings)
	}
	return ymin
}

// thickRing is a ring drawn with a line thicker than gonum's RingGlyph,
// so that it stays visible over a line's glyph.
type thickRing struct{}

func (thickRing) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: overlayWidth})
	p := make(vg.Path, 0, 3)
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}

// pointXYs are pts as a line's or an overlay's plotters take them: every
// point, the points with an interval and their bars' extents; low is the
// smallest y or interval bound (+Inf if none).
func pointXYs(pts []Point) (xys, bars plotter.XYs, errs plotter.YErrors, low float64) {
	low = math.Inf(1)
	xys = make(plotter.XYs, len(pts))
	for i, pt := range pts {
		xys[i] = plotter.XY{X: pt.X, Y: pt.Y}
		low = math.Min(low, pt.Y)
		if !math.IsNaN(pt.Low) {
			bars = append(bars, xys[i])
			errs = append(errs, struct{ Low, High float64 }{pt.Y - pt.Low, pt.High - pt.Y})
			low = math.Min(low, pt.Low)
		}
	}
	return xys, bars, errs, low
}
