package tomldoc

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/redlocksim/redlocksim/scenarios/internal/keypath"
)

// Order gives the documented order of a table's keys, by the table's name
// ("" for the top level); keys it does not list follow, sorted.
type Order func(table string) []string

// Write writes doc as a TOML document: top-level keys first, then a
// [table] per table (its arrays of tables as [[table.key]] sections after
// its keys) and a [[table]] per element of an array of tables, keys in
// order's order. Comments and layout are not kept; the meaning is. Equal
// documents give equal text.
func Write(doc map[string]any, order Order) []byte {
	var out strings.Builder
	var tables []string
	for _, k := range keysInOrder(doc, order("")) {
		if v := doc[k]; isTable(v) || isTableArray(v) {
			tables = append(tables, k)
			continue
		}
		writeKeyValue(&out, k, doc[k])
	}
	for _, k := range tables {
		v := doc[k]
		m, ok := v.(map[string]any)
		if !ok {
			writeTables(&out, keypath.QuoteKey(k), k, v, order)
			continue
		}
		fmt.Fprintf(&out, "\n[%s]\n", keypath.QuoteKey(k))
		var arrays []string
		for _, sk := range keysInOrder(m, order(k)) {
			if isTableArray(m[sk]) {
				arrays = append(arrays, sk)
				continue
			}
			writeKeyValue(&out, sk, m[sk])
		}
		for _, sk := range arrays {
			writeTables(&out, keypath.QuoteKey(k)+"."+keypath.QuoteKey(sk), sk, m[sk], order)
		}
	}
	return []byte(out.String())
}

// writeTables writes an array of tables as [[header]] sections.
func writeTables(out *strings.Builder, header, name string, v any, order Order) {
	for _, e := range tableElems(v) {
		fmt.Fprintf(out, "\n[[%s]]\n", header)
		for _, k := range keysInOrder(e, order(name)) {
			writeKeyValue(out, k, e[k])
		}
	}
}

// keysInOrder lists m's keys in the order given, then any others sorted.
func keysInOrder(m map[string]any, order []string) []string {
	var keys []string
	for _, k := range order {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

func writeKeyValue(out *strings.Builder, k string, v any) {
	out.WriteString(keypath.QuoteKey(k))
	out.WriteString(" = ")
	if s, ok := v.(string); ok && strings.Contains(s, "\n") {
		// A multi-line basic string: newlines kept, quotes escaped so that
		// no """ can end it early.
		out.WriteString(`"""` + "\n")
		for _, line := range strings.SplitAfter(s, "\n") {
			body, nl := strings.CutSuffix(line, "\n")
			q := keypath.Quote(body)
			out.WriteString(q[1 : len(q)-1])
			if nl {
				out.WriteByte('\n')
			}
		}
		out.WriteString(`"""` + "\n")
		return
	}
	format(out, v)
	out.WriteByte('\n')
}

func isTable(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// isTableArray reports whether v is a non-empty array whose elements are
// all tables.
func isTableArray(v any) bool {
	return len(tableElems(v)) > 0
}

func tableElems(v any) []map[string]any {
	switch x := v.(type) {
	case []map[string]any:
		return x
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				return nil
			}
			out = append(out, m)
		}
		return out
	}
	return nil
}
