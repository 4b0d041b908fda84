package main

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// plotFlags are plot's options.
type plotFlags struct {
	x, y, z, series, title string
	out                    outFlag
	logX, logY, heatmap    bool
	noCaption              bool
	even                   evenFlag
	labels, where          []string
	annotate, overlay      string
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

func parsePlotFlags(args []string, stderr io.Writer) (*plotFlags, []string, error) {
	fs := newFlagSet("plot", `usage: redlocksim plot RESULTS.csv --x KEY --y COLUMN [--series KEY] --out FILE [flags]
       redlocksim plot RESULTS.csv --heatmap --x KEY --y KEY --z COLUMN --out FILE
       redlocksim plot --boundary CURVE.csv --out FILE   (boundary --over's onset curve; see plot --boundary --help)

Draws a sweep's CSV: one line per value of --series (or a single line),
with the confidence interval of the y column as bars (mutex_violation_rate
takes mutex_ci_low and mutex_ci_high, resource_violation_rate the
resource_ci_ pair, any other COLUMN its COLUMN_ci_low and COLUMN_ci_high
if present); or, with --heatmap, a grid of --z over two keys. Durations
("10s") are plotted in seconds. FILE ends in .svg, .png or .pdf.

A caption under the figure says what the intervals are (95% Wilson score
intervals for rates over runs, exact Poisson (Garwood) intervals for rates
per acquisition or hour, the CSV's Student t intervals for means) and how many
runs stand behind each point (the runs column); --no-caption leaves it out.

Axes, titles and legends name keys and columns in words with their units
("lock TTL (s)", "mutex violations (fraction of runs)"); a clock rate in
ppm is shown in percent when its values reach 1000 ppm, with "positive =
fast". --label KEY=TEXT renames a key or column and keeps its unit; a TEXT
ending in a parenthesis gives its own ("--label 'lock.ttl=TTL (seconds)'")
and then the values are shown as the CSV has them.

--overlay REAL.csv draws the points that 'compare --sweep' ran for real
as rings with their 95% intervals over the lines, each over the line of
its --series value, in its colour; the legend marks them "real".

--where KEY=V1,V2 keeps the rows whose KEY is one of the values; --where on
different keys must all hold.

Each line has its own colour and dash pattern. Lines measured at the same
x are drawn a few points apart (at most 12 between the first and the last),
centred on the x, so that their interval bars do not hide each other.
With --logy (or --log-y) a rate of zero with an upper bound (none seen:
the interval is [0, HIGH]) is drawn as an arrow down from a bar at HIGH,
its 95% upper bound, and the legend says so; any other zero is drawn at a
floor a decade below the smallest positive value, and the y axis says
where. The rates per acquisition and per hour reach 1e-9 and below.

A heatmap has one equal cell per value, in order, when the values are
unevenly spaced (0, 1000, 5000, 20000), and the caption says the axis is
not to scale; --even=false keeps the true spacing, --even forces equal
cells. A key whose values are words gets one equal cell each. Nothing is
dropped: a value, an interval or a tick label that does not fit its cell
is replaced by a number, [1], and a note under the figure gives it.

flags:
`, stderr)
	f := &plotFlags{}
	fs.StringVar(&f.x, "x", "", "the sweep `KEY` across (a dotted scenario key such as lock.ttl)")
	fs.StringVar(&f.y, "y", "", "the `COLUMN` to plot up (with --heatmap: the KEY up)")
	fs.StringVar(&f.z, "z", "", "with --heatmap, the `COLUMN` that colours the cells")
	fs.StringVar(&f.series, "series", "", "draw one line per value of `KEY`")
	f.out.register(fs, "", "write the figure to `FILE` (.svg, .png or .pdf)")
	fs.StringVar(&f.title, "title", "", "the figure's title (default: from the keys)")
	fs.BoolVar(&f.logX, "logx", false, "logarithmic x axis")
	fs.BoolVar(&f.logY, "logy", false, "logarithmic y axis")
	fs.BoolVar(&f.logY, "log-y", false, "logarithmic y axis (as --logy)")
	fs.BoolVar(&f.heatmap, "heatmap", false, "draw a heatmap of --z over --x and --y")
	fs.BoolVar(&f.noCaption, "no-caption", false, "leave out the caption line (intervals, runs per point)")
	fs.Var(&f.even, "even", "with --heatmap, one equal cell per value (default: when the values are unevenly spaced; --even=false keeps the true spacing)")
	fs.Var((*repeated)(&f.labels), "label", "name a key or column on the figure, `key=text` (repeatable; the unit is kept unless text ends in a parenthesis)")
	fs.Var((*repeated)(&f.where), "where", "keep only the rows where `key=value[,value...]` (repeatable; conditions on different keys must all hold)")
	fs.StringVar(&f.overlay, "overlay", "", "draw the real points of `REAL.csv` (compare --sweep's) as rings with their intervals over the lines")
	fs.StringVar(&f.annotate, "annotate", "", "with --heatmap, `ci` writes each cell's 95% interval under its value")
	rest, err := parseArgs(fs, args)
	return f, rest, err
}

func cmdPlot(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if isBoundaryPlot(args) {
		return cmdPlotBoundary(args, stderr)
	}
	f, rest, err := parsePlotFlags(args, stderr)
	if err != nil {
		return err
	}
	if err := runPlot(f, rest, stdout); err != nil {
		return badPlot("%v", err)
	}
	return nil
}

// figure is what one kind of plot drew: the figure, the size it is
// designed for, and what the command says it wrote ("3 lines").
type figure struct {
	fig     *plots.Figure
	w, h    vg.Length
	summary string
}

// plotKind draws one kind of figure from a filtered table.
type plotKind func(t *table, f *plotFlags, l labeller) (figure, error)

// kindOf picks the kind of figure the flags ask for, after checking the
// flags that only that kind takes.
func (f *plotFlags) kindOf() (plotKind, error) {
	var missing []string
	for _, fl := range []struct{ name, v string }{{"--x", f.x}, {"--y", f.y}, {"--out", string(f.out)}} {
		if fl.v == "" {
			missing = append(missing, fl.name)
		}
	}
	if f.heatmap && f.z == "" {
		missing = append(missing, "--z")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	if f.heatmap {
		var extra []string
		if f.series != "" {
			extra = append(extra, "--series")
		}
		if f.logX {
			extra = append(extra, "--logx")
		}
		if f.logY {
			extra = append(extra, "--logy")
		}
		if len(extra) > 0 {
			return nil, fmt.Errorf("%s cannot be used with --heatmap", strings.Join(extra, ", "))
		}
	} else {
		var only []string
		if f.z != "" {
			only = append(only, "--z")
		}
		if f.annotate != "" {
			only = append(only, "--annotate")
		}
		if f.even.set {
			only = append(only, "--even")
		}
		if len(only) > 0 {
			return nil, fmt.Errorf("%s %s --heatmap", strings.Join(only, ", "), pick(len(only) == 1, "needs", "need"))
		}
	}
	if f.annotate != "" && f.annotate != "ci" {
		return nil, fmt.Errorf("--annotate %q: the one annotation is ci", f.annotate)
	}
	if f.overlay != "" {
		return overlayFigure, nil
	}
	if f.heatmap {
		return heatmapFigure, nil
	}
	return lineFigure, nil
}

func runPlot(f *plotFlags, rest []string, stdout io.Writer) error {
	if len(rest) != 1 {
		return fmt.Errorf("give exactly one results CSV, got %d arguments", len(rest))
	}
	kind, err := f.kindOf()
	if err != nil {
		return err
	}
	labels, err := parseLabels(f.labels)
	if err != nil {
		return err
	}
	tab, err := readTable(rest[0])
	if err != nil {
		return err
	}
	if err := tab.filter(f.where); err != nil {
		return err
	}
	if len(tab.rows) > maxPoints {
		key := cmp.Or(f.series, f.x)
		return fmt.Errorf("%s: %d rows to draw; a figure draws at most %d points: keep some with --where, such as %s",
			tab.path, len(tab.rows), maxPoints, whereHint(key, tab.distinct(key)))
	}
	fig, err := kind(tab, f, labels)
	if err != nil {
		return err
	}
	if f.noCaption {
		fig.fig.Caption = ""
	}
	if err := saveFigure(fig.fig, string(f.out), fig.w, fig.h); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%s)\n", f.out, fig.summary)
	return nil
}

func lineFigure(t *table, f *plotFlags, l labeller) (figure, error) {
	opts, series, skipped, err := lineSeries(t, f, l)
	if err != nil {
		return figure{}, err
	}
	fig, err := plots.LinePlot(opts, series)
	if err != nil {
		return figure{}, err
	}
	note := ""
	if skipped > 0 {
		note = fmt.Sprintf("; %s without a value of %s left out", count(skipped, "row"), f.y)
	}
	return figure{fig, plots.LineWidth, plots.LineHeight, count(len(series), "line") + note}, nil
}

func heatmapFigure(t *table, f *plotFlags, l labeller) (figure, error) {
	g, err := heatmapGrid(t, f, l)
	if err != nil {
		return figure{}, err
	}
	fig, err := plots.Heatmap(g)
	if err != nil {
		return figure{}, err
	}
	return figure{fig, plots.HeatmapWidth, plots.HeatmapHeight, fmt.Sprintf("%d × %d cells", len(g.Xs), len(g.Ys))}, nil
}

// The most a figure draws, checked before anything is drawn: more lines
// than a legend can tell apart, more points or cells than a page shows,
// are refused with a --where that keeps fewer.
const (
	maxSeries = 100
	maxPoints = 20000
	maxCells  = 10000
)

// whereHint is a --where on key that keeps a few of its values.
func whereHint(key string, values []string) string {
	values = slices.DeleteFunc(slices.Clone(values), func(v string) bool { return v == "" || strings.Contains(v, ",") })
	if len(values) == 0 {
		return "--where " + key + "=VALUE"
	}
	return fmt.Sprintf("--where %s=%s", key, strings.Join(values[:min(len(values), 3)], ","))
}

// distinct returns the values of column name, trimmed, in the order they
// first appear; none if there is no such column.
func (t *table) distinct(name string) []string {
	i, ok := t.index[name]
	if !ok {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, row := range t.rows {
		if v := strings.TrimSpace(row[i]); !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// table is a results CSV: its header and rows, each row with the file line
// it came from.
type table struct {
	path   string
	header []string
	index  map[string]int
	rows   [][]string
	lines  []int
}

func readTable(path string) (*table, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r := csv.NewReader(fh)
	r.Comment = '#' // a shard's first line: # redlocksim sweep spec=...
	t := &table{path: path, index: make(map[string]int)}
	header, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s is empty", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if _, dup := t.index[h]; dup {
			return nil, fmt.Errorf("%s: column %q appears twice in the header", path, h)
		}
		t.index[h] = i
		t.header = append(t.header, h)
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		t.rows = append(t.rows, rec)
		t.lines = append(t.lines, line)
	}
	if len(t.rows) == 0 {
		return nil, fmt.Errorf("%s has a header but no rows", path)
	}
	return t, nil
}

// column returns the index of the named column, or an error listing the
// columns there are.
func (t *table) column(name, role string) (int, error) {
	if i, ok := t.index[name]; ok {
		return i, nil
	}
	return 0, fmt.Errorf("%s has no column %q (for %s); its columns are: %s", t.path, name, role, strings.Join(t.header, ", "))
}

// colKind is how a column's values read.
type colKind uint8

const (
	kindNumber   colKind = 1 + iota // every value is a number
	kindDuration                    // every value is a Go duration ("10s"), in seconds
	kindText                        // anything else
)

// numbers reads column i: as numbers if every value is one, else as
// durations in seconds if every value is one, else as text (vs is nil).
// Empty cells read as NaN when allowEmpty, else make the column text.
func (t *table) numbers(i int, allowEmpty bool) (vs []float64, kind colKind) {
	vs = make([]float64, len(t.rows))
	kind = kindNumber
	for r, row := range t.rows {
		s := strings.TrimSpace(row[i])
		if s == "" && allowEmpty {
			vs[r] = math.NaN()
			continue
		}
		if v, err := strconv.ParseFloat(s, 64); err == nil && kind == kindNumber {
			vs[r] = v
			continue
		}
		kind = kindDuration
		break
	}
	if kind == kindNumber {
		return vs, kind
	}
	for r, row := range t.rows {
		s := strings.TrimSpace(row[i])
		if s == "" && allowEmpty {
			vs[r] = math.NaN()
			continue
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, kindText
		}
		vs[r] = d.Seconds()
	}
	return vs, kindDuration
}

// firstNonNumber returns the line and value of the first cell of column i
// that is neither a number nor a duration (empty cells included), or line
// 0 if every cell is one or the other.
func (t *table) firstNonNumber(i int) (line int, value string) {
	for r, row := range t.rows {
		s := strings.TrimSpace(row[i])
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			continue
		}
		if _, err := time.ParseDuration(s); err == nil {
			continue
		}
		return t.lines[r], s
	}
	return 0, ""
}

// numericColumn reads a column that must hold numbers or durations.
func (t *table) numericColumn(name, role string, allowEmpty bool) ([]float64, colKind, error) {
	i, err := t.column(name, role)
	if err != nil {
		return nil, 0, err
	}
	vs, kind := t.numbers(i, allowEmpty)
	if kind == kindText {
		line, v := t.firstNonNumber(i)
		switch {
		case line == 0:
			return nil, 0, fmt.Errorf("%s: column %q (%s) mixes plain numbers and durations", t.path, name, role)
		case v == "":
			return nil, 0, fmt.Errorf("%s:%d: column %q (%s) has an empty cell", t.path, line, name, role)
		}
		return nil, 0, fmt.Errorf("%s:%d: column %q (%s) must hold numbers or durations, got %q", t.path, line, name, role, v)
	}
	if k, ok := sweeprun.Column(name); ok && kind == kindNumber {
		for r, v := range vs {
			if allowEmpty && strings.TrimSpace(t.rows[r][i]) == "" { // no value
				continue
			}
			if err := k.Check(v); err != nil {
				return nil, 0, fmt.Errorf("%s:%d: column %q (%s) %v", t.path, t.lines[r], name, role, err)
			}
		}
	}
	return vs, kind, nil
}

// ciColumns names the companion interval columns of a y column: a
// results column's own (package results), any other COLUMN's
// COLUMN_ci_low and COLUMN_ci_high.
func ciColumns(y string) (low, high string) {
	if c, end, ok := results.Lookup(y); ok && end == "" {
		if low, high, ok := c.Bounds(); ok {
			return low, high
		}
	}
	return y + "_ci_low", y + "_ci_high"
}

func lineSeries(t *table, f *plotFlags, l labeller) (plots.LineOptions, []plots.Series, int, error) {
	var opts plots.LineOptions
	xs, xKind, err := t.numericColumn(f.x, "--x", false)
	if err != nil {
		return opts, nil, 0, err
	}
	// An empty y cell is a point without that measure ("empty if none").
	ys, yKind, err := t.numericColumn(f.y, "--y", true)
	if err != nil {
		return opts, nil, 0, err
	}
	lows, highs := nans(len(t.rows)), nans(len(t.rows))
	lowName, highName := ciColumns(f.y)
	_, hasLow := t.index[lowName]
	_, hasHigh := t.index[highName]
	if hasLow != hasHigh {
		return opts, nil, 0, fmt.Errorf("%s has %q without %q: an interval needs both", t.path, pick(hasLow, lowName, highName), pick(hasLow, highName, lowName))
	}
	if hasLow {
		if lows, _, err = t.numericColumn(lowName, "the interval of --y", true); err != nil {
			return opts, nil, 0, err
		}
		if highs, _, err = t.numericColumn(highName, "the interval of --y", true); err != nil {
			return opts, nil, 0, err
		}
	}

	// Group rows into series by the raw value of --series; an empty value
	// is the base scenario's own.
	var keys []string
	group := make(map[string][]int)
	sortVal := make(map[string]float64)
	seriesKind := kindText
	var seriesScale scale
	if f.series != "" {
		si, err := t.column(f.series, "--series")
		if err != nil {
			return opts, nil, 0, err
		}
		var vals []float64
		vals, seriesKind = t.numbers(si, true)
		seriesScale = l.scaleOf(f.series, seriesKind, vals, t.impliedKey(f.series))
		for r, row := range t.rows {
			k := strings.TrimSpace(row[si])
			if _, ok := group[k]; !ok {
				keys = append(keys, k)
				if vals != nil {
					sortVal[k] = vals[r]
				}
			}
			group[k] = append(group[k], r)
		}
	} else {
		keys = []string{""}
		for r := range t.rows {
			group[""] = append(group[""], r)
		}
	}
	if len(keys) > maxSeries {
		return opts, nil, 0, fmt.Errorf("%s: --series %s has %d values, a line each; a figure draws at most %d lines: keep some with --where, such as %s",
			t.path, f.series, len(keys), maxSeries, whereHint(f.series, keys))
	}
	// Numbers and durations in order; words (a persistence policy) in the
	// order the sweep wrote them, which is its spec's, as a heatmap's
	// categories are.
	if seriesKind != kindText {
		slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(sortVal[a], sortVal[b]) }) // NaN (an empty cell) first
	}

	xScale := l.scaleOf(f.x, xKind, xs, t.impliedKey(f.x))
	yScale := l.scaleOf(f.y, yKind, ys, t.impliedKey(f.y))
	var series []plots.Series
	var drawn []int // the rows drawn
	skipped := 0
	for _, k := range keys {
		name := l.name(f.y)
		switch {
		case f.series != "" && k == "":
			name = l.name(f.series) + " as in the base scenario"
		case f.series != "":
			name = l.legend(f.series, k, seriesKind, seriesScale)
		}
		s := plots.Series{Name: name}
		seen := make(map[float64]int)
		for _, r := range group[k] {
			if math.IsNaN(ys[r]) {
				skipped++
				continue
			}
			if prev, dup := seen[xs[r]]; dup {
				return opts, nil, 0, t.duplicateError(f, name, prev, r)
			}
			seen[xs[r]] = r
			if err := t.checkLog(f, r, xs[r], ys[r], lows[r], lowName); err != nil {
				return opts, nil, 0, err
			}
			fx, fy := xScale.factor, yScale.factor
			s.Points = append(s.Points, plots.Point{X: xs[r] * fx, Y: ys[r] * fy, Low: lows[r] * fy, High: highs[r] * fy})
			drawn = append(drawn, r)
		}
		if len(s.Points) > 0 {
			series = append(series, s)
		}
	}
	if len(series) == 0 {
		return opts, nil, 0, fmt.Errorf("%s: column %q is empty in every row", t.path, f.y)
	}
	opts = plots.LineOptions{
		Title:   f.title,
		XLabel:  l.axis(f.x, xScale),
		YLabel:  l.axis(f.y, yScale),
		LogX:    f.logX,
		LogY:    f.logY,
		Caption: t.caption(f.y, hasLow, drawn, "point"),
	}
	if seriesScale.note != "" {
		opts.LegendNote = l.name(f.series) + " in " + seriesScale.unit + ": " + seriesScale.note
	}
	if opts.Title == "" {
		opts.Title = l.name(f.y) + " by " + l.name(f.x)
		if f.series != "" {
			opts.Title += ", one line per " + l.name(f.series)
		}
	}
	return opts, series, skipped, nil
}

// checkLog reports a value that a log axis cannot show, naming its line.
func (t *table) checkLog(f *plotFlags, r int, x, y, low float64, lowName string) error {
	bad := func(flag, col, what string) error {
		return fmt.Errorf("%s:%d: %s cannot show %s=%s (%s); drop %s or leave such rows out",
			t.path, t.lines[r], flag, col, strings.TrimSpace(t.rows[r][t.index[col]]), what, flag)
	}
	// --logy draws a zero at a floor (see plots.LinePlot); a negative
	// value has no place on it.
	switch {
	case f.logX && x <= 0:
		return bad("--logx", f.x, "not positive")
	case f.logY && y < 0:
		return bad("--logy", f.y, "negative")
	case f.logY && low < 0: // false for NaN, no interval
		return bad("--logy", lowName, "negative")
	}
	return nil
}

// duplicateError explains two rows of one series at the same x, naming the
// other keys that tell them apart.
func (t *table) duplicateError(f *plotFlags, series string, a, b int) error {
	differ := t.differingKeys(a, b, f.x, f.series)
	msg := fmt.Sprintf("%s: lines %d and %d are both at %s=%s in series %q",
		t.path, t.lines[a], t.lines[b], f.x, strings.TrimSpace(t.rows[a][t.index[f.x]]), series)
	if len(differ) > 0 {
		msg += fmt.Sprintf("; they differ in %s: pick one with --series or keep one with --where", strings.Join(differ, ", "))
	} else {
		msg += "; give --series to draw one line per value of another key"
	}
	return errors.New(msg)
}

// differingKeys are the keys (the dotted columns) whose values differ
// between rows a and b, but for those named in except.
func (t *table) differingKeys(a, b int, except ...string) []string {
	var differ []string
	for i, h := range t.header {
		if strings.Contains(h, ".") && !slices.Contains(except, h) && t.rows[a][i] != t.rows[b][i] {
			differ = append(differ, h)
		}
	}
	return differ
}

// duplicateCellError explains two rows in one heatmap cell, and names the
// --where that keeps one of them.
func (t *table) duplicateCellError(f *plotFlags, a, b int) error {
	msg := fmt.Sprintf("%s: lines %d and %d are both at %s=%s, %s=%s",
		t.path, t.lines[a], t.lines[b],
		f.x, strings.TrimSpace(t.rows[b][t.index[f.x]]), f.y, strings.TrimSpace(t.rows[b][t.index[f.y]]))
	if differ := t.differingKeys(a, b, f.x, f.y); len(differ) > 0 {
		k := differ[0]
		msg += fmt.Sprintf("; they differ in %s: keep one with --where %s=%s", strings.Join(differ, ", "), k, strings.TrimSpace(t.rows[a][t.index[k]]))
	}
	return errors.New(msg)
}

func heatmapGrid(t *table, f *plotFlags, l labeller) (plots.Grid, error) {
	var g plots.Grid
	xs, xKind, xNames, err := t.axisColumn(f.x, "--x")
	if err != nil {
		return g, err
	}
	ys, yKind, yNames, err := t.axisColumn(f.y, "--y")
	if err != nil {
		return g, err
	}
	g.XNames, g.YNames = xNames, yNames
	zs, zKind, err := t.numericColumn(f.z, "--z", true)
	if err != nil {
		return g, err
	}
	xScale := l.scaleOf(f.x, xKind, xs, t.impliedKey(f.x))
	yScale := l.scaleOf(f.y, yKind, ys, t.impliedKey(f.y))
	zScale := l.scaleOf(f.z, zKind, zs, t.impliedKey(f.z))
	scaleAll(xs, xScale.factor)
	scaleAll(ys, yScale.factor)
	scaleAll(zs, zScale.factor)
	g.Xs = distinctSorted(xs)
	g.Ys = distinctSorted(ys)
	if cells := len(g.Xs) * len(g.Ys); cells > maxCells {
		return g, fmt.Errorf("%s: %s and %s make %d × %d = %d cells; a heatmap draws at most %d: keep some with --where, such as %s",
			t.path, f.x, f.y, len(g.Xs), len(g.Ys), cells, maxCells, whereHint(f.x, t.distinct(f.x)))
	}
	var lows, highs []float64
	if f.annotate == "ci" {
		lowName, highName := ciColumns(f.z)
		if lows, _, err = t.numericColumn(lowName, "the interval of --z", true); err != nil {
			return g, err
		}
		if highs, _, err = t.numericColumn(highName, "the interval of --z", true); err != nil {
			return g, err
		}
		scaleAll(lows, zScale.factor)
		scaleAll(highs, zScale.factor)
		g.Low, g.High = make([][]float64, len(g.Ys)), make([][]float64, len(g.Ys))
		for yi := range g.Ys {
			g.Low[yi], g.High[yi] = nans(len(g.Xs)), nans(len(g.Xs))
		}
	}
	g.Z = make([][]float64, len(g.Ys))
	at := make([][]int, len(g.Ys)) // the row each cell came from, -1 = none
	for yi := range g.Z {
		g.Z[yi] = nans(len(g.Xs))
		at[yi] = make([]int, len(g.Xs))
		for xi := range at[yi] {
			at[yi][xi] = -1
		}
	}
	var drawn []int
	for r := range t.rows {
		if !math.IsNaN(zs[r]) {
			drawn = append(drawn, r)
		}
		xi, _ := slices.BinarySearch(g.Xs, xs[r])
		yi, _ := slices.BinarySearch(g.Ys, ys[r])
		if prev := at[yi][xi]; prev >= 0 {
			return g, t.duplicateCellError(f, prev, r)
		}
		at[yi][xi] = r
		g.Z[yi][xi] = zs[r]
		if lows != nil {
			g.Low[yi][xi], g.High[yi][xi] = lows[r], highs[r]
		}
	}
	g.XLabel = l.axis(f.x, xScale)
	g.YLabel = l.axis(f.y, yScale)
	g.ZLabel = l.axis(f.z, zScale)
	g.Cells = f.even.cells()
	g.ZFraction = zScale.unit == fractionOfRuns
	g.Caption = t.caption(f.z, f.annotate == "ci", drawn, "cell")
	g.Title = f.title
	if g.Title == "" {
		g.Title = l.name(f.z) + " by " + l.name(f.x) + " and " + l.name(f.y)
	}
	return g, nil
}

// axisColumn reads a heatmap axis: numbers or durations, or else
// categories (a persistence policy, a resource mode), which are numbered in
// the order they first appear (the sweep's point order) and named on the
// axis. An empty cell is the base scenario's own value.
func (t *table) axisColumn(name, role string) ([]float64, colKind, []string, error) {
	i, err := t.column(name, role)
	if err != nil {
		return nil, 0, nil, err
	}
	if vs, kind := t.numbers(i, false); kind != kindText {
		return vs, kind, nil, nil
	}
	if line, _ := t.firstNonNumber(i); line == 0 {
		return nil, 0, nil, fmt.Errorf("%s: column %q (%s) mixes plain numbers and durations", t.path, name, role)
	}
	var names []string
	index := map[string]int{}
	vs := make([]float64, len(t.rows))
	for r, row := range t.rows {
		v := strings.TrimSpace(row[i])
		if v == "" {
			v = "as in the base"
		}
		k, ok := index[v]
		if !ok {
			k = len(names)
			index[v] = k
			names = append(names, v)
		}
		vs[r] = float64(k)
	}
	return vs, kindText, names, nil
}

// filter keeps the rows where every condition of where holds. A
// condition is key=value or key=v1,v2,...: the key's cell is one of the
// values, each as written, or read as the same number or duration (20000
// and 2e4, 1s and 1000ms). Conditions on different keys must all hold;
// conditions on one key add their values (--where k=a --where k=b is
// --where k=a,b). A value that no row has is an error, so that a typo
// does not silently leave a series out.
func (t *table) filter(where []string) error {
	var keys []string
	values := map[string][]string{}
	for _, w := range where {
		key, list, ok := strings.Cut(w, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.TrimSpace(list) == "" {
			return fmt.Errorf("--where wants key=value or key=v1,v2, like --where nodes.clock.rate_ppm=0,20000, got %q", w)
		}
		vs, err := splitValues(list)
		if err != nil {
			return fmt.Errorf("--where %s: %w", w, err)
		}
		if _, seen := values[key]; !seen {
			keys = append(keys, key)
		}
		values[key] = append(values[key], vs...)
	}
	for _, key := range keys {
		i, err := t.column(key, "--where")
		if err != nil {
			return err
		}
		wants := values[key]
		matched := make([]bool, len(wants))
		var rows [][]string
		var lines []int
		seen := map[string]bool{}
		var have []string
		for r, row := range t.rows {
			cell := strings.TrimSpace(row[i])
			if !seen[cell] {
				seen[cell] = true
				have = append(have, cell)
			}
			keep := false
			for k, want := range wants {
				if cell == want || sameValue(cell, want) {
					matched[k], keep = true, true
				}
			}
			if keep {
				rows = append(rows, row)
				lines = append(lines, t.lines[r])
			}
		}
		for k, ok := range matched {
			if !ok {
				return fmt.Errorf("%s: no row has %s=%s (it has %s)", t.path, key, wants[k], strings.Join(have, ", "))
			}
		}
		t.rows, t.lines = rows, lines
	}
	return nil
}

// splitValues splits a --where list as explore.SplitList does (a TOML
// array or a quoted string is one value); no value may be empty.
func splitValues(list string) ([]string, error) {
	vs := explore.SplitList(list)
	if slices.Contains(vs, "") {
		return nil, fmt.Errorf("an empty value in %q", list)
	}
	return vs, nil
}

// unitFrom names, for the columns whose values are in another key's
// units, the column that names that key: sweep --analytic's onsets
// (analytic_key) and the onset curve's bracket and prediction (key).
var unitFrom = map[string]string{
	"analytic_onset_low": "analytic_key", "analytic_onset_high": "analytic_key",
	"safe": "key", "violating": "key", "tol": "key",
	"analytic_onset": "key", "analytic_low": "key", "analytic_high": "key",
}

// impliedKey is the key whose unit column col carries when its own name
// gives none (see unitFrom), when every row names the same one; else "".
func (t *table) impliedKey(col string) string {
	i, ok := t.index[unitFrom[col]]
	if !ok {
		return ""
	}
	key := ""
	for _, row := range t.rows {
		switch k := strings.TrimSpace(row[i]); {
		case k == "":
		case key == "":
			key = k
		case k != key:
			return ""
		}
	}
	return key
}

// caption says what a figure's intervals are and how many runs stand
// behind each point (or cell, per), for column col drawn from rows;
// shown says whether the intervals are drawn.
func (t *table) caption(col string, shown bool, rows []int, per string) string {
	var b strings.Builder
	low, _ := ciColumns(col)
	_, has := t.index[low]
	one, many := intervalMethod(col)
	switch {
	case shown && per == "cell":
		fmt.Fprintf(&b, "Under each value: its %s.", one)
	case shown:
		fmt.Fprintf(&b, "Bars: %s.", many)
	case has:
		b.WriteString("No interval is shown (--annotate ci writes them).")
	case per == "cell":
		fmt.Fprintf(&b, "No interval: the CSV has none for %s.", col)
	default:
		fmt.Fprintf(&b, "No bars: the CSV has no interval for %s.", col)
	}
	b.WriteString(" ")
	b.WriteString(t.runsPer(rows, per))
	return b.String()
}

// runsPer says how many runs stand behind each of rows: from the runs
// column ("400 runs per point", "20 to 400 runs per point"); a raw file
// (a seed per row) has one.
func (t *table) runsPer(rows []int, per string) string {
	i, ok := t.index["runs"]
	if !ok {
		if _, raw := t.index["seed"]; raw {
			return "One run per " + per + "."
		}
		return "The CSV does not say how many runs stand behind a " + per + " (it has no runs column)."
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		v, err := strconv.ParseFloat(strings.TrimSpace(t.rows[r][i]), 64)
		if err != nil {
			return fmt.Sprintf("The runs column of line %d is %q, not a number of runs.", t.lines[r], t.rows[r][i])
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	switch {
	case math.IsInf(lo, 1):
		return ""
	case lo == hi:
		return fmt.Sprintf("%s per %s.", count(int(lo), "run"), per)
	}
	return fmt.Sprintf("%g to %g runs per %s.", lo, hi, per)
}

// sameValue reports whether a and b read as the same number, or the same
// duration.
func sameValue(a, b string) bool {
	if x, err := strconv.ParseFloat(a, 64); err == nil {
		y, err := strconv.ParseFloat(b, 64)
		return err == nil && x == y
	}
	x, err := time.ParseDuration(a)
	if err != nil {
		return false
	}
	y, err := time.ParseDuration(b)
	return err == nil && x == y
}

// scaleAll multiplies every value of vs by factor, in place.
func scaleAll(vs []float64, factor float64) {
	for i := range vs {
		vs[i] *= factor
	}
}

func distinctSorted(vs []float64) []float64 {
	out := slices.Clone(vs)
	slices.Sort(out)
	return slices.Compact(out)
}

func nans(n int) []float64 {
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = math.NaN()
	}
	return vs
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
