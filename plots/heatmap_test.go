package plots

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestHeatmapGolden(t *testing.T) {
	g := smallGrid()
	_, svg := heatmapSVG(t, g)
	checkGolden(t, "heatmap.svg", svg)
	requireTexts(t, svg, g.Title, g.XLabel, g.YLabel, g.ZLabel, "no data")
	// the axes carry the values themselves, not cell indices
	requireTexts(t, svg, "1", "2", "5", "10", "100", "1000", "10000")
	forbidTexts(t, svg, "3")
	// every measured cell carries its value
	requireTexts(t, svg, "0.9", "0.75", "0.5", "0.31", "0.02", "0.01")
}

func TestHeatmapNoMissingNoSwatch(t *testing.T) {
	g := Grid{Xs: []float64{1, 2}, Ys: []float64{1}, Z: [][]float64{{0, 0}}, Cells: CellsAuto}
	_, svg := heatmapSVG(t, g)
	forbidTexts(t, svg, "no data")
}

func TestHeatmapErrors(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		g    Grid
		want string
	}{
		{"no x", Grid{Ys: []float64{1}}, "heatmap needs at least one x and one y value, got 0 and 1"},
		{"NaN axis", Grid{Xs: []float64{1, nan}, Ys: []float64{1}}, "heatmap x value 1 is NaN"},
		{"rows", Grid{Xs: []float64{1}, Ys: []float64{1, 2}, Z: [][]float64{{1}}}, "heatmap has 1 rows of z for 2 y values"},
		{"ragged", Grid{Xs: []float64{1, 2}, Ys: []float64{5}, Z: [][]float64{{1}}}, "heatmap z row 0 (y=5) has 1 values for 2 x values"},
		{"infinite", Grid{Xs: []float64{1}, Ys: []float64{5}, Z: [][]float64{{math.Inf(-1)}}}, "heatmap z at x=1 y=5 is infinite"},
		{"all missing", Grid{Xs: []float64{1}, Ys: []float64{5}, Z: [][]float64{{nan}}}, "heatmap has no z value (all are NaN)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Heatmap(tt.g)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestFormatCell(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 0.5: "0.5", 0.0123: "0.0123", 0.01234: "0.0123", 0.99951: "1", 12345: "12300", 1e-5: "1e-05", 2e6: "2e+06", -0.25: "-0.25",
	} {
		if got := formatCell(v); got != want {
			t.Errorf("formatCell(%g) = %q, want %q", v, got, want)
		}
	}
}

func TestHeatmapNamesMustMatchValues(t *testing.T) {
	_, err := Heatmap(Grid{Xs: []float64{0, 1}, Ys: []float64{0}, Z: [][]float64{{1, 2}}, XNames: []string{"a"}, Cells: CellsAuto})
	if err == nil || err.Error() != "heatmap has 1 x names for 2 x values" {
		t.Fatalf("got %v, want the names/values mismatch", err)
	}
}

// Uneven numeric values keep their spacing; categories get equal cells.
func TestCellPositions(t *testing.T) {
	c, e := cellPositions([]float64{0, 1, 2, 4, 7, 11}, nil, false)
	wantC := []float64{0, 1, 2, 4, 7, 11}
	wantE := []float64{-0.5, 0.5, 1.5, 3, 5.5, 9, 13}
	if !slices.Equal(c, wantC) || !slices.Equal(e, wantE) {
		t.Errorf("numeric: centres %v edges %v, want %v and %v", c, e, wantC, wantE)
	}
	c, e = cellPositions([]float64{0, 1, 2}, []string{"none", "everysec", "always"}, false)
	if !slices.Equal(c, []float64{0, 1, 2}) || !slices.Equal(e, []float64{-0.5, 0.5, 1.5, 2.5}) {
		t.Errorf("categories: centres %v edges %v", c, e)
	}
	c, e = cellPositions([]float64{30}, nil, true)
	if !slices.Equal(c, []float64{30}) || !slices.Equal(e, []float64{29.5, 30.5}) {
		t.Errorf("lone value: centres %v edges %v", c, e)
	}
}

// --annotate ci: each cell shows its interval under its value.
func TestHeatmapIntervals(t *testing.T) {
	g := Grid{
		Xs: []float64{0, 1, 4}, Ys: []float64{1, 2},
		Z:      [][]float64{{0.5, 0.25, 0}, {1, 0.75, math.NaN()}},
		Low:    [][]float64{{0.4, 0.2, 0}, {0.9, 0.7, math.NaN()}},
		High:   [][]float64{{0.6, 0.3, 0.1}, {1, 0.8, math.NaN()}},
		XLabel: "restart delay (s)", YLabel: "y", ZLabel: "z", Cells: CellsTrue,
	}
	_, svg := heatmapSVG(t, g)
	requireTexts(t, svg, "[0.4, 0.6]", "[0.2, 0.3]", "[0, 0.1]", "[0.9, 1]", "0.25")
	g.High = nil
	if _, err := Heatmap(g); err == nil || !strings.Contains(err.Error(), "both low and high") {
		t.Errorf("low without high: %v", err)
	}
	g.High = [][]float64{{1}}
	if _, err := Heatmap(g); err == nil || !strings.Contains(err.Error(), "not 2 rows of 3") {
		t.Errorf("misshapen high: %v", err)
	}
	g.High, g.Low, g.Xs = nil, nil, []float64{0, 4, 1}
	if _, err := Heatmap(g); err == nil || !strings.Contains(err.Error(), "increasing") {
		t.Errorf("unsorted x: %v", err)
	}
}

// True spacing makes some cells narrow: a value that fits nowhere in its
// cell is replaced by a number, and a note under the figure gives it; so
// is a tick label that does not fit its cell. Nothing is dropped.
func TestHeatmapNarrowCellsKeepTheirValues(t *testing.T) {
	g := Grid{
		Xs: []float64{0, 0.05, 0.1, 30}, Ys: []float64{1, 2},
		Z:      [][]float64{{0.0375, 0.0125, 0.9625, 0}, {0.5, 0.25, 0.125, 1}},
		XLabel: "x", YLabel: "y", ZLabel: "z", Cells: CellsTrue,
	}
	_, svg := heatmapSVG(t, g)
	requireTexts(t, svg, "0.963", "0.125", "1", "30")
	// the top row is numbered first, left to right, after the ticks
	requireTexts(t, svg, "[1]", "[2]", "[3]", "[4]", "[5]", "[6]", "[7]")
	requireTexts(t, svg, "[1] x: 0   [2] x: 0.05   [3] x: 0.1   [4] 0.5   [5] 0.25   [6] 0.0375   [7] 0.0125")
	forbidTexts(t, svg, "[8]")
}
