package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Condition is one --where: the rows whose Key is one of Values.
type Condition struct {
	Key    string
	Values []string
}

// ParseWhere reads --where conditions, key=value or key=v1,v2,... (the
// list split as SplitList splits it). Conditions on one key add their
// values (--where k=a --where k=b is --where k=a,b), in the order the keys
// first appear.
func ParseWhere(where []string) ([]Condition, error) {
	var conds []Condition
	at := map[string]int{}
	for _, w := range where {
		key, list, ok := strings.Cut(w, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.TrimSpace(list) == "" {
			return nil, fmt.Errorf("--where wants key=value or key=v1,v2, like --where nodes.clock.rate_ppm=0,20000, got %q", w)
		}
		vs := SplitList(list)
		if slices.Contains(vs, "") {
			return nil, fmt.Errorf("--where %s: an empty value in %q", w, list)
		}
		i, seen := at[key]
		if !seen {
			i = len(conds)
			at[key] = i
			conds = append(conds, Condition{Key: key})
		}
		conds[i].Values = append(conds[i].Values, vs...)
	}
	return conds, nil
}

// String is the condition as --where writes it: key=v1,v2.
func (c Condition) String() string { return c.Key + "=" + strings.Join(c.Values, ",") }

// matches reports whether cell is one of the condition's values, as
// written or read as the same number or duration (20000 and 2e4, 1s and
// 1000ms).
func (c Condition) matches(cell string) bool {
	return slices.ContainsFunc(c.Values, func(w string) bool { return w == cell || SameValue(cell, w) })
}

// Where keeps the rows where every condition holds. A key the table does
// not have, or a value that no row has, is an error, so that a typo does
// not silently leave a series out.
func (t *Table) Where(conds []Condition) error {
	for _, c := range conds {
		i, err := t.Column(c.Key, "--where")
		if err != nil {
			return err
		}
		have := t.Distinct(c.Key)
		for _, want := range c.Values {
			if !slices.ContainsFunc(have, func(h string) bool { return h == want || SameValue(h, want) }) {
				return fmt.Errorf("%s: no row has %s=%s (it has %s)", t.Path, c.Key, want, strings.Join(have, ", "))
			}
		}
		t.keep(func(row []string) bool { return c.matches(strings.TrimSpace(row[i])) })
	}
	return nil
}

// KeepWhere keeps the rows that satisfy every condition on a key the table
// has, as Where does, but a key or value it lacks is no error: another
// table's conditions (the simulator's lines) applied to one that may hold
// fewer points (the real runs).
func (t *Table) KeepWhere(conds []Condition) {
	for _, c := range conds {
		if i, ok := t.index[c.Key]; ok {
			t.keep(func(row []string) bool { return c.matches(strings.TrimSpace(row[i])) })
		}
	}
}

func (t *Table) keep(ok func(row []string) bool) {
	var rows [][]string
	var lines []int
	for r, row := range t.Rows {
		if ok(row) {
			rows, lines = append(rows, row), append(lines, t.Lines[r])
		}
	}
	t.Rows, t.Lines = rows, lines
}

// WhereHint is a --where on key that keeps a few of its values, for an
// error that asks for fewer rows.
func WhereHint(key string, values []string) string {
	values = slices.DeleteFunc(slices.Clone(values), func(v string) bool { return v == "" || strings.Contains(v, ",") })
	if len(values) == 0 {
		return "--where " + key + "=VALUE"
	}
	return fmt.Sprintf("--where %s=%s", key, strings.Join(values[:min(len(values), 3)], ","))
}

// SameValue reports whether a and b read as the same number, or the same
// duration.
func SameValue(a, b string) bool {
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

// SplitList splits a list of TOML values at its commas, except those
// inside brackets, braces or quoted strings (an array, an inline table or
// a string is one value), and trims each value: boundary --over's list,
// and plot --where's.
func SplitList(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}
