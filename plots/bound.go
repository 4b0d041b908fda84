package plots

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// IsUpperBound says that pt is a count of zero with a one-sided interval:
// nothing was seen (Y = 0), and High is the 95% upper bound on the rate
// (Wilson's over runs, Garwood's over acquisitions or hours). On a log
// axis such a point has no place at 0; it is drawn as an upper-bound
// marker at High (see LinePlot).
func IsUpperBound(pt Point) bool { return pt.Y == 0 && pt.High > 0 }

// UpperBoundNote is the legend's line that explains the markers.
const UpperBoundNote = "arrow down from a bar: none seen; the bar is the 95% upper bound"

// splitBounds separates, for a log y axis, the measured points of each
// series from its upper bounds (IsUpperBound); some says whether there is
// an upper bound at all.
func splitBounds(s []Series) (measured []Series, bounds []plotter.XYs, some bool) {
	measured = make([]Series, len(s))
	bounds = make([]plotter.XYs, len(s))
	for i, se := range s {
		measured[i].Name = se.Name
		for _, pt := range se.Points {
			if IsUpperBound(pt) {
				bounds[i] = append(bounds[i], plotter.XY{X: pt.X, Y: pt.High})
				some = true
				continue
			}
			measured[i].Points = append(measured[i].Points, pt)
		}
	}
	return measured, bounds, some
}

// boundsFloor is where a log y axis must reach for the arrows to fit
// under the bounds of s: a decade below the lowest bound (+Inf if none).
func boundsFloor(s []Series) float64 {
	lo := math.Inf(1)
	for _, se := range s {
		for _, pt := range se.Points {
			if IsUpperBound(pt) {
				lo = math.Min(lo, pt.High/10)
			}
		}
	}
	return lo
}

// The size of an upper-bound marker, on the page.
const (
	boundCap   = 4 * vg.Millimeter / 2 // half the bar's width
	boundArrow = 5 * vg.Millimeter     // the arrow's length below the bar
	boundHead  = 1.2 * vg.Millimeter   // the arrow head's half width
)

// upperBounds draws each of its points as a short horizontal bar at the
// bound with an arrow pointing down from it, in the series' colour: "the
// rate is below this", never a point at a made-up zero.
type upperBounds struct {
	xys   plotter.XYs
	color draw.LineStyle
}

func (u upperBounds) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, xy := range u.xys {
		x, y := trX(xy.X), trY(xy.Y)
		c.StrokeLine2(u.color, x-boundCap, y, x+boundCap, y)
		tip := y - boundArrow
		c.StrokeLine2(u.color, x, y, x, tip+boundHead)
		var head vg.Path
		head.Move(vg.Point{X: x - boundHead, Y: tip + 1.6*boundHead})
		head.Line(vg.Point{X: x, Y: tip})
		head.Line(vg.Point{X: x + boundHead, Y: tip + 1.6*boundHead})
		head.Close()
		c.SetColor(u.color.Color)
		c.Fill(head)
	}
}

func (u upperBounds) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(u.xys) }

func (u upperBounds) GlyphBoxes(*plot.Plot) []plot.GlyphBox { return nil }
