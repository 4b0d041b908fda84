package plots

import (
	"errors"
	"fmt"
	"math"
)

// OnsetPoint is one point of an onset curve: at X, the measured bracket
// (Safe, the last value probed that was safe on every seed, and
// Violating, the first that violated on one) and the closed form's onset
// (Analytic) and range (AnalyticLow to AnalyticHigh), each NaN where it
// has none.
type OnsetPoint struct {
	X, Safe, Violating        float64
	Analytic                  float64
	AnalyticLow, AnalyticHigh float64
}

// OnsetOptions are an onset figure's texts and x scale. Caption is
// printed under the figure (see Figure): what the bars are and how many
// seeds each probe ran; Measured and Analytic name the two curves in the
// legend.
type OnsetOptions struct {
	Title, XLabel, YLabel string
	Caption               string
	Measured, Analytic    string
	LogX                  bool
}

// OnsetPlot draws an onset curve: the measured onset as a line through
// each bracket's middle with the bracket as an interval bar, and the
// closed form beside it as a second line (its own colour, dash and
// glyph, dodged as LinePlot dodges series) through its onset where it
// names one, else through the middle of its range, drawn as a bar. The
// caption, if any, is printed under the figure.
//
// It returns an error where there is no point, a value is not finite
// (the analytic one may be NaN), or two points share an X, as LinePlot
// does.
func OnsetPlot(o OnsetOptions, pts []OnsetPoint) (*Figure, error) {
	if len(pts) == 0 {
		return nil, errors.New("no onset to plot")
	}
	measured := Series{Name: o.Measured}
	analytic := Series{Name: o.Analytic}
	for _, p := range pts {
		if !finite(p.Safe) || !finite(p.Violating) {
			return nil, fmt.Errorf("onset at x = %v: the bracket [%v, %v] is not a pair of numbers", p.X, p.Safe, p.Violating)
		}
		lo, hi := math.Min(p.Safe, p.Violating), math.Max(p.Safe, p.Violating)
		measured.Points = append(measured.Points, Point{X: p.X, Y: (lo + hi) / 2, Low: lo, High: hi})
		switch {
		case !math.IsNaN(p.Analytic):
			analytic.Points = append(analytic.Points, Point{X: p.X, Y: p.Analytic, Low: math.NaN(), High: math.NaN()})
		case !math.IsNaN(p.AnalyticLow) && !math.IsNaN(p.AnalyticHigh):
			lo, hi := math.Min(p.AnalyticLow, p.AnalyticHigh), math.Max(p.AnalyticLow, p.AnalyticHigh)
			analytic.Points = append(analytic.Points, Point{X: p.X, Y: (lo + hi) / 2, Low: lo, High: hi})
		}
	}
	series := []Series{measured}
	if len(analytic.Points) > 0 {
		series = append(series, analytic)
	}
	return LinePlot(LineOptions{Title: o.Title, XLabel: o.XLabel, YLabel: o.YLabel, LogX: o.LogX, Caption: o.Caption}, series)
}
