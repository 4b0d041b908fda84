package sweep

import (
	"strconv"
	"time"
)

// SecondsSuffix ends the name of the column that gives a duration key's
// values in seconds: lock.ttl_s beside lock.ttl.
const SecondsSuffix = "_s"

// KeyTable is how a results file writes the keys its points vary: a
// column per key (Columns), each cell the point's value or, where the
// point leaves the key to the base, the base's (after [set]); and beside a
// key whose values are durations, KEY_s, the value in seconds, so that the
// column sorts and reads as a number ("10ms" and "1s" sort wrongly as
// text). A cell stays empty only where neither the point, [set] nor the
// base gives the key (it takes the model's default).
type KeyTable struct {
	spec    *Spec
	base    []string // the base's cell of each key, "" if none
	seconds []bool   // the key's values are durations
}

// Keys is the spec's KeyTable. It reads every point once.
func (s *Spec) Keys() *KeyTable {
	k := &KeyTable{spec: s, base: make([]string, len(s.Columns)), seconds: make([]bool, len(s.Columns))}
	durations := make([]int, len(s.Columns)) // cells that are durations, -1 once one is not
	count := func(c int, cell string) {
		switch {
		case cell == "" || durations[c] < 0:
		case isDuration(cell):
			durations[c]++
		default:
			durations[c] = -1
		}
	}
	for c, col := range s.Columns {
		if v, ok := s.Base.Value(col, s.Set...); ok {
			k.base[c] = Cell(v)
		}
		count(c, k.base[c])
	}
	for i := range s.NumPoints() {
		for c, cell := range s.Point(i).Cells {
			count(c, cell)
		}
	}
	for c := range s.Columns {
		k.seconds[c] = durations[c] > 0
	}
	return k
}

// isDuration reports whether a cell is a duration with a unit ("10ms"),
// not a plain number.
func isDuration(cell string) bool {
	if _, err := strconv.ParseFloat(cell, 64); err == nil {
		return false
	}
	_, err := time.ParseDuration(cell)
	return err == nil
}

// Columns are the key columns' names: each of the spec's Columns, and
// after a duration key its KEY_s.
func (k *KeyTable) Columns() []string {
	var out []string
	for c, col := range k.spec.Columns {
		out = append(out, col)
		if k.seconds[c] {
			out = append(out, col+SecondsSuffix)
		}
	}
	return out
}

// Cells are point p's cells of Columns.
func (k *KeyTable) Cells(p Point) []string {
	var out []string
	for c, cell := range p.Cells {
		if cell == "" {
			cell = k.base[c]
		}
		out = append(out, cell)
		if k.seconds[c] {
			s := ""
			if d, err := time.ParseDuration(cell); err == nil {
				s = strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
			}
			out = append(out, s)
		}
	}
	return out
}
