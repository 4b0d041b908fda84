package plots

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// PNGDPI is the resolution of PNG figures: twice the usual 96, so that a
// 10-inch timeline is 1920 pixels wide, sharp on a projector.
const PNGDPI = 192

// Encode draws p (a *plot.Plot or a *Figure) at width × height in the
// format that name's extension names (.svg, .png or .pdf, in any case) and
// returns the figure, ready to be written. A Figure whose notes would take
// more than half its height is an error: nothing is dropped, so a figure
// too small for what it must say is refused. The package writes no files: the command writes what Encode
// returns (atomically, through cmd/internal/atomicfile), as it does every
// other output.
func Encode(p Drawer, name string, width, height vg.Length) (io.WriterTo, error) {
	ext := strings.ToLower(filepath.Ext(name))
	switch ext {
	case ".svg", ".png", ".pdf":
	default:
		return nil, fmt.Errorf("cannot save a figure as %q: the file name must end in .svg, .png or .pdf", filepath.Base(name))
	}
	if width <= 0 || height <= 0 {
		return nil, fmt.Errorf("figure size %v × %v is not positive", width, height)
	}
	if ext == ".pdf" {
		reproduciblePDF()
	}
	var fig io.WriterTo
	if ext == ".png" {
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(PNGDPI))
		p.Draw(draw.New(c))
		fig = vgimg.PngCanvas{Canvas: c}
	} else {
		c, err := draw.NewFormattedCanvas(width, height, ext[1:])
		if err != nil {
			return nil, err
		}
		p.Draw(draw.New(c)) // what plot.Plot.WriterTo does, for any Drawer
		fig = c
	}
	if f, ok := p.(*Figure); ok && f.crowded {
		return nil, f.errCrowded(height)
	}
	return fig, nil
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
