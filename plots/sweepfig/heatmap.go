package sweepfig

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// Heatmap draws a grid of s.Z over s.X and s.Y, a cell per pair of values.
func Heatmap(t *results.Table, s Spec) (Drawn, error) {
	g, err := heatmapGrid(t, s)
	if err != nil {
		return Drawn{}, err
	}
	fig, err := plots.Heatmap(g)
	if err != nil {
		return Drawn{}, err
	}
	return Drawn{Fig: fig, Heatmap: true, Columns: len(g.Xs), Rows: len(g.Ys)}, nil
}

// heatAxis is one axis of a heatmap read from its column: the values,
// scaled, and its label.
type heatAxis struct {
	vs    []float64
	names []string
	scale scale
}

func readHeatAxis(t *results.Table, s Spec, key, role string) (heatAxis, error) {
	vs, kind, names, err := t.Categories(key, role)
	if err != nil {
		return heatAxis{}, err
	}
	a := heatAxis{vs: vs, names: names, scale: s.Labels.scaleOf(key, kind, vs, impliedKey(t, key))}
	scaleAll(a.vs, a.scale.factor)
	return a, nil
}

func heatmapGrid(t *results.Table, s Spec) (plots.Grid, error) {
	var g plots.Grid
	x, err := readHeatAxis(t, s, s.X, "--x")
	if err != nil {
		return g, err
	}
	y, err := readHeatAxis(t, s, s.Y, "--y")
	if err != nil {
		return g, err
	}
	zs, zKind, err := readMeasure(t, s.Z, "--z")
	if err != nil {
		return g, err
	}
	zScale := s.Labels.scaleOf(s.Z, zKind, zs, impliedKey(t, s.Z))
	scaleAll(zs, zScale.factor)
	g.XNames, g.YNames = x.names, y.names
	g.Xs, g.Ys = distinctSorted(x.vs), distinctSorted(y.vs)
	if cells := len(g.Xs) * len(g.Ys); cells > MaxCells {
		return g, fmt.Errorf("%s: %s and %s make %d × %d = %d cells; a heatmap draws at most %d: keep some with --where, such as %s",
			t.Path, s.X, s.Y, len(g.Xs), len(g.Ys), cells, MaxCells, results.WhereHint(s.X, t.Distinct(s.X)))
	}
	var lows, highs []float64
	if s.AnnotateCI {
		if lows, highs, err = readCellIntervals(t, s.Z, zScale); err != nil {
			return g, err
		}
		g.Low, g.High = nanGrid(len(g.Ys), len(g.Xs)), nanGrid(len(g.Ys), len(g.Xs))
	}
	g.Z = nanGrid(len(g.Ys), len(g.Xs))
	drawn, err := fillCells(t, s, &g, x.vs, y.vs, zs, lows, highs)
	if err != nil {
		return g, err
	}
	l := s.Labels
	g.XLabel, g.YLabel, g.ZLabel = l.axis(s.X, x.scale), l.axis(s.Y, y.scale), l.axis(s.Z, zScale)
	g.Cells = s.Cells
	g.ZFraction = zScale.unit == results.FractionOfRuns
	g.Caption = withSelection(caption(t, s.Z, s.AnnotateCI, drawn, "cell"), t, s, drawn)
	g.Title = s.Title
	if g.Title == "" {
		g.Title = l.name(s.Z) + " by " + l.name(s.X) + " and " + l.name(s.Y)
	}
	return g, nil
}

// readCellIntervals reads the interval columns of z, scaled as z is.
func readCellIntervals(t *results.Table, z string, zScale scale) (lows, highs []float64, err error) {
	if lows, highs, err = readBounds(t, z, "the interval of --z"); err != nil {
		return nil, nil, err
	}
	scaleAll(lows, zScale.factor)
	scaleAll(highs, zScale.factor)
	return lows, highs, nil
}

// fillCells puts each row's z (and interval) in its cell of g, refusing
// two rows in one cell, and returns the rows with a value.
func fillCells(t *results.Table, s Spec, g *plots.Grid, xs, ys, zs, lows, highs []float64) (drawn []int, err error) {
	at := make([][]int, len(g.Ys)) // the row each cell came from, -1 = none
	for yi := range at {
		at[yi] = slices.Repeat([]int{-1}, len(g.Xs))
	}
	for r := range t.Rows {
		if !math.IsNaN(zs[r]) {
			drawn = append(drawn, r)
		}
		xi, _ := slices.BinarySearch(g.Xs, xs[r])
		yi, _ := slices.BinarySearch(g.Ys, ys[r])
		if prev := at[yi][xi]; prev >= 0 {
			return nil, duplicateCellError(t, s, prev, r)
		}
		at[yi][xi] = r
		g.Z[yi][xi] = zs[r]
		if lows != nil {
			g.Low[yi][xi], g.High[yi][xi] = lows[r], highs[r]
		}
	}
	return drawn, nil
}

// duplicateCellError explains two rows in one heatmap cell, and names the
// --where that keeps one of them.
func duplicateCellError(t *results.Table, s Spec, a, b int) error {
	msg := fmt.Sprintf("%s: lines %d and %d are both at %s=%s, %s=%s",
		t.Path, t.Lines[a], t.Lines[b], s.X, t.Cell(b, s.X), s.Y, t.Cell(b, s.Y))
	if differ := t.DifferingKeys(a, b, s.X, s.Y); len(differ) > 0 {
		k := differ[0]
		msg += fmt.Sprintf("; they differ in %s: keep one with --where %s=%s", strings.Join(differ, ", "), k, t.Cell(a, k))
	}
	return errors.New(msg)
}

// scaleAll multiplies every value of vs by factor, in place.
func scaleAll(vs []float64, factor float64) {
	for i := range vs {
		vs[i] *= factor
	}
}

func distinctSorted(vs []float64) []float64 {
	out := slices.Clone(vs)
	slices.Sort(out)
	return slices.Compact(out)
}

// nanGrid is rows × cols of NaN, a grid without values.
func nanGrid(rows, cols int) [][]float64 {
	g := make([][]float64, rows)
	for i := range g {
		g[i] = nans(cols)
	}
	return g
}
