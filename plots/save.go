package plots

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/redlocksim/redlocksim/internal/atomicfile"
)

// PNGDPI is the resolution of PNG figures: twice the usual 96, so that a
// 10-inch timeline is 1920 pixels wide, sharp on a projector.
const PNGDPI = 192

// Save draws p at width × height and writes it to path, in the format its
// extension names (.svg, .png or .pdf, in any case). It writes through
// package atomicfile: a temporary file renamed over path (or over the
// target of a link at path), so that path is either left as it was or
// replaced by the whole figure, readable by all (mode 0644); a device is
// written directly and never replaced.
func Save(p *plot.Plot, path string, width, height vg.Length) (err error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".svg", ".png", ".pdf":
	default:
		return fmt.Errorf("cannot save a figure as %q: the file name must end in .svg, .png or .pdf", filepath.Base(path))
	}
	if width <= 0 || height <= 0 {
		return fmt.Errorf("figure size %v × %v is not positive", width, height)
	}
	if ext == ".pdf" {
		reproduciblePDF()
	}
	var w io.WriterTo
	if ext == ".png" {
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(PNGDPI))
		p.Draw(draw.New(c))
		w = vgimg.PngCanvas{Canvas: c}
	} else if w, err = p.WriterTo(width, height, ext[1:]); err != nil {
		return err
	}

	return WriteAtomic(path, w)
}

// WriteAtomic writes w's bytes to path through package atomicfile: under a
// temporary name renamed over path (or over the target of a symlink at
// path), so that a reader sees the old file or the whole new one; a device
// is written directly and never replaced. Figures and every other output
// file of the command (Perfetto traces, reports) are written through it.
func WriteAtomic(path string, w io.WriterTo) (err error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err = w.WriteTo(f); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// reproduciblePDF pins what the PDF writer would otherwise take from the
// machine: the document dates (it would use time.Now) and the order of its
// font catalogue (it would iterate a map). These are defaults of the fpdf
// package, read when a document is created; this package is the only
// writer of PDFs in the program.
// They are set once, so that concurrent Saves do not race on them.
var reproduciblePDF = sync.OnceFunc(func() {
	epoch := time.Unix(0, 0).UTC()
	fpdf.SetDefaultCreationDate(epoch)
	fpdf.SetDefaultModificationDate(epoch)
	fpdf.SetDefaultCatalogSort(true)
})
