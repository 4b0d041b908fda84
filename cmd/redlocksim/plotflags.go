package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/redlocksim/redlocksim/plots"
)

// plotFlags are the options of plot's kinds; each kind registers the ones
// it takes (plotKind.flags), the old spelling all of them.
type plotFlags struct {
	x, y, z, series, title string
	out                    outFlag
	logX, logY             bool
	noCaption              bool
	even                   evenFlag
	labels, where          []string
	annotate               string
	heatmap                bool   // the old spelling's plot --heatmap
	overlay                string // the old spelling's plot --overlay REAL.csv
}

// evenFlag is --even: unset (CellsAuto), --even or --even=false.
type evenFlag struct{ set, even bool }

func (e *evenFlag) IsBoolFlag() bool { return true }
func (e *evenFlag) String() string {
	if e == nil || !e.set {
		return "auto"
	}
	return strconv.FormatBool(e.even)
}
func (e *evenFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("--even takes true or false, got %q", s)
	}
	e.set, e.even = true, v
	return nil
}

func (e evenFlag) cells() plots.CellSpacing {
	switch {
	case !e.set:
		return plots.CellsAuto
	case e.even:
		return plots.CellsEven
	}
	return plots.CellsTrue
}

// The flags of plot's kinds, in groups: every kind's, the axes of a
// table's figure, a line figure's, a heatmap's.
func (f *plotFlags) common(fs *flag.FlagSet) {
	f.out.register(fs, "", "write the figure to `FILE` (.svg, .png or .pdf)")
	fs.StringVar(&f.title, "title", "", "the figure's title (default: from the keys)")
	fs.BoolVar(&f.noCaption, "no-caption", false, "leave out the caption line (intervals, runs per point)")
}

func (f *plotFlags) table(fs *flag.FlagSet, yText string) {
	fs.StringVar(&f.x, "x", "", "the sweep `KEY` across (a dotted scenario key such as lock.ttl)")
	fs.StringVar(&f.y, "y", "", yText)
	fs.Var((*repeated)(&f.labels), "label", "name a key or column on the figure, `key=text` (repeatable; the unit is kept unless text ends in a parenthesis)")
	fs.Var((*repeated)(&f.where), "where", "keep only the rows where `key=value[,value...]` (repeatable; conditions on different keys must all hold)")
}

func (f *plotFlags) lines(fs *flag.FlagSet) {
	fs.StringVar(&f.series, "series", "", "draw one line per value of `KEY`")
	fs.BoolVar(&f.logX, "logx", false, "logarithmic x axis")
	fs.BoolVar(&f.logY, "logy", false, "logarithmic y axis")
	fs.BoolVar(&f.logY, "log-y", false, "logarithmic y axis (as --logy)")
}

func (f *plotFlags) cells(fs *flag.FlagSet) {
	fs.StringVar(&f.z, "z", "", "the `COLUMN` that colours the cells")
	fs.Var(&f.even, "even", "one equal cell per value (default: when the values are unevenly spaced; --even=false keeps the true spacing)")
	fs.StringVar(&f.annotate, "annotate", "", "`ci` writes each cell's 95% interval under its value")
}

// missing checks the flags every figure of a table needs: --x, --y,
// --out, and a heatmap's --z.
func (f *plotFlags) missing(heatmap bool) error {
	var missing []string
	for _, fl := range []struct{ name, v string }{{"--x", f.x}, {"--y", f.y}, {"--out", string(f.out)}} {
		if fl.v == "" {
			missing = append(missing, fl.name)
		}
	}
	if heatmap && f.z == "" {
		missing = append(missing, "--z")
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	return nil
}

func (f *plotFlags) checkAnnotate() error {
	if f.annotate != "" && f.annotate != "ci" {
		return fmt.Errorf("--annotate %q: the one annotation is ci", f.annotate)
	}
	return nil
}

// oldKind picks the kind of figure the old spelling's flags ask for
// (plot RESULTS.csv [--heatmap | --overlay REAL.csv] ...), after checking
// the flags that only that kind takes.
func (f *plotFlags) oldKind() (*plotKind, error) {
	if err := f.missing(f.heatmap); err != nil {
		return nil, err
	}
	var extra, only []string
	for _, fl := range []struct {
		name string
		set  bool
		mine []string // the kinds that take it
	}{
		{"--series", f.series != "", nil}, {"--logx", f.logX, nil}, {"--logy", f.logY, nil},
		{"--z", f.z != "", []string{"heatmap"}}, {"--annotate", f.annotate != "", []string{"heatmap"}}, {"--even", f.even.set, []string{"heatmap"}},
	} {
		switch {
		case !fl.set:
		case fl.mine == nil && f.heatmap:
			extra = append(extra, fl.name)
		case fl.mine != nil && !f.heatmap:
			only = append(only, fl.name)
		}
	}
	switch {
	case len(extra) > 0:
		return nil, fmt.Errorf("%s cannot be used with --heatmap", strings.Join(extra, ", "))
	case len(only) > 0:
		return nil, fmt.Errorf("%s %s --heatmap", strings.Join(only, ", "), pick(len(only) == 1, "needs", "need"))
	}
	if err := f.checkAnnotate(); err != nil {
		return nil, err
	}
	switch {
	case f.overlay != "" && f.heatmap:
		return nil, fmt.Errorf("--overlay draws over lines, not a --heatmap")
	case f.overlay != "":
		return findPlotKind("overlay"), nil
	case f.heatmap:
		return findPlotKind("heatmap"), nil
	}
	return findPlotKind("line"), nil
}

// parseOldPlotFlags parses the old spelling: every kind's flags, with
// --heatmap and --overlay choosing the kind.
func parseOldPlotFlags(args []string, stderr io.Writer) (*plotFlags, []string, error) {
	fs := newFlagSet("plot", "", stderr)
	fs.Usage = func() { plotUsage(stderr) }
	f := &plotFlags{}
	f.common(fs)
	f.table(fs, "the `COLUMN` to plot up (with --heatmap: the KEY up)")
	f.lines(fs)
	f.cells(fs)
	fs.BoolVar(&f.heatmap, "heatmap", false, "draw a heatmap of --z over --x and --y (now: plot heatmap)")
	fs.StringVar(&f.overlay, "overlay", "", "draw the real points of `REAL.csv` over the lines (now: plot overlay)")
	rest, err := parseArgs(fs, args)
	return f, rest, err
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
