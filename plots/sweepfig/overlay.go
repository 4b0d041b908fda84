package sweepfig

import (
	"fmt"
	"math"
	"strings"

	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// Overlay draws the simulator's lines from sim, as Lines does, and over
// them, as rings with their intervals, the rows of the table at realPath
// that compare --sweep wrote, each over the line of its s.Series value.
// The real table is narrowed by s.Where's conditions on the keys it has
// (KeepWhere).
func Overlay(sim *results.Table, realPath string, s Spec) (Drawn, error) {
	lt, err := readLines(sim, s)
	if err != nil {
		return Drawn{}, err
	}
	real, err := results.ReadTable(realPath)
	if err != nil {
		return Drawn{}, fmt.Errorf("--overlay: %w", err)
	}
	real.KeepWhere(s.Where)
	over, unlined, err := lt.overlays(real)
	if err != nil {
		return Drawn{}, err
	}
	opts := lt.options()
	opts.Caption = strings.TrimSpace(opts.Caption + " " + overlayCaption(real, s.Y))
	fig, err := plots.LineOverlayPlot(opts, lt.series, over)
	if err != nil {
		return Drawn{}, err
	}
	n := 0
	for _, o := range over {
		n += len(o.Points)
	}
	return Drawn{Fig: fig, Lines: len(lt.series), RealPoints: n, Skipped: lt.skipped, Unlined: unlined}, nil
}

// realColumns are the real table's columns, read as the simulator's are.
type realColumns struct {
	xs, ys, lows, highs []float64
	mode, series        int // column indexes; series is -1 without --series
}

// readReal reads the columns of the real table that an overlay draws,
// checking that its x reads as the simulator's does.
func (lt *lineTable) readReal(rt *results.Table) (realColumns, error) {
	s := lt.s
	rc := realColumns{series: -1}
	var err error
	if rc.mode, err = rt.Column("mode", "--overlay, which takes compare --sweep's CSV"); err != nil {
		return rc, err
	}
	wrap := func(err error) error { return fmt.Errorf("--overlay: %w", err) }
	_, xKind, err := lt.t.Numeric(s.X, "--x", false)
	if err != nil {
		return rc, err
	}
	xs, rxKind, err := rt.Numeric(s.X, "--x", false)
	if err != nil {
		return rc, wrap(err)
	}
	if rc.ys, _, err = readMeasure(rt, s.Y, "--y"); err != nil {
		return rc, wrap(err)
	}
	if rxKind != xKind {
		return rc, fmt.Errorf("--overlay: %s: column %q reads as %s, but as %s in %s", rt.Path, s.X, rxKind, xKind, lt.t.Path)
	}
	rc.xs = xs
	rc.lows, rc.highs = nans(len(rt.Rows)), nans(len(rt.Rows))
	if lowName, highName := results.IntervalColumns(s.Y); rt.Has(lowName, highName) {
		if rc.lows, rc.highs, err = readInterval(rt, s.Y); err != nil {
			return rc, wrap(err)
		}
	}
	if s.Series != "" {
		if rc.series, err = rt.Column(s.Series, "--series"); err != nil {
			return rc, wrap(err)
		}
	}
	return rc, nil
}

// overlays groups the real table's rows by their --series value into one
// overlay per line, named as the line with ", real" after it; x and y are
// scaled as the simulator's lines are, so that both read in the same
// units. A row that is not a real run is an error naming its line; a row
// whose series value has no line drawn (--where left it out) is left out
// and counted in unlined.
func (lt *lineTable) overlays(rt *results.Table) (out []plots.Overlay, unlined int, err error) {
	rc, err := lt.readReal(rt)
	if err != nil {
		return nil, 0, err
	}
	simKeys := lt.t.Distinct(lt.s.Series) // as the simulator's table writes them
	names := map[string]bool{}
	for _, ser := range lt.series {
		names[ser.Name] = true
	}
	at := map[string]int{} // line name → index in out
	for r, row := range rt.Rows {
		if m := strings.TrimSpace(row[rc.mode]); m != "real" {
			return nil, 0, fmt.Errorf("--overlay: %s:%d: mode is %q; an overlay draws real runs (mode real, as compare --sweep writes)", rt.Path, rt.Lines[r], m)
		}
		if math.IsNaN(rc.ys[r]) {
			continue
		}
		name := lt.legend(simSpelling(rc, row, simKeys))
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
		fx, fy := lt.xScale.factor, lt.yScale.factor
		out[i].Points = append(out[i].Points, plots.Point{X: rc.xs[r] * fx, Y: rc.ys[r] * fy, Low: rc.lows[r] * fy, High: rc.highs[r] * fy})
	}
	if len(out) == 0 {
		return nil, 0, fmt.Errorf("--overlay: %s: none of its rows is over a line drawn (%d with a --series value that has no line, %d without a value of %s)", rt.Path, unlined, len(rt.Rows)-unlined, lt.s.Y)
	}
	return out, unlined, nil
}

// simSpelling is a real row's --series value as the simulator's table
// spells it (1s for 1000ms), so that the line names match; "" without
// --series.
func simSpelling(rc realColumns, row []string, simKeys []string) string {
	if rc.series < 0 {
		return ""
	}
	k := strings.TrimSpace(row[rc.series])
	for _, sk := range simKeys {
		if sk == k || results.SameValue(sk, k) {
			return sk
		}
	}
	return k
}
