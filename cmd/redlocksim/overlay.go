package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/redlocksim/redlocksim/plots"
)

// overlayFigure is plot --overlay: the simulator's lines from t, and over
// them, as rings with their intervals, the rows of the real CSV that
// compare --sweep wrote (f.overlay), each over the line of its --series
// value. --where applies to both files.
func overlayFigure(t *table, f *plotFlags, l labeller) (figure, error) {
	if f.heatmap {
		return figure{}, fmt.Errorf("--overlay draws over lines, not a --heatmap")
	}
	opts, series, skipped, err := lineSeries(t, f, l)
	if err != nil {
		return figure{}, err
	}
	rt, err := readTable(f.overlay)
	if err != nil {
		return figure{}, fmt.Errorf("--overlay: %w", err)
	}
	if err := rt.keepWhere(f.where); err != nil {
		return figure{}, fmt.Errorf("--overlay: %w", err)
	}
	over, unlined, err := overlays(t, rt, f, l, series)
	if err != nil {
		return figure{}, err
	}
	opts.Caption = strings.TrimSpace(opts.Caption + " " + rt.overlayCaption(f.y))
	fig, err := plots.LineOverlayPlot(opts, series, over)
	if err != nil {
		return figure{}, err
	}
	n := 0
	for _, o := range over {
		n += len(o.Points)
	}
	note := ""
	if skipped > 0 {
		note = fmt.Sprintf("; %s without a value of %s left out", count(skipped, "row"), f.y)
	}
	if unlined > 0 {
		note += fmt.Sprintf("; %s of %s without a line left out", count(unlined, "real row"), f.series)
	}
	return figure{fig, plots.LineWidth, plots.LineHeight, count(len(series), "line") + ", " + count(n, "real point") + note}, nil
}

// overlays groups the real table's rows by their --series value into one
// overlay per line, named as the line with ", real" after it; x and y are
// scaled as the simulator's table scales them, so that both read in the
// same units. A row that is not a real run is an error naming its line; a row whose series value has no line drawn
// (--where left it out) is left out and counted in unlined.
func overlays(sim, rt *table, f *plotFlags, l labeller, drawn []plots.Series) (over []plots.Overlay, unlined int, err error) {
	mi, err := rt.column("mode", "--overlay, which takes compare --sweep's CSV")
	if err != nil {
		return nil, 0, err
	}
	simX, xKind, err := sim.numericColumn(f.x, "--x", false)
	if err != nil {
		return nil, 0, err
	}
	simY, yKind, err := sim.numericColumn(f.y, "--y", true)
	if err != nil {
		return nil, 0, err
	}
	xScale := l.scaleOf(f.x, xKind, simX, sim.impliedKey(f.x))
	yScale := l.scaleOf(f.y, yKind, simY, sim.impliedKey(f.y))
	xs, rxKind, err := rt.numericColumn(f.x, "--x", false)
	if err != nil {
		return nil, 0, fmt.Errorf("--overlay: %w", err)
	}
	ys, _, err := rt.numericColumn(f.y, "--y", true)
	if err != nil {
		return nil, 0, fmt.Errorf("--overlay: %w", err)
	}
	if rxKind != xKind {
		return nil, 0, fmt.Errorf("--overlay: %s: column %q reads as %s, but as %s in %s", rt.path, f.x, kindWord(rxKind), kindWord(xKind), sim.path)
	}
	lows, highs := nans(len(rt.rows)), nans(len(rt.rows))
	if lowName, highName := ciColumns(f.y); hasColumns(rt, lowName, highName) {
		if lows, _, err = rt.numericColumn(lowName, "the interval of --y", true); err != nil {
			return nil, 0, fmt.Errorf("--overlay: %w", err)
		}
		if highs, _, err = rt.numericColumn(highName, "the interval of --y", true); err != nil {
			return nil, 0, fmt.Errorf("--overlay: %w", err)
		}
	}
	// The simulator's series keys, as its table writes them, and the
	// scale its legend uses.
	var simKeys []string
	var seriesKind colKind = kindText
	var seriesScale scale
	si, ri := -1, -1
	if f.series != "" {
		if si, err = sim.column(f.series, "--series"); err != nil {
			return nil, 0, err
		}
		if ri, err = rt.column(f.series, "--series"); err != nil {
			return nil, 0, fmt.Errorf("--overlay: %w", err)
		}
		var vals []float64
		vals, seriesKind = sim.numbers(si, true)
		seriesScale = l.scaleOf(f.series, seriesKind, vals, sim.impliedKey(f.series))
		for _, row := range sim.rows {
			simKeys = append(simKeys, strings.TrimSpace(row[si]))
		}
	}
	lineName := func(k string) string {
		switch {
		case f.series == "":
			return l.name(f.y)
		case k == "":
			return l.name(f.series) + " as in the base scenario"
		}
		return l.legend(f.series, k, seriesKind, seriesScale)
	}
	names := map[string]bool{}
	for _, s := range drawn {
		names[s.Name] = true
	}
	var out []plots.Overlay
	at := map[string]int{} // line name → index in out
	for r, row := range rt.rows {
		if m := strings.TrimSpace(row[mi]); m != "real" {
			return nil, 0, fmt.Errorf("--overlay: %s:%d: mode is %q; an overlay draws real runs (mode real, as compare --sweep writes)", rt.path, rt.lines[r], m)
		}
		if math.IsNaN(ys[r]) {
			continue
		}
		k := ""
		if ri >= 0 {
			k = strings.TrimSpace(row[ri])
			for _, sk := range simKeys {
				if sk == k || sameValue(sk, k) {
					k = sk // the simulator's spelling, so the names match
					break
				}
			}
		}
		name := lineName(k)
		if !names[name] {
			unlined++
			continue
		}
		i, ok := at[name]
		if !ok {
			i = len(out)
			at[name] = i
			out = append(out, plots.Overlay{Series: name, Name: name + ", real"})
		}
		fy := yScale.factor
		out[i].Points = append(out[i].Points, plots.Point{X: xs[r] * xScale.factor, Y: ys[r] * fy, Low: lows[r] * fy, High: highs[r] * fy})
	}
	if len(out) == 0 {
		return nil, 0, fmt.Errorf("--overlay: %s: none of its rows is over a line drawn (%d with a --series value that has no line, %d without a value of %s)", rt.path, unlined, len(rt.rows)-unlined, f.y)
	}
	return out, unlined, nil
}

func hasColumns(t *table, names ...string) bool {
	for _, n := range names {
		if _, ok := t.index[n]; !ok {
			return false
		}
	}
	return true
}

func kindWord(k colKind) string {
	switch k {
	case kindNumber:
		return "numbers"
	case kindDuration:
		return "durations"
	}
	return "text"
}

// overlayCaption says what the rings are: how many real runs stand behind
// each, at what scale their times ran, and what their bars are.
func (t *table) overlayCaption(y string) string {
	parts := []string{"Rings: real runs (compare --sweep)"}
	if _, ok := t.index["runs"]; ok {
		parts = append(parts, strings.TrimSuffix(t.runsPer(allRows(t), "ring"), "."))
	}
	if i, ok := t.index["scale"]; ok {
		parts = append(parts, "their times divided by "+spread(t, i))
	}
	s := strings.Join(parts, ", ")
	if low, _ := ciColumns(y); hasColumns(t, low) {
		_, many := intervalMethod(y)
		s += "; their bars: " + many
	}
	return s + "."
}

func allRows(t *table) []int {
	rs := make([]int, len(t.rows))
	for i := range rs {
		rs[i] = i
	}
	return rs
}

// spread is a numeric column's range as text: "4", or "4 to 8".
func spread(t *table, i int) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range t.rows {
		v, err := strconv.ParseFloat(strings.TrimSpace(row[i]), 64)
		if err != nil {
			return "the scale column's values"
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo == hi {
		return strconv.FormatFloat(lo, 'g', -1, 64)
	}
	return strconv.FormatFloat(lo, 'g', -1, 64) + " to " + strconv.FormatFloat(hi, 'g', -1, 64)
}

// keepWhere keeps the rows that satisfy every --where condition on a key
// the table has, as plot's filter reads them (values of one key OR-ed, keys
// AND-ed, 1s matching 1000ms), but a value no row has is no error: the
// conditions pick the simulator's lines, and the real file may hold fewer
// points than the lines do.
func (t *table) keepWhere(where []string) error {
	for _, w := range where {
		key, list, _ := strings.Cut(w, "=")
		i, ok := t.index[strings.TrimSpace(key)]
		if !ok {
			continue
		}
		wants, err := splitValues(list)
		if err != nil {
			return err
		}
		var rows [][]string
		var lines []int
		for r, row := range t.rows {
			cell := strings.TrimSpace(row[i])
			if slices.ContainsFunc(wants, func(w string) bool { return w == cell || sameValue(cell, w) }) {
				rows, lines = append(rows, row), append(lines, t.lines[r])
			}
		}
		t.rows, t.lines = rows, lines
	}
	return nil
}
