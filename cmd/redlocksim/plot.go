package main

import (
	"cmp"
	"encoding/csv"
	"errors"
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

func init() {
	register("plot", "draw a sweep's results", cmdPlot)
}

// plotFlags are plot's options.
type plotFlags struct {
	x, y, z, series, out, title string
	logX, logY, heatmap         bool
	labels, where               []string
	annotate                    string
}

func parsePlotFlags(args []string, stderr io.Writer) (*plotFlags, []string, error) {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: redlocksim plot RESULTS.csv --x KEY --y COLUMN [--series KEY] --out FILE [flags]
       redlocksim plot RESULTS.csv --heatmap --x KEY --y KEY --z COLUMN --out FILE

Draws a sweep's CSV: one line per value of --series (or a single line),
with the confidence interval of the y column as bars (mutex_violation_rate
takes mutex_ci_low and mutex_ci_high, resource_violation_rate the
resource_ci_ pair, any other COLUMN its COLUMN_ci_low and COLUMN_ci_high
if present); or, with --heatmap, a grid of --z over two keys. Durations
("10s") are plotted in seconds. FILE ends in .svg, .png or .pdf.

Axes, titles and legends name keys and columns in words with their units
("server clock rate (ppm)", "mutex violation rate"); --label changes one.
Each line has its own colour and dash pattern. Lines measured at the same
x are drawn a few points apart (at most 12 between the first and the last),
centred on the x, so that their interval bars do not hide each other.
With --logy a rate of zero is drawn at a floor a decade below the smallest
positive value, and the y axis says where. A heatmap keeps the true spacing
of numeric values; a key whose values are words gets one equal cell each.

flags:
`)
		fs.PrintDefaults()
	}
	f := &plotFlags{}
	fs.StringVar(&f.x, "x", "", "the sweep `KEY` across (a dotted scenario key such as lock.ttl)")
	fs.StringVar(&f.y, "y", "", "the `COLUMN` to plot up (with --heatmap: the KEY up)")
	fs.StringVar(&f.z, "z", "", "with --heatmap, the `COLUMN` that colours the cells")
	fs.StringVar(&f.series, "series", "", "draw one line per value of `KEY`")
	fs.StringVar(&f.out, "out", "", "write the figure to `FILE` (.svg, .png or .pdf)")
	fs.StringVar(&f.title, "title", "", "the figure's title (default: from the keys)")
	fs.BoolVar(&f.logX, "logx", false, "logarithmic x axis")
	fs.BoolVar(&f.logY, "logy", false, "logarithmic y axis")
	fs.BoolVar(&f.heatmap, "heatmap", false, "draw a heatmap of --z over --x and --y")
	fs.Func("label", "name a key or column on the figure, `key=text` (repeatable)", func(s string) error {
		f.labels = append(f.labels, s)
		return nil
	})
	fs.Func("where", "keep only the rows where `key=value` (repeatable; all must hold)", func(s string) error {
		f.where = append(f.where, s)
		return nil
	})
	fs.StringVar(&f.annotate, "annotate", "", "with --heatmap, `ci` writes each cell's 95% interval under its value")
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, nil, err
	}
	return f, rest, nil
}

func cmdPlot(args []string, stdout, stderr io.Writer) int {
	f, rest, err := parsePlotFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := runPlot(f, rest, stdout); err != nil {
		fmt.Fprintf(stderr, "redlocksim plot: %v\n", err)
		return 2
	}
	return 0
}

func runPlot(f *plotFlags, rest []string, stdout io.Writer) error {
	if len(rest) != 1 {
		return fmt.Errorf("give exactly one results CSV, got %d arguments", len(rest))
	}
	var missing []string
	for _, fl := range []struct{ name, v string }{{"--x", f.x}, {"--y", f.y}, {"--out", f.out}} {
		if fl.v == "" {
			missing = append(missing, fl.name)
		}
	}
	if f.heatmap && f.z == "" {
		missing = append(missing, "--z")
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
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
			return fmt.Errorf("%s cannot be used with --heatmap", strings.Join(extra, ", "))
		}
	} else if f.z != "" {
		return errors.New("--z needs --heatmap")
	}
	switch {
	case f.annotate != "" && f.annotate != "ci":
		return fmt.Errorf("--annotate %q: the one annotation is ci", f.annotate)
	case f.annotate != "" && !f.heatmap:
		return errors.New("--annotate needs --heatmap")
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
	if f.heatmap {
		g, err := heatmapGrid(tab, f, labels)
		if err != nil {
			return err
		}
		p, err := plots.Heatmap(g)
		if err != nil {
			return err
		}
		if err := saveFigure(p, f.out, plots.HeatmapWidth, plots.HeatmapHeight); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%d × %d cells)\n", f.out, len(g.Xs), len(g.Ys))
		return nil
	}
	opts, series, skipped, err := lineSeries(tab, f, labels)
	if err != nil {
		return err
	}
	p, err := plots.LinePlot(opts, series)
	if err != nil {
		return err
	}
	if err := saveFigure(p, f.out, plots.LineWidth, plots.LineHeight); err != nil {
		return err
	}
	note := ""
	if skipped > 0 {
		note = fmt.Sprintf("; %s without a value of %s left out", count(skipped, "row"), f.y)
	}
	fmt.Fprintf(stdout, "wrote %s (%s%s)\n", f.out, count(len(series), "line"), note)
	return nil
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
	return vs, kind, nil
}

// ciColumns names the companion interval columns of a y column.
func ciColumns(y string) (low, high string) {
	switch y {
	case "mutex_violation_rate":
		return "mutex_ci_low", "mutex_ci_high"
	case "resource_violation_rate":
		return "resource_ci_low", "resource_ci_high"
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
	if f.series != "" {
		si, err := t.column(f.series, "--series")
		if err != nil {
			return opts, nil, 0, err
		}
		var vals []float64
		vals, seriesKind = t.numbers(si, true)
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
	if seriesKind != kindText {
		slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(sortVal[a], sortVal[b]) }) // NaN (an empty cell) first
	} else {
		slices.Sort(keys)
	}

	var series []plots.Series
	skipped := 0
	for _, k := range keys {
		name := l.name(f.y)
		switch {
		case f.series != "" && k == "":
			name = l.name(f.series) + " as in the base scenario"
		case f.series != "":
			name = l.legend(f.series, k, seriesKind)
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
			s.Points = append(s.Points, plots.Point{X: xs[r], Y: ys[r], Low: lows[r], High: highs[r]})
		}
		if len(s.Points) > 0 {
			series = append(series, s)
		}
	}
	if len(series) == 0 {
		return opts, nil, 0, fmt.Errorf("%s: column %q is empty in every row", t.path, f.y)
	}
	opts = plots.LineOptions{
		Title:  f.title,
		XLabel: l.axis(f.x, xKind),
		YLabel: l.axis(f.y, yKind),
		LogX:   f.logX,
		LogY:   f.logY,
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
	var differ []string
	for i, h := range t.header {
		if strings.Contains(h, ".") && h != f.x && h != f.series && t.rows[a][i] != t.rows[b][i] {
			differ = append(differ, h)
		}
	}
	msg := fmt.Sprintf("%s: lines %d and %d are both at %s=%s in series %q",
		t.path, t.lines[a], t.lines[b], f.x, strings.TrimSpace(t.rows[a][t.index[f.x]]), series)
	if len(differ) > 0 {
		msg += fmt.Sprintf("; they differ in %s: pick one with --series or keep one with --where", strings.Join(differ, ", "))
	} else {
		msg += "; give --series to draw one line per value of another key"
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
	g.Xs = distinctSorted(xs)
	g.Ys = distinctSorted(ys)
	var lows, highs []float64
	if f.annotate == "ci" {
		lowName, highName := ciColumns(f.z)
		if lows, _, err = t.numericColumn(lowName, "the interval of --z", true); err != nil {
			return g, err
		}
		if highs, _, err = t.numericColumn(highName, "the interval of --z", true); err != nil {
			return g, err
		}
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
	for r := range t.rows {
		xi, _ := slices.BinarySearch(g.Xs, xs[r])
		yi, _ := slices.BinarySearch(g.Ys, ys[r])
		if prev := at[yi][xi]; prev >= 0 {
			return g, fmt.Errorf("%s: lines %d and %d are both at %s=%s, %s=%s",
				t.path, t.lines[prev], t.lines[r],
				f.x, strings.TrimSpace(t.rows[r][t.index[f.x]]), f.y, strings.TrimSpace(t.rows[r][t.index[f.y]]))
		}
		at[yi][xi] = r
		g.Z[yi][xi] = zs[r]
		if lows != nil {
			g.Low[yi][xi], g.High[yi][xi] = lows[r], highs[r]
		}
	}
	g.XLabel = l.axis(f.x, xKind)
	g.YLabel = l.axis(f.y, yKind)
	g.ZLabel = l.axis(f.z, zKind)
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

// filter keeps the rows where every key=value of where holds: the cell is
// the value as written, or both read as the same number or duration
// (20000 and 2e4, 1s and 1000ms).
func (t *table) filter(where []string) error {
	for _, w := range where {
		key, want, ok := strings.Cut(w, "=")
		key, want = strings.TrimSpace(key), strings.TrimSpace(want)
		if !ok || key == "" {
			return fmt.Errorf("--where wants key=value, like --where nodes.clock.rate_ppm=0, got %q", w)
		}
		i, err := t.column(key, "--where")
		if err != nil {
			return err
		}
		var rows [][]string
		var lines []int
		seen := map[string]bool{}
		var values []string
		for r, row := range t.rows {
			cell := strings.TrimSpace(row[i])
			if !seen[cell] {
				seen[cell] = true
				values = append(values, cell)
			}
			if cell == want || sameValue(cell, want) {
				rows = append(rows, row)
				lines = append(lines, t.lines[r])
			}
		}
		if len(rows) == 0 {
			return fmt.Errorf("%s: no row has %s=%s (it has %s)", t.path, key, want, strings.Join(values, ", "))
		}
		t.rows, t.lines = rows, lines
	}
	return nil
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
