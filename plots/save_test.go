package plots

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func storyPlot(t *testing.T) *plot.Plot {
	t.Helper()
	p, err := TimelinePlot(gcPauseStory())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// entries lists dir's entries.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestSaveFormats(t *testing.T) {
	tl := gcPauseStory()
	w, h := TimelineSize(tl)
	dir := t.TempDir()
	magic := map[string][]byte{
		"fig.svg": []byte("<?xml"),
		"fig.png": []byte("\x89PNG\r\n\x1a\n"),
		"fig.pdf": []byte("%PDF-"),
		"FIG.SVG": []byte("<?xml"),
	}
	for _, name := range []string{"fig.svg", "fig.png", "fig.pdf", "FIG.SVG"} {
		path := filepath.Join(dir, name)
		if err := Save(storyPlot(t), path, w, h); err != nil {
			t.Fatalf("Save %s: %v", name, err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(got, magic[name]) {
			t.Errorf("%s starts %q, want %q", name, got[:min(8, len(got))], magic[name])
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", name, fi.Mode().Perm())
		}
	}
	// Save writes what the plot draws: the SVG is the golden figure.
	got, err := os.ReadFile(filepath.Join(dir, "fig.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, svgOf(t, storyPlot(t), w, h)) {
		t.Error("the saved SVG differs from the plot's own SVG")
	}
	if es := entries(t, dir); len(es) != 4 {
		t.Errorf("directory holds %v, want only the four figures (no temporary file left behind)", es)
	}
}

// Identical input gives identical files in every format; the PDF's dates
// are pinned, not the time of the run.
func TestSaveReproducible(t *testing.T) {
	w, h := TimelineSize(gcPauseStory())
	for _, ext := range []string{".svg", ".png", ".pdf"} {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a"+ext), filepath.Join(dir, "b"+ext)
		if err := Save(storyPlot(t), a, w, h); err != nil {
			t.Fatal(err)
		}
		if err := Save(storyPlot(t), b, w, h); err != nil {
			t.Fatal(err)
		}
		da, _ := os.ReadFile(a)
		db, _ := os.ReadFile(b)
		if !bytes.Equal(da, db) {
			t.Errorf("%s: two saves of the same figure differ", ext)
		}
		if ext == ".pdf" && !bytes.Contains(da, []byte("/CreationDate (D:19700101000000)")) {
			t.Error("the PDF's creation date is not pinned to the epoch")
		}
	}
}

func TestSaveRejectsUnknownFormats(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"fig.jpg", "fig", "fig.svg.txt", "fig.eps"} {
		err := Save(storyPlot(t), filepath.Join(dir, name), 100, 100)
		want := `cannot save a figure as "` + name + `": the file name must end in .svg, .png or .pdf`
		if err == nil || err.Error() != want {
			t.Errorf("Save %s: error %v, want %q", name, err, want)
		}
	}
	if err := Save(storyPlot(t), filepath.Join(dir, "fig.svg"), 0, 100); err == nil || !strings.Contains(err.Error(), "is not positive") {
		t.Errorf("Save with zero width: error %v, want a size error", err)
	}
	if es := entries(t, dir); len(es) != 0 {
		t.Errorf("directory holds %v after failed saves, want nothing", es)
	}
}

// Save replaces a figure whole, and a save that fails leaves no trace.
func TestSaveAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fig.svg")
	if err := os.WriteFile(path, []byte("old figure"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, h := TimelineSize(gcPauseStory())
	if err := Save(storyPlot(t), path, w, h); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, svgOf(t, storyPlot(t), w, h)) {
		t.Error("the old figure was not replaced by the whole new one")
	}

	// The rename fails when the target is a non-empty directory: the
	// directory stays as it was and the temporary file is removed.
	target := filepath.Join(dir, "busy.svg")
	if err := os.MkdirAll(filepath.Join(target, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Save(storyPlot(t), target, w, h); err == nil {
		t.Fatal("Save over a non-empty directory succeeded")
	}
	if es := entries(t, dir); strings.Join(es, ",") != "busy.svg,fig.svg" {
		t.Errorf("directory holds %v after a failed save, want busy.svg, fig.svg", es)
	}
	if es := entries(t, target); strings.Join(es, ",") != "inside" {
		t.Errorf("the target directory holds %v, want it untouched", es)
	}

	// A missing directory is an error, not a panic.
	if err := Save(storyPlot(t), filepath.Join(dir, "no", "such", "fig.svg"), w, h); err == nil {
		t.Error("Save into a missing directory succeeded")
	}
}
