package main

import (
	"gonum.org/v1/plot/vg"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/plots"
)

// saveFigure draws p (a plot, or a figure with its caption) at width × height in the format path's extension
// names and writes it through atomicfile, as every output of the command
// is written: the old file or the whole new figure, never half, and a
// symlink or device at path is written through, not replaced.
func saveFigure(p plots.Drawer, path string, width, height vg.Length) error {
	fig, err := plots.Encode(p, path, width, height)
	if err != nil {
		return err
	}
	return atomicfile.WriteFrom(path, fig)
}
