package plots

import (
	"bytes"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

func storyPlot(t *testing.T) *plot.Plot {
	t.Helper()
	p, err := TimelinePlot(gcPauseStory())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// encode is Encode's bytes.
func encode(t *testing.T, p *plot.Plot, name string, w, h vg.Length) []byte {
	t.Helper()
	fig, err := Encode(p, name, w, h)
	if err != nil {
		t.Fatalf("Encode %s: %v", name, err)
	}
	var b bytes.Buffer
	if _, err := fig.WriteTo(&b); err != nil {
		t.Fatalf("Encode %s: writing: %v", name, err)
	}
	return b.Bytes()
}

func TestEncodeFormats(t *testing.T) {
	tl := gcPauseStory()
	w, h := TimelineSize(tl)
	magic := map[string][]byte{
		"fig.svg": []byte("<?xml"),
		"fig.png": []byte("\x89PNG\r\n\x1a\n"),
		"fig.pdf": []byte("%PDF-"),
		"FIG.SVG": []byte("<?xml"),
	}
	for _, name := range []string{"fig.svg", "fig.png", "fig.pdf", "FIG.SVG"} {
		got := encode(t, storyPlot(t), name, w, h)
		if !bytes.HasPrefix(got, magic[name]) {
			t.Errorf("%s starts %q, want %q", name, got[:min(8, len(got))], magic[name])
		}
	}
	// Encode gives what the plot draws: the SVG is the golden figure.
	if !bytes.Equal(encode(t, storyPlot(t), "fig.svg", w, h), svgOf(t, storyPlot(t), w, h)) {
		t.Error("the encoded SVG differs from the plot's own SVG")
	}
}

// Identical input gives identical figures in every format; the PDF's
// dates are pinned, not the time of the run.
func TestEncodeReproducible(t *testing.T) {
	w, h := TimelineSize(gcPauseStory())
	for _, ext := range []string{".svg", ".png", ".pdf"} {
		da := encode(t, storyPlot(t), "a"+ext, w, h)
		db := encode(t, storyPlot(t), "b"+ext, w, h)
		if !bytes.Equal(da, db) {
			t.Errorf("%s: two encodings of the same figure differ", ext)
		}
		if ext == ".pdf" && !bytes.Contains(da, []byte("/CreationDate (D:19700101000000)")) {
			t.Error("the PDF's creation date is not pinned to the epoch")
		}
	}
}

func TestEncodeRejectsUnknownFormats(t *testing.T) {
	for _, name := range []string{"fig.jpg", "fig", "fig.svg.txt", "fig.eps"} {
		_, err := Encode(storyPlot(t), name, 100, 100)
		want := `cannot save a figure as "` + name + `": the file name must end in .svg, .png or .pdf`
		if err == nil || err.Error() != want {
			t.Errorf("Encode %s: error %v, want %q", name, err, want)
		}
	}
	if _, err := Encode(storyPlot(t), "fig.svg", 0, 100); err == nil || !strings.Contains(err.Error(), "is not positive") {
		t.Errorf("Encode with zero width: error %v, want a size error", err)
	}
}
