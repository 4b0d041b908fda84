package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	"gonum.org/v1/plot/vg"

	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/plots/sweepfig"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// plotKind is one of plot's subcommands: its synopsis and text for the
// usage, the flags it takes, how many files it reads, and how it draws
// them (package sweepfig does the drawing).
type plotKind struct {
	name, synopsis, text string
	flags                func(f *plotFlags, fs *flag.FlagSet)
	files                string // what the files are, for an error: "one results CSV"
	nfiles               int
	draw                 func(f *plotFlags, files []string) (sweepfig.Drawn, error)
}

// plotKinds are plot's subcommands, in the order the usage lists them.
var plotKinds = []*plotKind{
	{name: "line", synopsis: "RESULTS.csv --x KEY --y COLUMN [--series KEY] --out FILE [flags]", text: lineText,
		flags: func(f *plotFlags, fs *flag.FlagSet) {
			f.table(fs, "the `COLUMN` to plot up")
			f.lines(fs)
		},
		files: "one results CSV", nfiles: 1, draw: drawTable(sweepfig.Lines)},
	{name: "heatmap", synopsis: "RESULTS.csv --x KEY --y KEY --z COLUMN --out FILE [flags]", text: heatmapText,
		flags: func(f *plotFlags, fs *flag.FlagSet) {
			f.table(fs, "the `KEY` up")
			f.cells(fs)
		},
		files: "one results CSV", nfiles: 1, draw: drawTable(sweepfig.Heatmap)},
	{name: "overlay", synopsis: "RESULTS.csv REAL.csv --x KEY --y COLUMN [--series KEY] --out FILE [flags]", text: overlayText,
		flags: func(f *plotFlags, fs *flag.FlagSet) {
			f.table(fs, "the `COLUMN` to plot up")
			f.lines(fs)
		},
		files: "the results CSV and compare --sweep's REAL.csv", nfiles: 2, draw: drawOverlay},
	{name: "onset", synopsis: "CURVE.csv --out FILE [flags]", text: onsetText,
		flags: func(f *plotFlags, fs *flag.FlagSet) {
			fs.BoolVar(&f.logX, "logx", false, "logarithmic x axis")
		},
		files: "one onset curve's CSV", nfiles: 1, draw: drawOnset},
}

func findPlotKind(name string) *plotKind {
	i := slices.IndexFunc(plotKinds, func(k *plotKind) bool { return k.name == name })
	if i < 0 {
		return nil
	}
	return plotKinds[i]
}

// cmdPlot runs plot KIND, or an old spelling (plot RESULTS.csv ...,
// with --heatmap, --overlay REAL.csv or --boundary CURVE.csv choosing the
// kind), which prints a note naming the new one.
func cmdPlot(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		if k := findPlotKind(args[0]); k != nil {
			return k.run(args[1:], stdout, stderr)
		}
	}
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			plotUsage(stderr)
			return flag.ErrHelp
		}
	}
	if isBoundaryPlot(args) {
		fmt.Fprintln(stderr, oldSpellingNote("plot --boundary CURVE.csv", "plot onset CURVE.csv"))
		return cmdPlotBoundary(args, stdout, stderr)
	}
	f, rest, err := parseOldPlotFlags(args, stderr)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return badPlot("give exactly one results CSV, got %s", count(len(rest), "argument"))
	}
	k, err := f.oldKind()
	if err != nil {
		return badPlot("%v", err)
	}
	switch k.name {
	case "overlay":
		fmt.Fprintln(stderr, oldSpellingNote("plot RESULTS.csv --overlay REAL.csv", "plot overlay RESULTS.csv REAL.csv"))
		rest = append(rest, f.overlay)
	case "heatmap":
		fmt.Fprintln(stderr, oldSpellingNote("plot RESULTS.csv --heatmap", "plot heatmap RESULTS.csv"))
	default:
		fmt.Fprintln(stderr, oldSpellingNote("plot RESULTS.csv", "plot line RESULTS.csv"))
	}
	return k.plot(f, rest, stdout)
}

// oldSpellingNote is the one line an old spelling prints.
func oldSpellingNote(old, now string) string {
	return fmt.Sprintf("redlocksim plot: note: %s is now %s (the old spelling still works)", old, now)
}

// run parses plot KIND's flags and draws.
func (k *plotKind) run(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot "+k.name, "", stderr)
	fs.Usage = func() { k.usage(stderr, fs) }
	f := &plotFlags{}
	f.common(fs)
	k.flags(f, fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if k.name != "onset" {
		if err := f.missing(k.name == "heatmap"); err != nil {
			return badPlot("%v", err)
		}
		if err := f.checkAnnotate(); err != nil {
			return badPlot("%v", err)
		}
	} else if f.out == "" {
		return badPlot("missing --out")
	}
	return k.plot(f, rest, stdout)
}

// plot draws the kind's figure from files and writes it to --out.
func (k *plotKind) plot(f *plotFlags, files []string, stdout io.Writer) error {
	if len(files) != k.nfiles {
		return badPlot("give exactly %s, got %s", k.files, count(len(files), "argument"))
	}
	d, err := k.draw(f, files)
	if err != nil {
		return badPlot("%v", err)
	}
	if f.noCaption {
		d.Fig.Caption = ""
	}
	w, h := vg.Length(plots.LineWidth), vg.Length(plots.LineHeight)
	if d.Heatmap {
		w, h = plots.HeatmapWidth, plots.HeatmapHeight
	}
	if err := saveFigure(d.Fig, string(f.out), w, h); err != nil {
		return badPlot("%v", err)
	}
	fmt.Fprintf(stdout, "wrote %s (%s)\n", f.out, drawnSummary(d, f.y))
	return nil
}

// drawnSummary says what a figure drew: "3 lines", "2 × 3 cells", "3
// lines, 3 real points; 1 row without a value of acquire_p99_ms left out".
func drawnSummary(d sweepfig.Drawn, y string) string {
	switch {
	case d.Heatmap:
		return fmt.Sprintf("%d × %d cells", d.Columns, d.Rows)
	case d.Onsets > 0:
		return count(d.Onsets, "onset") + " measured"
	}
	s := count(d.Lines, "line")
	if d.RealPoints > 0 {
		s += ", " + count(d.RealPoints, "real point")
	}
	if d.Skipped > 0 {
		s += fmt.Sprintf("; %s without a value of %s left out", count(d.Skipped, "row"), y)
	}
	if d.Unlined > 0 {
		s += fmt.Sprintf("; %s without a line left out", count(d.Unlined, "real row"))
	}
	return s
}

// spec is the figure the flags ask for.
func (f *plotFlags) spec() (sweepfig.Spec, error) {
	labels, err := sweepfig.ParseLabels(f.labels)
	if err != nil {
		return sweepfig.Spec{}, err
	}
	return sweepfig.Spec{X: f.x, Y: f.y, Z: f.z, Series: f.series, Title: f.title, LogX: f.logX, LogY: f.logY,
		Cells: f.even.cells(), AnnotateCI: f.annotate == "ci", Labels: labels}, nil
}

// readPlotTable reads a results CSV and keeps the rows --where selects.
func readPlotTable(path string, s *sweepfig.Spec, where []string) (*results.Table, error) {
	t, err := results.ReadTable(path)
	if err != nil {
		return nil, err
	}
	if s.Where, err = results.ParseWhere(where); err != nil {
		return nil, err
	}
	if err := t.Where(s.Where); err != nil {
		return nil, err
	}
	return t, sweepfig.CheckSize(t, *s)
}

// drawTable draws a figure of one results table.
func drawTable(draw func(*results.Table, sweepfig.Spec) (sweepfig.Drawn, error)) func(*plotFlags, []string) (sweepfig.Drawn, error) {
	return func(f *plotFlags, files []string) (sweepfig.Drawn, error) {
		s, err := f.spec()
		if err != nil {
			return sweepfig.Drawn{}, err
		}
		t, err := readPlotTable(files[0], &s, f.where)
		if err != nil {
			return sweepfig.Drawn{}, err
		}
		return draw(t, s)
	}
}

// drawOverlay draws the first file's table with the second's real
// points over it.
func drawOverlay(f *plotFlags, files []string) (sweepfig.Drawn, error) {
	return drawTable(func(t *results.Table, s sweepfig.Spec) (sweepfig.Drawn, error) {
		return sweepfig.Overlay(t, files[1], s)
	})(f, files)
}

func drawOnset(f *plotFlags, files []string) (sweepfig.Drawn, error) {
	c, err := results.ReadCurve(files[0])
	if err != nil {
		return sweepfig.Drawn{}, err
	}
	return sweepfig.Onset(c, f.logX, f.title)
}

func badPlot(format string, a ...any) error {
	return badInputf("redlocksim plot: "+format, a...)
}

// plotUsage is plot's help: the kinds' synopses, what they share, and
// each kind's text and flags.
func plotUsage(w io.Writer) {
	for i, k := range plotKinds {
		fmt.Fprintf(w, "%s redlocksim plot %s %s\n", pick(i == 0, "usage:", "      "), k.name, k.synopsis)
	}
	fmt.Fprint(w, "\n"+plotText)
	for _, k := range plotKinds {
		fs := newFlagSet("plot "+k.name, "", w)
		f := &plotFlags{}
		f.common(fs)
		k.flags(f, fs)
		fmt.Fprintf(w, "\nplot %s\n\n%s\nflags:\n", k.name, k.text)
		fs.PrintDefaults()
	}
}

// usage is plot KIND's help.
func (k *plotKind) usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: redlocksim plot %s %s\n\n%s\n%s\nflags:\n", k.name, k.synopsis, k.text, plotShared)
	fs.PrintDefaults()
}
