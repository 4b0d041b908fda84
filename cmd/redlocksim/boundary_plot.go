package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/plots"
)

// isBoundaryPlot reports whether plot's arguments ask for an onset curve
// (plot --boundary FILE), which has flags of its own.
func isBoundaryPlot(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "boundary" {
			return true
		}
	}
	return false
}

// boundaryPlotFlags are plot --boundary's options.
type boundaryPlotFlags struct {
	in, title       string
	out             outFlag
	logX, noCaption bool
}

func parseBoundaryPlotFlags(args []string, stderr io.Writer) (*boundaryPlotFlags, error) {
	fs := newFlagSet("plot --boundary", `usage: redlocksim plot --boundary CURVE.csv --out FILE [flags]

Draws the onset curve that 'redlocksim boundary --over' wrote: the measured
onset against the first --over key, each bracket (from the last value safe
on every seed to the first that violated on one) as an interval bar
through its middle, and the closed form's onset beside it where one
applies. A caption line under the x axis says what the bars are and how
many seeds each probe ran; values of the verdict that did not flip in the
range are named there, not drawn. A clock rate of 1000 ppm or more is
drawn in percent. FILE ends in .svg, .png or .pdf.

flags:
`, stderr)
	f := &boundaryPlotFlags{}
	fs.StringVar(&f.in, "boundary", "", "the curve's `CSV`, as boundary --over writes it (required)")
	f.out.register(fs, "", "write the figure to `FILE` (.svg, .png or .pdf) (required)")
	fs.StringVar(&f.title, "title", "", "the figure's title (default: from the keys)")
	fs.BoolVar(&f.logX, "logx", false, "logarithmic x axis")
	fs.BoolVar(&f.noCaption, "no-caption", false, "leave out the caption line")
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" { // even as --boundary's value
			fs.Usage()
			return nil, flag.ErrHelp
		}
	}
	rest, err := parseArgs(fs, args)
	switch {
	case err != nil:
		return nil, err
	case len(rest) > 0:
		return nil, badPlot("--boundary names the curve's CSV; unexpected arguments %s", strings.Join(rest, " "))
	case f.in == "" || f.out == "":
		return nil, badPlot("--boundary and --out are required")
	}
	return f, nil
}

func badPlot(format string, a ...any) error {
	return badInputf("redlocksim plot: "+format, a...)
}

// cmdPlotBoundary is plot --boundary: the onset curve that boundary
// --over wrote, measured and closed form side by side.
func cmdPlotBoundary(args []string, stderr io.Writer) error {
	f, err := parseBoundaryPlotFlags(args, stderr)
	if err != nil {
		return err
	}
	c, err := readCurve(f.in)
	if err != nil {
		return badPlot("%v", err)
	}
	opt, pts, err := c.figure(f.logX)
	if err != nil {
		return badPlot("%s: %v", f.in, err)
	}
	if f.title != "" {
		opt.Title = f.title
	}
	if f.noCaption {
		opt.Caption = ""
	}
	p, err := plots.OnsetPlot(opt, pts)
	if err != nil {
		return badPlot("%s: %v", f.in, err)
	}
	if err := saveFigure(p, string(f.out), plots.LineWidth, plots.LineHeight); err != nil {
		return badPlot("%v", err)
	}
	return nil
}

// curveFile is a boundary --over CSV: the x key (the first column) and
// the columns the figure needs, by row.
type curveFile struct {
	path string
	xKey string
	key  string // the bisected key
	rows []curveRow
}

type curveRow struct {
	line                               int
	x, safe, violating, verdict, onset string
	low, high, seeds, tol, formula     string
}

// readCurve reads and checks a curve's CSV: its header must be the over
// keys followed by the columns boundary writes.
func readCurve(path string) (*curveFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no rows: write it with redlocksim boundary --over ... --out %s", path, path)
	}
	head := recs[0]
	col := map[string]int{}
	for i, h := range head {
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	k, ok := col["key"]
	if !ok || k == 0 {
		return nil, fmt.Errorf("%s: not an onset curve (boundary --over writes its --over keys, then key, safe, violating, ...): the header is %s", path, strings.Join(head, ","))
	}
	for _, name := range []string{"safe", "violating", "verdict", "seeds", "tol", "analytic_onset", "analytic_low", "analytic_high"} {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("%s: the header has no %s column: is it boundary --over's output?", path, name)
		}
	}
	c := &curveFile{path: path, xKey: head[0]}
	for i, rec := range recs[1:] {
		row := curveRow{line: i + 2, x: rec[0], safe: rec[col["safe"]], violating: rec[col["violating"]], verdict: rec[col["verdict"]],
			onset: rec[col["analytic_onset"]], low: rec[col["analytic_low"]], high: rec[col["analytic_high"]], seeds: rec[col["seeds"]], tol: rec[col["tol"]]}
		if i, ok := col["analytic_formula"]; ok {
			row.formula = rec[i]
		}
		if c.key == "" {
			c.key = rec[k]
		} else if rec[k] != c.key {
			return nil, fmt.Errorf("%s:%d: key %s, but line 2 bisects %s: one curve bisects one key", path, row.line, rec[k], c.key)
		}
		c.rows = append(c.rows, row)
	}
	return c, nil
}

// value reads a cell: a number, or a duration in seconds.
func curveValue(s string) (float64, bool, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return v, false, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, false, fmt.Errorf("%q is neither a number nor a duration", s)
	}
	return d.Seconds(), true, nil
}

// figure turns the rows into the figure's points and texts.
func (c *curveFile) figure(logX bool) (plots.OnsetOptions, []plots.OnsetPoint, error) {
	var pts []plots.OnsetPoint
	var skipped, seeds, tols, formulas []string
	xDur, yDur := false, false
	cell := func(row curveRow, name, s string, dur *bool) (float64, error) {
		v, isDur, err := curveValue(s)
		if err != nil {
			return 0, fmt.Errorf("line %d: %s: %v", row.line, name, err)
		}
		*dur = *dur || isDur
		return v, nil
	}
	for _, row := range c.rows {
		x, err := cell(row, c.xKey, row.x, &xDur)
		if err != nil {
			return plots.OnsetOptions{}, nil, err
		}
		if !slices.Contains(seeds, row.seeds) {
			seeds = append(seeds, row.seeds)
		}
		if row.verdict != "flips" {
			skipped = append(skipped, fmt.Sprintf("%s at %s", row.verdict, row.x))
			continue
		}
		tol := row.tol
		if strings.HasSuffix(c.key, "_ppm") {
			tol += " ppm"
		}
		if !slices.Contains(tols, tol) {
			tols = append(tols, tol)
		}
		p := plots.OnsetPoint{X: x, Analytic: math.NaN(), AnalyticLow: math.NaN(), AnalyticHigh: math.NaN()}
		if p.Safe, err = cell(row, "safe", row.safe, &yDur); err != nil {
			return plots.OnsetOptions{}, nil, err
		}
		if p.Violating, err = cell(row, "violating", row.violating, &yDur); err != nil {
			return plots.OnsetOptions{}, nil, err
		}
		if f, _, _ := strings.Cut(row.formula, ":"); f != "" && !slices.Contains(formulas, f) {
			formulas = append(formulas, f)
		}
		for _, a := range []struct {
			name, s string
			v       *float64
		}{{"analytic_onset", row.onset, &p.Analytic}, {"analytic_low", row.low, &p.AnalyticLow}, {"analytic_high", row.high, &p.AnalyticHigh}} {
			if a.s == "" {
				continue
			}
			if *a.v, err = cell(row, a.name, a.s, &yDur); err != nil {
				return plots.OnsetOptions{}, nil, err
			}
		}
		pts = append(pts, p)
	}
	if len(pts) == 0 {
		return plots.OnsetOptions{}, nil, fmt.Errorf("no value of %s has a bracket: %s", c.xKey, strings.Join(skipped, "; "))
	}
	xLabel := humanKey(c.xKey)
	if xDur {
		xLabel += " (s)"
	}
	yName := humanKey(c.key) + " at the onset"
	yLabel := yName
	switch {
	case yDur:
		yLabel += " (s)"
	case strings.HasSuffix(c.key, "_ppm") && onsetMax(pts) >= 1000:
		for i := range pts {
			p := &pts[i]
			p.Safe, p.Violating, p.Analytic, p.AnalyticLow, p.AnalyticHigh = p.Safe/1e4, p.Violating/1e4, p.Analytic/1e4, p.AnalyticLow/1e4, p.AnalyticHigh/1e4
		}
		yLabel += " (%, positive = fast)"
	case strings.HasSuffix(c.key, "_ppm"):
		yLabel += " (ppm, positive = fast)"
	}
	caption := fmt.Sprintf("bars: the measured bracket, from the last value safe on all %s seeds per test to the first that violated on one (bisected to %s)",
		strings.Join(seeds, " or "), strings.Join(tols, " or "))
	if rangeOnly(pts) {
		caption += "; the closed form's bars are its predicted range"
	}
	if len(skipped) > 0 {
		caption += "; not drawn: " + strings.Join(skipped, ", ")
	}
	return plots.OnsetOptions{
		Title:    fmt.Sprintf("Onset of violations: %s against %s", humanKey(c.key), humanKey(c.xKey)),
		XLabel:   xLabel,
		YLabel:   yLabel,
		Caption:  caption,
		Measured: "measured (bracket)",
		Analytic: strings.TrimSuffix("closed form: "+strings.Join(formulas, "; "), ": "),
		LogX:     logX,
	}, pts, nil
}

func onsetMax(pts []plots.OnsetPoint) float64 {
	m := 0.0
	for _, p := range pts {
		m = max(m, math.Abs(p.Safe), math.Abs(p.Violating))
	}
	return m
}

// rangeOnly reports whether some point's closed form is drawn as its
// range, for want of an onset.
func rangeOnly(pts []plots.OnsetPoint) bool {
	for _, p := range pts {
		if math.IsNaN(p.Analytic) && !math.IsNaN(p.AnalyticLow) {
			return true
		}
	}
	return false
}
