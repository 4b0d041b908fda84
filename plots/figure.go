package plots

import (
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Drawer is what Encode draws: a *plot.Plot, or a *Figure (a plot with
// its caption and notes).
type Drawer interface {
	Draw(c draw.Canvas)
}

// Figure is a sweep's plot with the lines of text printed under it: the
// caption (what the intervals are, how many runs stand behind a point)
// and the notes of what did not fit where it belongs (a heatmap's narrow
// cell or tick gets a number "[1]", and its note gives the value).
//
// The notes depend on the size the figure is drawn at, so they are
// planned in Draw, for the canvas at hand: the space under the plot is
// reserved first for the caption, then grown until the notes planned for
// the plot above it fit too. Nothing is dropped: a text that does not fit
// gets a note, and every note is printed.
type Figure struct {
	Plot    *plot.Plot
	Caption string
	// plan, when not nil, lays the plot out for the canvas it will be
	// drawn on (plot.Plot.Draw's, below the caption) and returns the
	// notes that layout needs.
	plan func(p *plot.Plot, c draw.Canvas) []string
	// notes are the notes of the last Draw (for tests); crowded says
	// that they and the caption took more than half of its canvas, which
	// Encode reports as an error rather than write a figure whose plot
	// is crushed or whose last lines fall off the bottom.
	notes   []string
	crowded bool
}

// errCrowded is Encode's error for a figure too small for its notes.
func (f *Figure) errCrowded(h vg.Length) error {
	return fmt.Errorf("a figure %.4g points tall is too small for its %d notes (cells or ticks too small for their texts): draw it larger, or with equal cells", float64(h), len(f.notes))
}

const (
	captionSize = vg.Length(9)
	captionRowH = vg.Length(11.5)
	captionGap  = vg.Length(6) // between the plot and the first line
	captionPad  = vg.Length(4) // under the last line
	maxPlans    = 8            // layouts tried before the notes' space is fixed
)

func captionStyle() text.Style { return textStyle(captionSize, rgb(0x333333)) }

// Draw draws the plot above its caption and notes, wrapping a title too
// wide for the canvas, and filling the whole canvas with the plot's
// background first (a figure without either is
// the plot alone, drawn as plot.Plot.Draw draws it).
func (f *Figure) Draw(c draw.Canvas) {
	width := c.Max.X - c.Min.X - 2*captionPad
	// a title wider than the figure is wrapped, not cut at the edges
	if title := f.Plot.Title.Text; title != "" {
		f.Plot.Title.Text = strings.Join(wrapText(f.Plot.Title.TextStyle, title, width), "\n")
		defer func() { f.Plot.Title.Text = title }()
	}
	caption := wrapText(captionStyle(), f.Caption, width)
	lines := caption
	reserve := linesHeight(len(lines))
	area := c
	f.notes = nil
	for range maxPlans {
		area = draw.Crop(c, 0, 0, reserve, 0)
		if f.plan == nil {
			break
		}
		f.notes = f.plan(f.Plot, area)
		all := append(slices.Clip(caption), packNotes(captionStyle(), f.notes, width)...)
		need := linesHeight(len(all))
		lines = all
		if need <= reserve {
			break
		}
		// more notes than room: a smaller plot, planned again (its cells
		// are smaller, so it may need more notes still)
		reserve = need
	}
	f.crowded = linesHeight(len(lines)) > (c.Max.Y-c.Min.Y)/2
	if reserve > 0 && f.Plot.BackgroundColor != nil {
		c.SetColor(f.Plot.BackgroundColor)
		c.Fill(c.Rectangle.Path())
	}
	f.Plot.Draw(area)
	sty := captionStyle()
	sty.YAlign = draw.YTop
	y := area.Min.Y - captionGap
	for _, l := range lines {
		c.FillText(sty, vg.Point{X: c.Min.X + captionPad, Y: y}, l)
		y -= captionRowH
	}
}

// linesHeight is the space n lines of caption take under the plot.
func linesHeight(n int) vg.Length {
	if n == 0 {
		return 0
	}
	return captionGap + vg.Length(n)*captionRowH + captionPad
}

// wrapText breaks s into lines no wider than w at spaces (a word wider
// than w stands on a line of its own); an empty s is no line.
func wrapText(sty text.Style, s string, w vg.Length) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		words := strings.Fields(para)
		line := ""
		for _, word := range words {
			switch {
			case line == "":
				line = word
			case sty.Width(line+" "+word) <= w:
				line += " " + word
			default:
				lines = append(lines, line)
				line = word
			}
		}
		if line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// packNotes sets notes side by side, three spaces apart, on lines no
// wider than w; a note is broken only where it is wider than a line.
func packNotes(sty text.Style, notes []string, w vg.Length) []string {
	var lines []string
	line := ""
	for _, n := range notes {
		switch {
		case line == "":
		case sty.Width(line+"   "+n) <= w:
			line += "   " + n
			continue
		default:
			lines = append(lines, line)
		}
		parts := wrapText(sty, n, w)
		if len(parts) == 0 {
			continue
		}
		lines = append(lines, parts[:len(parts)-1]...)
		line = parts[len(parts)-1]
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
