package sweepfig

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// unitFrom names, for the columns whose values are in another key's
// units, the column that names that key: sweep --analytic's onsets
// (analytic_key) and the onset curve's bracket and prediction (key).
var unitFrom = map[string]string{
	"analytic_onset_low": "analytic_key", "analytic_onset_high": "analytic_key",
	"safe": "key", "violating": "key", "tol": "key",
	"analytic_onset": "key", "analytic_low": "key", "analytic_high": "key",
}

// impliedKey is the key whose unit col carries when its own name gives
// none (see unitFrom), when every row names the same one; else "".
func impliedKey(t *results.Table, col string) string {
	from, ok := unitFrom[col]
	if !ok {
		return ""
	}
	key, _ := t.Constant(from)
	return key
}

// caption says what a figure's intervals are and how many runs stand
// behind each point (or cell, per), for column col drawn from rows;
// shown says whether the intervals are drawn.
func caption(t *results.Table, col string, shown bool, rows []int, per string) string {
	var b strings.Builder
	low, _ := results.IntervalColumns(col)
	one, many := IntervalMethod(col)
	switch {
	case shown && per == "cell":
		fmt.Fprintf(&b, "Under each value: its %s.", one)
	case shown:
		fmt.Fprintf(&b, "Bars: %s.", many)
	case t.Has(low):
		b.WriteString("No interval is shown (--annotate ci writes them).")
	case per == "cell":
		fmt.Fprintf(&b, "No interval: the CSV has none for %s.", col)
	default:
		fmt.Fprintf(&b, "No bars: the CSV has no interval for %s.", col)
	}
	b.WriteString(" ")
	b.WriteString(runsPer(t, rows, per))
	return b.String()
}

// selection says which rows a figure of s draws beyond what its axes and
// legend show: the --where conditions, with the values the rows drawn
// have, as the CSV writes them ("Selected: lock.ttl=1s,30s." for --where
// lock.ttl=1s,30000ms), and
// the settings that hold one value in every row drawn ("Fixed:
// nodes.count=5."), the scenario keys (dotted columns) that no axis,
// series or --where names. A figure then says what it is of when it is
// shown without its command. A key left to the base in every row is not
// named: the CSV does not say its value.
func selection(t *results.Table, s Spec, rows []int) string {
	named := map[string]bool{s.X: true, s.Y: true, s.Z: true, s.Series: true}
	var parts, where, fixed []string
	for _, c := range s.Where {
		where = append(where, c.Key+"="+strings.Join(valuesOver(t, c.Key, rows), ","))
		named[c.Key] = true
	}
	if len(where) > 0 {
		parts = append(parts, "Selected: "+strings.Join(where, "; ")+".")
	}
	for _, h := range t.Header {
		if key, secs := durationKey(h); secs && t.Has(key) {
			continue // lock.ttl_s says lock.ttl again
		}
		if strings.Contains(h, ".") && !named[h] {
			if v, ok := constantOver(t, h, rows); ok {
				fixed = append(fixed, h+"="+v)
			}
		}
	}
	if len(fixed) > 0 {
		parts = append(parts, "Fixed: "+strings.Join(fixed, ", ")+".")
	}
	return strings.Join(parts, " ")
}

// valuesOver are the values column col holds in rows, in the order they
// first appear.
func valuesOver(t *results.Table, col string, rows []int) []string {
	var vs []string
	for _, r := range rows {
		if c := t.Cell(r, col); !slices.Contains(vs, c) {
			vs = append(vs, c)
		}
	}
	return vs
}

// constantOver is the value column col holds in every one of rows, if it
// holds one (an empty cell is the base's value, which the CSV does not
// give).
func constantOver(t *results.Table, col string, rows []int) (string, bool) {
	v := ""
	for i, r := range rows {
		c := t.Cell(r, col)
		if c == "" || i > 0 && c != v {
			return "", false
		}
		v = c
	}
	return v, v != ""
}

// withSelection adds the selection sentence to a caption.
func withSelection(caption string, t *results.Table, s Spec, rows []int) string {
	return strings.TrimSpace(caption + " " + selection(t, s, rows))
}

// readMeasure reads col, the measure a figure draws, named role in an
// error ("--y"): an empty cell is a point without that measure ("empty if
// none"). It refuses a runs column that the caption would read as a count
// of runs but that is not one: a negative count drew "-3 to 20 runs per
// point" and a word "the runs column of line 6 is ..." under a figure.
func readMeasure(t *results.Table, col, role string) ([]float64, results.ValueKind, error) {
	vs, kind, err := t.Numeric(col, role, true)
	if err != nil {
		return nil, 0, err
	}
	if t.Has("runs") {
		if _, _, err := t.Numeric("runs", "the runs behind each point, for the caption", false); err != nil {
			return nil, 0, err
		}
	}
	return vs, kind, nil
}

// readBounds reads the interval columns of col, named role in an error
// ("the interval of --y"): an empty cell is a point without an interval.
func readBounds(t *results.Table, col, role string) (lows, highs []float64, err error) {
	lowName, highName := results.IntervalColumns(col)
	if lows, _, err = t.Numeric(lowName, role, true); err != nil {
		return nil, nil, err
	}
	if highs, _, err = t.Numeric(highName, role, true); err != nil {
		return nil, nil, err
	}
	return lows, highs, nil
}

// runsPer says how many runs stand behind each of rows: from the runs
// column ("400 runs per point", "20 to 400 runs per point"); a raw file
// (a seed per row) has one.
func runsPer(t *results.Table, rows []int, per string) string {
	if !t.Has("runs") {
		if t.Has("seed") {
			return "One run per " + per + "."
		}
		return "The CSV does not say how many runs stand behind a " + per + " (it has no runs column)."
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		v, err := strconv.ParseFloat(t.Cell(r, "runs"), 64)
		if err != nil {
			i, _ := t.Index("runs")
			return fmt.Sprintf("The runs column of line %d is %q, not a number of runs.", t.Lines[r], t.Rows[r][i])
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	switch {
	case math.IsInf(lo, 1):
		return ""
	case lo == hi:
		return fmt.Sprintf("%s per %s.", plural(int(lo), "run"), per)
	}
	return fmt.Sprintf("%g to %g runs per %s.", lo, hi, per)
}

// overlayCaption says what the rings are: how many real runs stand behind
// each, at what scale their times ran, and what their bars are.
func overlayCaption(t *results.Table, y string) string {
	parts := []string{"Rings: real runs (compare --sweep)"}
	if t.Has("runs") {
		parts = append(parts, strings.TrimSuffix(runsPer(t, t.AllRows(), "ring"), "."))
	}
	if t.Has("scale") {
		parts = append(parts, "their times divided by "+spread(t, "scale"))
	}
	s := strings.Join(parts, ", ")
	if low, _ := results.IntervalColumns(y); t.Has(low) {
		_, many := IntervalMethod(y)
		s += "; their bars: " + many
	}
	return s + "."
}

// spread is a numeric column's range as text: "4", or "4 to 8".
func spread(t *results.Table, col string) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for r := range t.Rows {
		v, err := strconv.ParseFloat(t.Cell(r, col), 64)
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

// plural says "1 run", "400 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
