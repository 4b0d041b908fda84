package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/redlocksim/redlocksim/plots"
)

func figurePlot(t *testing.T) *plot.Plot {
	t.Helper()
	p := plot.New()
	p.Title.Text = "a figure"
	return p
}

func figureBytes(t *testing.T, name string) []byte {
	t.Helper()
	fig, err := plots.Encode(figurePlot(t), name, 4*vg.Inch, 3*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := fig.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func dirEntries(t *testing.T, dir string) []string {
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

// saveFigure writes the whole figure, readable by all, replaces an old
// one whole, and a save that fails leaves no trace.
func TestSaveFigureAtomic(t *testing.T) {
	dir := t.TempDir()
	w, h := 4*vg.Inch, 3*vg.Inch
	for _, name := range []string{"fig.svg", "fig.png", "fig.pdf"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("old figure"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := saveFigure(figurePlot(t), path, w, h); err != nil {
			t.Fatalf("saveFigure %s: %v", name, err)
		}
		got, _ := os.ReadFile(path)
		if !bytes.Equal(got, figureBytes(t, name)) {
			t.Errorf("%s: the old figure was not replaced by the whole new one", name)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", name, fi.Mode().Perm())
		}
	}
	if es := dirEntries(t, dir); !slices.Equal(es, []string{"fig.pdf", "fig.png", "fig.svg"}) {
		t.Errorf("directory holds %v, want only the three figures (no temporary file left behind)", es)
	}

	// An unknown format is refused before anything is written.
	if err := saveFigure(figurePlot(t), filepath.Join(dir, "fig.jpg"), w, h); err == nil || !strings.Contains(err.Error(), "must end in .svg, .png or .pdf") {
		t.Errorf("saveFigure fig.jpg: error %v, want the format error", err)
	}

	// The rename fails when the target is a non-empty directory: the
	// directory stays as it was and the temporary file is removed.
	target := filepath.Join(dir, "busy.svg")
	if err := os.MkdirAll(filepath.Join(target, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := saveFigure(figurePlot(t), target, w, h); err == nil {
		t.Fatal("saveFigure over a non-empty directory succeeded")
	}
	if es := dirEntries(t, dir); !slices.Equal(es, []string{"busy.svg", "fig.pdf", "fig.png", "fig.svg"}) {
		t.Errorf("directory holds %v after a failed save, want busy.svg and the three figures", es)
	}
	if es := dirEntries(t, target); !slices.Equal(es, []string{"inside"}) {
		t.Errorf("the target directory holds %v, want it untouched", es)
	}

	// A missing directory is an error, not a panic.
	if err := saveFigure(figurePlot(t), filepath.Join(dir, "no", "such", "fig.svg"), w, h); err == nil {
		t.Error("saveFigure into a missing directory succeeded")
	}
}
