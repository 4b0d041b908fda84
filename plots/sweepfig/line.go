package sweepfig

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// Spec is what a figure draws from a table: the keys and columns of its
// axes, the series key, and how to draw them. Labels rename keys and
// columns; Where is the --where selection the table was narrowed by.
type Spec struct {
	X, Y, Z, Series string
	Title           string
	LogX, LogY      bool
	Cells           plots.CellSpacing // a heatmap's
	AnnotateCI      bool              // a heatmap's: each cell's interval under its value
	Labels          Labels
	Where           []results.Condition
}

// Drawn is a figure and what it drew, for the command to report: its
// lines, real points, cells or onsets, and the rows it left out (without a y
// value; real rows without a line).
type Drawn struct {
	Fig               *plots.Figure
	Lines, RealPoints int
	Columns, Rows     int // a heatmap's cells, Columns × Rows
	Skipped, Unlined  int
	Heatmap           bool
	Onsets            int // an onset curve's points
}

// The most a figure draws, checked before anything is drawn: more lines
// than a legend can tell apart, more points or cells than a page shows,
// are refused with a --where that keeps fewer.
const (
	MaxSeries = 100
	MaxPoints = 20000
	MaxCells  = 10000
)

// CheckSize refuses a table with more rows than a figure draws, naming a
// --where that keeps fewer.
func CheckSize(t *results.Table, s Spec) error {
	if len(t.Rows) <= MaxPoints {
		return nil
	}
	key := cmp.Or(s.Series, s.X)
	return fmt.Errorf("%s: %d rows to draw; a figure draws at most %d points: keep some with --where, such as %s",
		t.Path, len(t.Rows), MaxPoints, results.WhereHint(key, t.Distinct(key)))
}

// Lines draws one line per value of s.Series (or a single line) of s.Y
// against s.X, with the y column's interval as bars.
func Lines(t *results.Table, s Spec) (Drawn, error) {
	lt, err := readLines(t, s)
	if err != nil {
		return Drawn{}, err
	}
	fig, err := plots.LinePlot(lt.options(), lt.series)
	if err != nil {
		return Drawn{}, err
	}
	return Drawn{Fig: fig, Lines: len(lt.series), Skipped: lt.skipped}, nil
}

// lineTable is a table read for a line figure: the columns as numbers,
// their scales, the rows grouped into series, and the series drawn.
type lineTable struct {
	t                   *results.Table
	s                   Spec
	xs, ys, lows, highs []float64
	xScale, yScale      scale
	lowName             string
	hasCI               bool
	series              []plots.Series
	drawn               []int // the rows drawn
	skipped             int   // rows without a y value
	legend              func(value string) string
	seriesScale         scale
}

// readLines reads the columns a line figure needs and builds its series.
func readLines(t *results.Table, s Spec) (*lineTable, error) {
	lt := &lineTable{t: t, s: s}
	xs, xKind, err := t.Numeric(s.X, "--x", false)
	if err != nil {
		return nil, err
	}
	ys, yKind, err := readMeasure(t, s.Y, "--y")
	if err != nil {
		return nil, err
	}
	lt.xs, lt.ys = xs, ys
	if lt.lows, lt.highs, err = readInterval(t, s.Y); err != nil {
		return nil, err
	}
	lt.lowName, _ = results.IntervalColumns(s.Y)
	lt.hasCI = t.Has(lt.lowName)
	lt.xScale = s.Labels.scaleOf(s.X, xKind, xs, impliedKey(t, s.X))
	lt.yScale = s.Labels.scaleOf(s.Y, yKind, ys, impliedKey(t, s.Y))
	keys, group, err := lt.groups()
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if err := lt.addSeries(lt.legend(k), group[k]); err != nil {
			return nil, err
		}
	}
	if len(lt.series) == 0 {
		return nil, fmt.Errorf("%s: column %q is empty in every row", t.Path, s.Y)
	}
	return lt, nil
}

// readInterval reads the interval columns of y, NaN where there are none.
func readInterval(t *results.Table, y string) (lows, highs []float64, err error) {
	lowName, highName := results.IntervalColumns(y)
	hasLow, hasHigh := t.Has(lowName), t.Has(highName)
	if hasLow != hasHigh {
		return nil, nil, fmt.Errorf("%s has %q without %q: an interval needs both", t.Path, pick(hasLow, lowName, highName), pick(hasLow, highName, lowName))
	}
	if !hasLow {
		return nans(len(t.Rows)), nans(len(t.Rows)), nil
	}
	return readBounds(t, y, "the interval of --y")
}

// groups groups the rows into series by the raw value of --series (an
// empty value is the base scenario's own), in the order the legend lists
// them, and sets how the legend names each.
func (lt *lineTable) groups() (keys []string, group map[string][]int, err error) {
	t, s, l := lt.t, lt.s, lt.s.Labels
	group = make(map[string][]int)
	if s.Series == "" {
		lt.legend = func(string) string { return l.name(s.Y) }
		group[""] = t.AllRows()
		return []string{""}, group, nil
	}
	si, err := t.Column(s.Series, "--series")
	if err != nil {
		return nil, nil, err
	}
	vals, kind := t.Values(si, true)
	lt.seriesScale = l.scaleOf(s.Series, kind, vals, impliedKey(t, s.Series))
	lt.legend = seriesLegend(s, kind, lt.seriesScale)
	sortVal := make(map[string]float64)
	for r, row := range t.Rows {
		k := strings.TrimSpace(row[si])
		if _, ok := group[k]; !ok {
			keys = append(keys, k)
			if vals != nil {
				sortVal[k] = vals[r]
			}
		}
		group[k] = append(group[k], r)
	}
	if len(keys) > MaxSeries {
		return nil, nil, fmt.Errorf("%s: --series %s has %d values, a line each; a figure draws at most %d lines: keep some with --where, such as %s",
			t.Path, s.Series, len(keys), MaxSeries, results.WhereHint(s.Series, keys))
	}
	// Numbers and durations in order; words (a persistence policy) in the
	// order the sweep wrote them, which is its spec's, as a heatmap's
	// categories are.
	if kind != results.Words {
		slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(sortVal[a], sortVal[b]) }) // NaN (an empty cell) first
	}
	return keys, group, nil
}

// seriesLegend names a series by its value of s.Series; an empty value is
// the base scenario's own.
func seriesLegend(s Spec, kind results.ValueKind, sc scale) func(string) string {
	return func(value string) string {
		if value == "" {
			return s.Labels.name(s.Series) + " as in the base scenario"
		}
		return s.Labels.legend(s.Series, value, kind, sc)
	}
}

// addSeries adds the line of rows, named name: its points in the scales
// of the axes, rows without a y value counted in skipped.
func (lt *lineTable) addSeries(name string, rows []int) error {
	ser := plots.Series{Name: name}
	seen := make(map[float64]int)
	for _, r := range rows {
		if math.IsNaN(lt.ys[r]) {
			lt.skipped++
			continue
		}
		if prev, dup := seen[lt.xs[r]]; dup {
			return lt.duplicateError(name, prev, r)
		}
		seen[lt.xs[r]] = r
		if err := lt.checkLog(r); err != nil {
			return err
		}
		fx, fy := lt.xScale.factor, lt.yScale.factor
		ser.Points = append(ser.Points, plots.Point{X: lt.xs[r] * fx, Y: lt.ys[r] * fy, Low: lt.lows[r] * fy, High: lt.highs[r] * fy})
		lt.drawn = append(lt.drawn, r)
	}
	if len(ser.Points) > 0 {
		lt.series = append(lt.series, ser)
	}
	return nil
}

// options are the figure's texts: axes, title, legend note and caption.
func (lt *lineTable) options() plots.LineOptions {
	s, l := lt.s, lt.s.Labels
	opts := plots.LineOptions{
		Title:   s.Title,
		XLabel:  l.axis(s.X, lt.xScale),
		YLabel:  l.axis(s.Y, lt.yScale),
		LogX:    s.LogX,
		LogY:    s.LogY,
		Caption: withSelection(caption(lt.t, s.Y, lt.hasCI, lt.drawn, "point"), lt.t, s, lt.drawn),
	}
	if lt.seriesScale.note != "" {
		opts.LegendNote = l.name(s.Series) + " in " + lt.seriesScale.unit + ": " + lt.seriesScale.note
	}
	if opts.Title == "" {
		opts.Title = l.name(s.Y) + " by " + l.name(s.X)
		if s.Series != "" {
			opts.Title += ", one line per " + l.name(s.Series)
		}
	}
	return opts
}

// checkLog reports a value of row r that a log axis cannot show, naming
// its line.
func (lt *lineTable) checkLog(r int) error {
	t, s := lt.t, lt.s
	bad := func(flag, col, what string) error {
		return fmt.Errorf("%s:%d: %s cannot show %s=%s (%s); drop %s or leave such rows out",
			t.Path, t.Lines[r], flag, col, t.Cell(r, col), what, flag)
	}
	// --logy draws a zero at a floor (see plots.LinePlot); a negative
	// value has no place on it.
	switch {
	case s.LogX && lt.xs[r] <= 0:
		return bad("--logx", s.X, "not positive")
	case s.LogY && lt.ys[r] < 0:
		return bad("--logy", s.Y, "negative")
	case s.LogY && lt.lows[r] < 0: // false for NaN, no interval
		return bad("--logy", lt.lowName, "negative")
	}
	return nil
}

// duplicateError explains two rows of one series at the same x, naming the
// other keys that tell them apart.
func (lt *lineTable) duplicateError(series string, a, b int) error {
	t, s := lt.t, lt.s
	differ := t.DifferingKeys(a, b, s.X, s.Series)
	msg := fmt.Sprintf("%s: lines %d and %d are both at %s=%s in series %q",
		t.Path, t.Lines[a], t.Lines[b], s.X, t.Cell(a, s.X), series)
	if len(differ) > 0 {
		msg += fmt.Sprintf("; they differ in %s: pick one with --series or keep one with --where", strings.Join(differ, ", "))
	} else {
		msg += "; give --series to draw one line per value of another key"
	}
	return errors.New(msg)
}

func nans(n int) []float64 {
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = math.NaN()
	}
	return vs
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
