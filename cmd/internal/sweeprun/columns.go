package sweeprun

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// ColumnKind is what one of the results or raw file's own columns holds
// (see the package doc): the range its values must lie in, whether they
// are whole numbers, and whether a cell may be empty.
type ColumnKind struct {
	Min, Max float64
	Integer  bool // a count: 0, 1, 2, ...
	Empty    bool // a cell may be empty (no interval with one run, no p99 without a success)
	What     string
}

var (
	countKind = ColumnKind{Min: 0, Max: math.Inf(1), Integer: true, What: "a count, a whole number from 0"}
	rateKind  = ColumnKind{Min: 0, Max: 1, What: "a fraction of runs, from 0 to 1"}
	// Every mean, ratio, duration and interval bound the files hold is of
	// values that are never negative (interval lows are clamped at 0).
	amountKind = ColumnKind{Min: 0, Max: math.Inf(1), Empty: true, What: "a number from 0"}
)

// rateColumns are the columns that hold a fraction of runs.
var rateColumns = map[string]bool{
	"mutex_violation_rate": true, "mutex_ci_low": true, "mutex_ci_high": true,
	"resource_violation_rate": true, "resource_ci_low": true, "resource_ci_high": true,
}

// countColumns are the columns that hold whole numbers from 0.
var countColumns = map[string]bool{
	"point": true, "replicate": true, "seed": true, "runs": true,
	"mutex_violation_runs": true, "resource_violation_runs": true,
	"mutex_violations": true, "lost_updates": true, "stale_writes_accepted": true, "stale_writes_rejected": true,
	"writes_accepted": true, "acquire_attempts": true, "acquire_successes": true, "acquire_failures": true,
}

// Column returns the kind of a column the results or raw files write;
// ok is false for any other column (a spec's keys, replay, the extra
// columns of compare --sweep).
func Column(name string) (k ColumnKind, ok bool) {
	switch {
	case rateColumns[name]:
		return rateKind, true
	case countColumns[name]:
		return countKind, true
	case name == "replay":
		return ColumnKind{}, false
	}
	for _, c := range ResultColumns {
		if c == name {
			return amountKind, true
		}
	}
	for _, c := range RawColumns {
		if c == name {
			return amountKind, true
		}
	}
	return ColumnKind{}, false
}

// Check returns an error saying what is wrong with value v of a column of
// this kind, or nil if it is in range.
func (k ColumnKind) Check(v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("must be %s, got %g", k.What, v)
	case v < k.Min || v > k.Max:
		return fmt.Errorf("must be %s, got %g", k.What, v)
	case k.Integer && v != math.Trunc(v):
		return fmt.Errorf("must be %s, got %g", k.What, v)
	}
	return nil
}

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
