package plots

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// A line plot's caption is printed under it, and the legend's note under
// the entries.
func TestLineCaptionGolden(t *testing.T) {
	o := LineOptions{
		Title: "violations as server clocks run fast", XLabel: "server clock rate (%, positive = fast)", YLabel: "mutex violations (fraction of runs)",
		LegendNote: "server clock rate in %: positive = fast",
		Caption:    "Bars: 95% Wilson score intervals. 400 runs per point.",
	}
	f, err := LinePlot(o, threeSeries())
	if err != nil {
		t.Fatal(err)
	}
	svg := svgOf(t, f, LineWidth, LineHeight)
	checkGolden(t, "line_caption.svg", svg)
	requireTexts(t, svg, o.Caption, o.LegendNote, o.XLabel, o.YLabel)

	// the caption takes room from the plot, not from the canvas: the
	// figure keeps its size and the plot above it shrinks
	bare, err := LinePlot(LineOptions{Title: o.Title, XLabel: o.XLabel, YLabel: o.YLabel}, threeSeries())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(svg, svgOf(t, bare, LineWidth, LineHeight)) {
		t.Error("a caption changes nothing")
	}
	if !bytes.Contains(svg, []byte(`viewBox="0 0 504 324"`)) {
		t.Error("the captioned figure is not 7 × 4.5 inches")
	}
}

// A long caption is wrapped to the figure's width, not cut.
func TestCaptionWraps(t *testing.T) {
	words := strings.Repeat("interval ", 40)
	lines := wrapText(captionStyle(), words, 300)
	if len(lines) < 2 {
		t.Fatalf("%d lines, want the caption wrapped", len(lines))
	}
	if got := strings.Join(lines, " "); got != strings.TrimSpace(words) {
		t.Errorf("wrapping lost words: %q", got)
	}
	for _, l := range lines {
		if w := captionStyle().Width(l); w > 300 {
			t.Errorf("line %q is %v wide, more than 300", l, w)
		}
	}
	notes := packNotes(captionStyle(), []string{"[1] a", "[2] b", "[3] c"}, 300)
	if len(notes) != 1 || notes[0] != "[1] a   [2] b   [3] c" {
		t.Errorf("notes packed as %q", notes)
	}
}

// unevenGrid is a sweep of TTL against clock rates of 0, 0.1, 0.5 and 2%
// (0, 1000, 5000, 20000 ppm): unevenly spaced values on both axes.
func unevenGrid() Grid {
	g := Grid{
		Xs:     []float64{1, 2, 5, 10, 30},
		Ys:     []float64{0, 0.1, 0.5, 2},
		XLabel: "lock TTL (s)", YLabel: "server clock rate (%, positive = fast)", ZLabel: "mutex violations (fraction of runs)",
		Title: "violations by TTL and clock rate", Cells: CellsAuto,
		Caption: "Under each value: its 95% Wilson score interval. 400 runs per cell.",
	}
	for yi := range g.Ys {
		var z, lo, hi []float64
		for xi := range g.Xs {
			v := math.Min(1, float64(yi*yi)*0.1+0.3/float64(xi+1))
			z, lo, hi = append(z, v), append(lo, math.Max(0, v-0.04)), append(hi, math.Min(1, v+0.04))
		}
		g.Z, g.Low, g.High = append(g.Z, z), append(g.Low, lo), append(g.High, hi)
	}
	return g
}

// Unevenly spaced values get one equal cell each by default, every tick
// is labelled, and the caption says the axes are not to scale.
func TestHeatmapEvenGolden(t *testing.T) {
	g := unevenGrid()
	f, svg := heatmapSVG(t, g)
	checkGolden(t, "heatmap_even.svg", svg)
	requireTexts(t, svg, "0", "0.1", "0.5", "2", "1", "5", "10", "30")
	if !bytes.Contains(svg, []byte(">Under each value: its 95% Wilson score interval. 400 runs per cell. Not to scale: one equal cell per value of")) {
		t.Error("the caption does not say that the axes are not to scale")
	}
	if len(f.notes) != 0 {
		t.Errorf("notes %q, want none: every cell has room", f.notes)
	}
	// CellsEven draws the same; CellsTrue keeps the spacing, and its
	// slivers need notes
	g.Cells = CellsEven
	even, _ := Heatmap(g)
	if !bytes.Equal(svg, svgOf(t, even, HeatmapWidth, HeatmapHeight)) {
		t.Error("CellsAuto on uneven values differs from CellsEven")
	}
	g.Cells = CellsTrue
	g.Caption = ""
	spaced, _ := Heatmap(g)
	tsvg := svgOf(t, spaced, HeatmapWidth, HeatmapHeight)
	if bytes.Contains(tsvg, []byte("Not to scale")) {
		t.Error("true spacing is said not to be to scale")
	}
	if len(spaced.notes) == 0 {
		t.Error("true spacing of 0, 0.1, 0.5, 2 needs no note: the slivers fit their texts?")
	}
	// evenly spaced values keep their scale under CellsAuto: no sentence
	g = Grid{Xs: []float64{0, 1, 2}, Ys: []float64{10, 20}, Z: [][]float64{{0, 1, 2}, {3, 4, 5}}, Cells: CellsAuto}
	f, _ = Heatmap(g)
	if bytes.Contains(svgOf(t, f, HeatmapWidth, HeatmapHeight), []byte("Not to scale")) {
		t.Error("evenly spaced values are said not to be to scale")
	}
	g.Cells = 0
	if _, err := Heatmap(g); err == nil || !strings.Contains(err.Error(), "cell spacing is not set") {
		t.Errorf("no spacing: %v", err)
	}
}

// The persistence heatmap's narrow cells under true spacing, with their
// intervals: an interval that does not fit is given by a note, never
// dropped silently.
func TestHeatmapNotesGolden(t *testing.T) {
	g := Grid{
		Xs: []float64{0, 1, 2, 4, 7, 11}, Ys: []float64{0, 1, 2}, YNames: []string{"none", "everysec", "always"},
		XLabel: "restart delay (s)", YLabel: "persistence", ZLabel: "mutex violations (fraction of runs)",
		Cells: CellsTrue, Caption: "Under each value: its 95% Wilson score interval. 400 runs per cell.",
		Z:    [][]float64{{0.963, 0.943, 0.86, 0.0275, 0, 0}, {0.05, 0.0375, 0.06, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
		Low:  [][]float64{{0.94, 0.916, 0.823, 0.0153, 0, 0}, {0.0324, 0.0229, 0.0407, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
		High: [][]float64{{0.977, 0.961, 0.891, 0.0487, 0.00951, 0.00951}, {0.0765, 0.0608, 0.0877, 0.00951, 0.00951, 0.00951}, {0.00951, 0.00951, 0.00951, 0.00951, 0.00951, 0.00951}},
	}
	f, h, err := heatmap(g)
	if err != nil {
		t.Fatal(err)
	}
	svg := svgOf(t, f, HeatmapWidth, HeatmapHeight)
	checkGolden(t, "heatmap_notes.svg", svg)
	if len(f.notes) == 0 {
		t.Fatal("no notes: the 1 s wide cells hold their intervals?")
	}
	checkNothingDropped(t, f, h, svg)
}

// Nothing is dropped, at any size: every cell shows its value and
// interval or a number whose note gives them, every tick its label or a
// number whose note gives it, and every note is printed; or, on a canvas
// too small for its notes, Encode refuses the figure.
func TestHeatmapDropsNothing(t *testing.T) {
	grids := map[string]Grid{"uneven": unevenGrid(), "small": smallGrid()}
	spaced := unevenGrid()
	spaced.Cells = CellsTrue
	grids["uneven, true spacing"] = spaced
	words := unevenGrid()
	words.XNames = []string{"unprotected resource", "fencing tokens", "compare-and-set on the value", "both fencing and compare-and-set", "none"}
	grids["long category names"] = words
	for name, g := range grids {
		for _, size := range [][2]vg.Length{{3 * vg.Inch, 2 * vg.Inch}, {5 * vg.Inch, 3.5 * vg.Inch}, {HeatmapWidth, HeatmapHeight}, {12 * vg.Inch, 8 * vg.Inch}} {
			t.Run(fmt.Sprintf("%s at %v×%v", name, size[0], size[1]), func(t *testing.T) {
				f, h, err := heatmap(g)
				if err != nil {
					t.Fatal(err)
				}
				fig, err := Encode(f, "fig.svg", size[0], size[1])
				if err != nil {
					// refused, not cut: only a canvas far below the
					// design size may be too small for its notes
					if size[0] >= HeatmapWidth || !strings.Contains(err.Error(), "is too small for its") {
						t.Fatal(err)
					}
					return
				}
				var b bytes.Buffer
				if _, err := fig.WriteTo(&b); err != nil {
					t.Fatal(err)
				}
				checkNothingDropped(t, f, h, b.Bytes())
			})
		}
	}
}

func checkNothingDropped(t *testing.T, f *Figure, h *heat, svg []byte) {
	t.Helper()
	note := map[string]string{}
	for _, n := range f.notes {
		key, rest, _ := strings.Cut(n, " ")
		note[key] = rest
		if !bytes.Contains(svg, []byte(n)) {
			t.Errorf("note %q is not printed", n)
		}
	}
	keyIn := func(lines []string) string {
		for _, l := range lines {
			for _, w := range strings.Fields(l) {
				if strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]") && !strings.Contains(w, ",") {
					return w
				}
			}
		}
		return ""
	}
	for yi, row := range h.g.Z {
		for xi, z := range row {
			if math.IsNaN(z) {
				continue
			}
			want := []string{formatCell(z)}
			if h.g.Low != nil {
				want = append(want, "["+formatCell(h.g.Low[yi][xi])+", "+formatCell(h.g.High[yi][xi])+"]")
			}
			lines := h.layout.cells[yi][xi].lines
			if strings.Join(lines, "\n") == strings.Join(want, "\n") {
				continue
			}
			k := keyIn(lines)
			if k == "" || note[k] != strings.Join(want, " ") {
				t.Errorf("cell (%d, %d) shows %q, and note %q says %q: want %q", xi, yi, lines, k, note[k], want)
			}
		}
	}
	for _, a := range []*heatAxis{&h.x, &h.y} {
		for i, tk := range a.ticks() {
			if tk.Label == a.labels[i] {
				continue
			}
			if note[tk.Label] != a.name+": "+a.labels[i] {
				t.Errorf("tick %q of %s is labelled %q, and its note says %q", a.labels[i], a.name, tk.Label, note[tk.Label])
			}
		}
	}
}

// A fraction's colour scale runs from 0 to 1 whatever the values, so that
// heatmaps of rates share their colours; a value outside is an error.
func TestHeatmapFractionScale(t *testing.T) {
	g := Grid{Xs: []float64{1, 2}, Ys: []float64{1}, Z: [][]float64{{0.1, 0.3}}, Cells: CellsAuto}
	f, _, err := heatmap(g)
	if err != nil {
		t.Fatal(err)
	}
	forbidTexts(t, svgOf(t, f, HeatmapWidth, HeatmapHeight), "1.0")
	g.ZFraction = true
	f, h, err := heatmap(g)
	if err != nil {
		t.Fatal(err)
	}
	requireTexts(t, svgOf(t, f, HeatmapWidth, HeatmapHeight), "0.0", "1.0")
	if h.cm.Min() != 0 || h.cm.Max() != 1 {
		t.Errorf("scale [%g, %g], want [0, 1]", h.cm.Min(), h.cm.Max())
	}
	g.Z[0][1] = 1.5
	if _, err := Heatmap(g); err == nil || err.Error() != "heatmap z is a fraction, but its values run from 0.1 to 1.5" {
		t.Errorf("a fraction of 1.5: %v", err)
	}
}

// A title wider than the figure is wrapped onto two lines, not cut.
func TestFigureWrapsTitle(t *testing.T) {
	o := LineOptions{Title: strings.Repeat("mutex violations by nodes node[2] min replicas max lag ", 2) + "and more"}
	f, err := LinePlot(o, threeSeries())
	if err != nil {
		t.Fatal(err)
	}
	svg := svgOf(t, f, LineWidth, LineHeight)
	lines := wrapText(f.Plot.Title.TextStyle, o.Title, LineWidth-2*captionPad)
	if len(lines) < 2 {
		t.Fatalf("the title fits on one line: %q", lines)
	}
	requireTexts(t, svg, lines...)
	if f.Plot.Title.Text != o.Title {
		t.Errorf("drawing changed the plot's title to %q", f.Plot.Title.Text)
	}
}

// A figure too small for its notes is refused, not cut.
func TestEncodeRefusesACrowdedFigure(t *testing.T) {
	g := unevenGrid()
	g.Cells = CellsTrue
	f, err := Heatmap(g)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Encode(f, "fig.png", 3*vg.Inch, 2*vg.Inch)
	if err == nil || !strings.HasPrefix(err.Error(), "a figure 144 points tall is too small for its") {
		t.Fatalf("error %v, want the figure refused", err)
	}
	if _, err := Encode(f, "fig.png", HeatmapWidth, HeatmapHeight); err != nil {
		t.Fatalf("at its design size: %v", err)
	}
}
