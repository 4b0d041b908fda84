package sweeprun

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// ColumnKind is what one of the results or raw file's own columns holds;
// package results defines it (Kind) beside the columns.
type ColumnKind = results.Kind

// Column returns the kind of a column the results or raw files write;
// ok is false for any other column (a spec's keys, replay, the extra
// columns of compare --sweep).
func Column(name string) (k ColumnKind, ok bool) { return results.KindOf(name) }

// countForm and numberForm are the forms the files write counts and
// numbers in (strconv.Itoa; num: at most six decimals, no trailing zeros).
var (
	countForm  = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	numberForm = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.[0-9]{0,5}[1-9])?$`)
)

// CheckCell returns an error if cell is not a value a sweep writes in
// column col: in the column's form (a count as 12; a number as 0.05 or
// 123.456789, never 1e308, 0x10, -0 or 5.0) and in its range. Columns it
// does not know (a spec's keys) pass.
func CheckCell(col, cell string) error {
	k, ok := Column(col)
	if !ok {
		return nil
	}
	if cell == "" {
		if k.Empty {
			return nil
		}
		return fmt.Errorf("is empty; it must be %s", k.What)
	}
	form := numberForm
	if k.Integer {
		form = countForm
	}
	if !form.MatchString(cell) {
		return fmt.Errorf("must be %s written as a sweep writes it (%s), got %q", k.What, pick(k.Integer, "12", "0.05"), cell)
	}
	v, err := strconv.ParseFloat(cell, 64)
	if err != nil {
		return fmt.Errorf("must be %s, got %q", k.What, cell)
	}
	if col == "seed" { // a uint64: past float64's exact integers
		if _, err := strconv.ParseUint(cell, 10, 64); err != nil {
			return fmt.Errorf("must be a seed, a whole number from 0 to %d, got %q", uint64(math.MaxUint64), cell)
		}
		return nil
	}
	if err := k.Check(v); err != nil {
		return err
	}
	return nil
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// checkRow checks every cell of a row under header, naming the first bad
// one by its column.
func checkRow(header, row []string) error {
	for i, cell := range row {
		if i >= len(header) {
			break
		}
		if err := CheckCell(strings.TrimSpace(header[i]), cell); err != nil {
			return fmt.Errorf("column %s %w", header[i], err)
		}
	}
	return nil
}
