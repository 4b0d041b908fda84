package sweepfig

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// Onset draws the onset curve that boundary --over wrote: the measured
// bracket against the first Over key, and the closed form's onset beside
// it where one applies. Rows whose verdict did not flip are named in the
// caption, not drawn. title, when not "", replaces the default.
func Onset(c *results.Curve, logX bool, title string) (Drawn, error) {
	o, err := readOnset(c)
	if err != nil {
		return Drawn{}, fmt.Errorf("%s: %v", c.Path, err)
	}
	opt := o.options(c, logX)
	if title != "" {
		opt.Title = title
	}
	fig, err := plots.OnsetPlot(opt, o.pts)
	if err != nil {
		return Drawn{}, fmt.Errorf("%s: %v", c.Path, err)
	}
	return Drawn{Fig: fig, Onsets: len(o.pts)}, nil
}

// onset is a curve read for its figure: the points, in seconds or the
// key's units, and what the caption says.
type onset struct {
	pts                            []plots.OnsetPoint
	skipped, seeds, tols, formulas []string
	xDur, yDur                     bool
	analytic                       int // points with a closed form
}

// curveValue reads a cell: a number, or a duration in seconds.
func curveValue(s string) (float64, bool, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return v, false, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, false, fmt.Errorf("%q is neither a number nor a duration", s)
	}
	return d.Seconds(), true, nil
}

func readOnset(c *results.Curve) (*onset, error) {
	o := &onset{}
	xKey := c.Over[0]
	for _, row := range c.Rows {
		x, err := o.cell(row, xKey, row.At[0], &o.xDur)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(o.seeds, row.Seeds) {
			o.seeds = append(o.seeds, row.Seeds)
		}
		if row.Verdict != results.CurveFlips {
			o.skipped = append(o.skipped, fmt.Sprintf("%s at %s", row.Verdict, row.At[0]))
			continue
		}
		if err := o.add(c.Key, row, x); err != nil {
			return nil, err
		}
	}
	if len(o.pts) == 0 {
		return nil, fmt.Errorf("no value of %s has a bracket: %s", xKey, strings.Join(o.skipped, "; "))
	}
	return o, nil
}

// cell reads a cell of row, noting in dur whether it was a duration.
func (o *onset) cell(row results.CurveRow, name, s string, dur *bool) (float64, error) {
	v, isDur, err := curveValue(s)
	if err != nil {
		return 0, fmt.Errorf("line %d: %s: %v", row.Line, name, err)
	}
	*dur = *dur || isDur
	return v, nil
}

// add adds the point of a row whose verdict flips, at x.
func (o *onset) add(key string, row results.CurveRow, x float64) error {
	tol := row.Tol
	if strings.HasSuffix(key, "_ppm") {
		tol += " ppm"
	}
	if !slices.Contains(o.tols, tol) {
		o.tols = append(o.tols, tol)
	}
	p := plots.OnsetPoint{X: x, Analytic: math.NaN(), AnalyticLow: math.NaN(), AnalyticHigh: math.NaN()}
	var err error
	if p.Safe, err = o.cell(row, "safe", row.Safe, &o.yDur); err != nil {
		return err
	}
	if p.Violating, err = o.cell(row, "violating", row.Violating, &o.yDur); err != nil {
		return err
	}
	if f, _, _ := strings.Cut(row.Formula, ":"); f != "" && !slices.Contains(o.formulas, f) {
		o.formulas = append(o.formulas, f)
	}
	for _, a := range []struct {
		name, s string
		v       *float64
	}{{"analytic_onset", row.Onset, &p.Analytic}, {"analytic_low", row.Low, &p.AnalyticLow}, {"analytic_high", row.High, &p.AnalyticHigh}} {
		if a.s == "" {
			continue
		}
		if *a.v, err = o.cell(row, a.name, a.s, &o.yDur); err != nil {
			return err
		}
	}
	o.pts = append(o.pts, p)
	return nil
}

// options are the figure's texts; a clock rate of 1000 ppm or more is
// shown in percent, and the points scaled to it.
func (o *onset) options(c *results.Curve, logX bool) plots.OnsetOptions {
	xKey := c.Over[0]
	xLabel := HumanKey(xKey)
	if o.xDur {
		xLabel += " (s)"
	}
	yLabel := HumanKey(c.Key) + " at the onset"
	switch {
	case o.yDur:
		yLabel += " (s)"
	case strings.HasSuffix(c.Key, "_ppm") && onsetMax(o.pts) >= ppmPercent:
		for i := range o.pts {
			p := &o.pts[i]
			p.Safe, p.Violating, p.Analytic, p.AnalyticLow, p.AnalyticHigh = p.Safe/1e4, p.Violating/1e4, p.Analytic/1e4, p.AnalyticLow/1e4, p.AnalyticHigh/1e4
		}
		yLabel += " (%, positive = fast)"
	case strings.HasSuffix(c.Key, "_ppm"):
		yLabel += " (ppm, positive = fast)"
	}
	caption := fmt.Sprintf("bars: the measured bracket, from the last value safe on all %s seeds per test to the first that violated on one (bisected to %s)",
		strings.Join(o.seeds, " or "), strings.Join(o.tols, " or "))
	if rangeOnly(o.pts) {
		caption += "; the closed form's bars are its predicted range"
	}
	if len(o.skipped) > 0 {
		caption += "; not drawn: " + strings.Join(o.skipped, ", ")
	}
	return plots.OnsetOptions{
		Title:    fmt.Sprintf("Onset of violations: %s against %s", HumanKey(c.Key), HumanKey(xKey)),
		XLabel:   xLabel,
		YLabel:   yLabel,
		Caption:  caption,
		Measured: "measured (bracket)",
		Analytic: strings.TrimSuffix("closed form: "+strings.Join(o.formulas, "; "), ": "),
		LogX:     logX,
	}
}

func onsetMax(pts []plots.OnsetPoint) float64 {
	m := 0.0
	for _, p := range pts {
		m = max(m, math.Abs(p.Safe), math.Abs(p.Violating))
	}
	return m
}

// rangeOnly reports whether some point's closed form is drawn as its
// range, for want of an onset.
func rangeOnly(pts []plots.OnsetPoint) bool {
	for _, p := range pts {
		if math.IsNaN(p.Analytic) && !math.IsNaN(p.AnalyticLow) {
			return true
		}
	}
	return false
}
