package sweeprun

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// Aggregate gathers one point's runs made outside a sweep's pool (compare
// --sweep makes them for real) into the results file's cells, the same
// way a sweep aggregates its own, so the two files cannot part in their
// columns or their arithmetic.
type Aggregate struct{ a agg }

// Add counts one run of the point; its report's durations must already
// be in the scenario's time (a real run's multiplied back by its scale).
func (g *Aggregate) Add(seed uint64, rep *check.Report) {
	r := reportRecord(seed, rep)
	g.a.add(&r)
}

// Runs is the number of runs added.
func (g *Aggregate) Runs() int { return g.a.runs }

// ResultHeader is the results file's header for spec before any extra
// columns: point, the key columns (sweep.KeyTable), then ResultColumns.
func ResultHeader(keys *sweep.KeyTable) []string {
	return slices.Concat([]string{"point"}, keys.Columns(), ResultColumns)
}

// PointRow is one row of a results file that WriteResults writes: a
// point, its runs, and the cells of the extra columns.
type PointRow struct {
	Point sweep.Point
	Runs  *Aggregate
	Extra []string
}

// WriteResults writes rows, in the order given, as a results file of spec
// (ResultHeader, the extra columns, then RateColumns) to out through package
// atomicfile; direct says it was written in place (a device). A row
// without runs is an error: a rate of 0 of 0 has no meaning.
func WriteResults(out string, spec *sweep.Spec, extra []string, rows []PointRow) (direct bool, err error) {
	f, err := createAtomic(out)
	if err != nil {
		return false, err
	}
	keys := spec.Keys()
	f.csv.Write(slices.Concat(ResultHeader(keys), extra, RateColumns))
	for _, r := range rows {
		if r.Runs == nil || r.Runs.Runs() == 0 {
			f.abort()
			return false, fmt.Errorf("point %d has no runs to write", r.Point.Index)
		}
		length, err := runLength(spec, r.Point)
		if err != nil {
			f.abort()
			return false, err
		}
		f.csv.Write(slices.Concat([]string{strconv.Itoa(r.Point.Index)}, keys.Cells(r.Point), r.Runs.a.row(), r.Extra, r.Runs.a.rateRow(length)))
	}
	if err := f.commit(); err != nil {
		return false, err
	}
	return f.Direct(), nil
}
