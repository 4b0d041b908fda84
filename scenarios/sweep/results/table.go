package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Table is a results CSV as read back: a sweep's results or raw file,
// compare --sweep's real table, or any CSV of the same shape (a header,
// then rows). Each row keeps the file line it came from, so an error
// names it. Where and KeepWhere narrow the rows; nothing else changes a
// Table after ReadTable.
type Table struct {
	Path   string
	Header []string
	Rows   [][]string
	Lines  []int // Lines[r] is the file line of Rows[r]
	index  map[string]int
}

// ReadTable reads a results CSV. A line starting with # is a comment (a
// shard's first line: # redlocksim sweep spec=...). A header repeated
// cell, an empty file or a header without rows is an error.
func ReadTable(path string) (*Table, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r := csv.NewReader(fh)
	r.Comment = '#'
	t := &Table{Path: path, index: make(map[string]int)}
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
		t.Header = append(t.Header, h)
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
		t.Rows = append(t.Rows, rec)
		t.Lines = append(t.Lines, line)
	}
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("%s has a header but no rows", path)
	}
	return t, nil
}

// NewTable is a table of rows made in memory (a sweep's points, read as
// the rows of a table whose columns are its keys), for Where; path names
// it in errors and lines[r] is row r's number in them.
func NewTable(path string, header []string, rows [][]string, lines []int) *Table {
	t := &Table{Path: path, Header: header, Rows: rows, Lines: lines, index: make(map[string]int)}
	for i, h := range header {
		t.index[h] = i
	}
	return t
}

// Has reports whether the table has every one of the named columns.
func (t *Table) Has(names ...string) bool {
	for _, n := range names {
		if _, ok := t.index[n]; !ok {
			return false
		}
	}
	return true
}

// Index is the index of the named column, if the table has it.
func (t *Table) Index(name string) (int, bool) {
	i, ok := t.index[name]
	return i, ok
}

// Column returns the index of the named column, or an error that says
// what it was wanted for (role, "--x") and lists the columns there are.
func (t *Table) Column(name, role string) (int, error) {
	if i, ok := t.index[name]; ok {
		return i, nil
	}
	return 0, fmt.Errorf("%s has no column %q (for %s); its columns are: %s", t.Path, name, role, strings.Join(t.Header, ", "))
}

// Cell is row r's value of the named column, trimmed; "" if the table has
// no such column.
func (t *Table) Cell(r int, name string) string {
	i, ok := t.index[name]
	if !ok {
		return ""
	}
	return strings.TrimSpace(t.Rows[r][i])
}

// AllRows are the indexes of every row, in order.
func (t *Table) AllRows() []int {
	rs := make([]int, len(t.Rows))
	for i := range rs {
		rs[i] = i
	}
	return rs
}

// Distinct returns the values of the named column, trimmed, in the order
// they first appear; none if there is no such column.
func (t *Table) Distinct(name string) []string {
	i, ok := t.index[name]
	if !ok {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, row := range t.Rows {
		if v := strings.TrimSpace(row[i]); !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// Constant is the one value that the named column holds in every row that
// has one (empty cells are left to the base), and whether there is one.
func (t *Table) Constant(name string) (string, bool) {
	i, ok := t.index[name]
	if !ok {
		return "", false
	}
	v := ""
	for _, row := range t.Rows {
		switch c := strings.TrimSpace(row[i]); {
		case c == "":
		case v == "":
			v = c
		case c != v:
			return "", false
		}
	}
	return v, v != ""
}

// DifferingKeys are the scenario keys (the dotted columns) whose values
// differ between rows a and b, but for those named in except and a key's
// seconds column (KEY_s beside KEY) that says the same again.
func (t *Table) DifferingKeys(a, b int, except ...string) []string {
	var differ []string
	for i, h := range t.Header {
		if key, ok := strings.CutSuffix(h, "_s"); ok && t.Has(key) {
			continue
		}
		if strings.Contains(h, ".") && !slices.Contains(except, h) && t.Rows[a][i] != t.Rows[b][i] {
			differ = append(differ, h)
		}
	}
	return differ
}

// ValueKind is how a column's values read.
type ValueKind uint8

const (
	Numbers   ValueKind = 1 + iota // every value is a number
	Durations                      // every value is a Go duration ("10s"), read in seconds
	Words                          // anything else
)

// String names the kind in an error: "numbers", "durations", "text".
func (k ValueKind) String() string {
	switch k {
	case Numbers:
		return "numbers"
	case Durations:
		return "durations"
	}
	return "text"
}

// Values reads column i: as numbers if every value is one, else as
// durations in seconds if every value is one, else as Words (vs is nil).
// Empty cells read as NaN when allowEmpty, else make the column Words.
func (t *Table) Values(i int, allowEmpty bool) (vs []float64, kind ValueKind) {
	vs = make([]float64, len(t.Rows))
	kind = Numbers
	for r, row := range t.Rows {
		s := strings.TrimSpace(row[i])
		if s == "" && allowEmpty {
			vs[r] = math.NaN()
			continue
		}
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			vs[r] = v
			continue
		}
		kind = Durations
		break
	}
	if kind == Numbers {
		return vs, kind
	}
	for r, row := range t.Rows {
		s := strings.TrimSpace(row[i])
		if s == "" && allowEmpty {
			vs[r] = math.NaN()
			continue
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, Words
		}
		vs[r] = d.Seconds()
	}
	return vs, Durations
}

// firstNonNumber returns the line and value of the first cell of column i
// that is neither a number nor a duration (empty cells included), or line
// 0 if every cell is one or the other.
func (t *Table) firstNonNumber(i int) (line int, value string) {
	for r, row := range t.Rows {
		s := strings.TrimSpace(row[i])
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			continue
		}
		if _, err := time.ParseDuration(s); err == nil {
			continue
		}
		return t.Lines[r], s
	}
	return 0, ""
}

// Numeric reads a column that must hold numbers or durations (in
// seconds), for role ("--y"); an empty cell reads as NaN when allowEmpty.
// A column the sweep writes must hold values in its range (KindOf).
func (t *Table) Numeric(name, role string, allowEmpty bool) ([]float64, ValueKind, error) {
	i, err := t.Column(name, role)
	if err != nil {
		return nil, 0, err
	}
	vs, kind := t.Values(i, allowEmpty)
	if kind == Words {
		line, v := t.firstNonNumber(i)
		switch {
		case line == 0:
			return nil, 0, fmt.Errorf("%s: column %q (%s) mixes plain numbers and durations", t.Path, name, role)
		case v == "":
			return nil, 0, fmt.Errorf("%s:%d: column %q (%s) has an empty cell", t.Path, line, name, role)
		}
		return nil, 0, fmt.Errorf("%s:%d: column %q (%s) must hold numbers or durations, got %q", t.Path, line, name, role, v)
	}
	if k, ok := KindOf(name); ok && kind == Numbers {
		for r, v := range vs {
			if allowEmpty && strings.TrimSpace(t.Rows[r][i]) == "" { // no value
				continue
			}
			if err := k.Check(v); err != nil {
				return nil, 0, fmt.Errorf("%s:%d: column %q (%s) %v", t.Path, t.Lines[r], name, role, err)
			}
		}
	}
	return vs, kind, nil
}

// Categories reads an axis column: numbers or durations (names is nil),
// or else categories (a persistence policy, a resource mode), numbered in
// the order they first appear (the sweep's point order) and named in
// names. An empty cell is the base scenario's own value, named "as in the
// base".
func (t *Table) Categories(name, role string) (vs []float64, kind ValueKind, names []string, err error) {
	i, err := t.Column(name, role)
	if err != nil {
		return nil, 0, nil, err
	}
	if vs, kind := t.Values(i, false); kind != Words {
		return vs, kind, nil, nil
	}
	if line, _ := t.firstNonNumber(i); line == 0 {
		return nil, 0, nil, fmt.Errorf("%s: column %q (%s) mixes plain numbers and durations", t.Path, name, role)
	}
	index := map[string]int{}
	vs = make([]float64, len(t.Rows))
	for r, row := range t.Rows {
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
	return vs, Words, names, nil
}

// IntervalColumns names the interval columns of column col: a results
// column's own (Column.Bounds), any other COLUMN's COLUMN_ci_low and
// COLUMN_ci_high.
func IntervalColumns(col string) (low, high string) {
	if c, end, ok := Lookup(col); ok && end == "" {
		if low, high, ok := c.Bounds(); ok {
			return low, high
		}
	}
	return col + "_ci_low", col + "_ci_high"
}
