package plots

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// svgOf renders p (a plot or a Figure) as SVG.
func svgOf(t *testing.T, p Drawer, w, h vg.Length) []byte {
	t.Helper()
	wt, err := Encode(p, "fig.svg", w, h)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// heatmapSVG draws g as a heatmap at its design size.
func heatmapSVG(t *testing.T, g Grid) (*Figure, []byte) {
	t.Helper()
	f, err := Heatmap(g)
	if err != nil {
		t.Fatal(err)
	}
	return f, svgOf(t, f, HeatmapWidth, HeatmapHeight)
}

// timelineSVG draws tl at the size TimelineSize gives it.
func timelineSVG(t *testing.T, tl Timeline) []byte {
	t.Helper()
	p, err := TimelinePlot(tl)
	if err != nil {
		t.Fatal(err)
	}
	w, h := TimelineSize(tl)
	return svgOf(t, p, w, h)
}

// checkGolden compares got with testdata/name byte for byte, in the manner
// of gonum's cmpimg.CheckPlot for SVG; with -update it rewrites the file.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			t.Fatalf("%s differs from the figure drawn now, first at line %d:\n got: %s\nwant: %s\n(run go test -update if the change is intended, and look at the figure)", path, i+1, gl[i], wl[i])
		}
	}
	t.Fatalf("%s differs from the figure drawn now: %d lines, want %d (run go test -update if the change is intended)", path, len(gl), len(wl))
}

// svgText is how an SVG figure writes a text: the test looks for it
// between tags so that it matches whole labels only.
func svgText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\'':
			b.WriteString("&#39;")
		case '"':
			b.WriteString("&#34;")
		default:
			b.WriteRune(r)
		}
	}
	return ">" + b.String() + "</text>"
}

func requireTexts(t *testing.T, svg []byte, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if !bytes.Contains(svg, []byte(svgText(s))) {
			t.Errorf("the figure has no text %q", s)
		}
	}
}

func forbidTexts(t *testing.T, svg []byte, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if bytes.Contains(svg, []byte(svgText(s))) {
			t.Errorf("the figure has the text %q, want none", s)
		}
	}
}
