package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strings"
)

// CurveColumns are the onset curve's CSV columns (boundary --over's
// output) after the columns of its Over keys, the first of which is the
// curve's x axis:
//
//	key               the bisected key
//	safe, violating   the measured bracket: the last value probed that was
//	                  safe on every seed and the first that violated on one
//	                  (empty where the verdict does not flip in the range)
//	verdict           "flips", or what both ends showed
//	tol               the bisection's tolerance: the bracket is at most this wide
//	seeds, first_seed the seeds each probe ran (first_seed to first_seed+seeds−1)
//	probes, runs      values probed and runs made
//	analytic_onset    the closed form's value for a typical hold (empty where it has none)
//	analytic_low, analytic_high   the closed form's range (empty where it has none)
//	analytic_formula  the closed form, as boundary prints it
//
// Values are in the key's units as its files write them: a number (ppm for
// nodes.clock.rate_ppm), or a duration with a unit.
var CurveColumns = []string{"key", "safe", "violating", "verdict", "tol", "seeds", "first_seed", "probes", "runs", "analytic_onset", "analytic_low", "analytic_high", "analytic_formula"}

// CurveFlips is the verdict of a curve row whose bracket was found.
const CurveFlips = "flips"

// CurveRow is one row of an onset curve, its cells as written: At are the
// Over keys' values, the rest CurveColumns' in order. Line is the file
// line a row was read from (0 for a row to write).
type CurveRow struct {
	At                            []string
	Key, Safe, Violating, Verdict string
	Tol, Seeds, FirstSeed         string
	Probes, Runs                  string
	Onset, Low, High, Formula     string
	Line                          int
}

func (r CurveRow) cells() []string {
	return append(append([]string(nil), r.At...), r.Key, r.Safe, r.Violating, r.Verdict, r.Tol, r.Seeds, r.FirstSeed,
		r.Probes, r.Runs, r.Onset, r.Low, r.High, r.Formula)
}

// Curve is an onset curve: its Over keys, the first the x axis, and its
// rows, each bisecting one Key.
type Curve struct {
	Path string
	Over []string
	Key  string
	Rows []CurveRow
}

// WriteCurve writes an onset curve as CSV: a header of the Over keys and
// CurveColumns, then one row per point in order.
func WriteCurve(w io.Writer, over []string, rows []CurveRow) error {
	cw := csv.NewWriter(w)
	cw.Write(append(append([]string(nil), over...), CurveColumns...))
	for _, r := range rows {
		cw.Write(r.cells())
	}
	cw.Flush()
	return cw.Error()
}

// curveRequired are the columns a curve's reader needs; first_seed,
// probes, runs and analytic_formula may be missing (an older file).
var curveRequired = []string{"safe", "violating", "verdict", "seeds", "tol", "analytic_onset", "analytic_low", "analytic_high"}

// ReadCurve reads and checks an onset curve's CSV: its header must be the
// Over keys followed by the columns WriteCurve writes, and every row must
// bisect the same key.
func ReadCurve(path string) (*Curve, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
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
	for _, name := range curveRequired {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("%s: the header has no %s column: is it boundary --over's output?", path, name)
		}
	}
	cell := func(rec []string, name string) string {
		if i, ok := col[name]; ok {
			return rec[i]
		}
		return ""
	}
	c := &Curve{Path: path, Over: head[:k]}
	for i, rec := range recs[1:] {
		row := CurveRow{At: rec[:k], Key: rec[k], Line: i + 2,
			Safe: cell(rec, "safe"), Violating: cell(rec, "violating"), Verdict: cell(rec, "verdict"), Tol: cell(rec, "tol"),
			Seeds: cell(rec, "seeds"), FirstSeed: cell(rec, "first_seed"), Probes: cell(rec, "probes"), Runs: cell(rec, "runs"),
			Onset: cell(rec, "analytic_onset"), Low: cell(rec, "analytic_low"), High: cell(rec, "analytic_high"), Formula: cell(rec, "analytic_formula")}
		if c.Key == "" {
			c.Key = row.Key
		} else if row.Key != c.Key {
			return nil, fmt.Errorf("%s:%d: key %s, but line 2 bisects %s: one curve bisects one key", path, row.Line, row.Key, c.Key)
		}
		c.Rows = append(c.Rows, row)
	}
	return c, nil
}
