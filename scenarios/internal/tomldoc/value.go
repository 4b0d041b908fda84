package tomldoc

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redlocksim/redlocksim/scenarios/internal/keypath"
)

// Clone deep-copies a decoded TOML value.
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = Clone(e)
		}
		return m
	case []map[string]any:
		s := make([]map[string]any, len(x))
		for i, e := range x {
			s[i] = Clone(e).(map[string]any)
		}
		return s
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = Clone(e)
		}
		return s
	}
	return v
}

// TableArray returns the elements of a decoded TOML array of tables:
// BurntSushi decodes [[k]] sections as []map[string]any and an array of
// inline tables as []any. ok is false for anything else.
func TableArray(v any) (elems []any, ok bool) {
	switch x := v.(type) {
	case []map[string]any:
		for _, m := range x {
			elems = append(elems, m)
		}
		return elems, true
	case []any:
		return x, true
	}
	return nil, false
}

// Describe names a decoded TOML value's type, with the value if short, for
// an error message: "the string \"10\"", "the integer 3", "a table".
func Describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 || !utf8.ValidString(x) {
			return "a string"
		}
		return "the string " + strconv.Quote(x)
	case int64:
		return "the integer " + strconv.FormatInt(x, 10)
	case float64:
		return "the float " + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "the boolean " + strconv.FormatBool(x)
	case time.Time:
		return "a date-time"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("a %T", v)
}

// Format writes a decoded TOML value as a TOML literal on one line:
// strings quoted with TOML escapes, floats always with a '.' or exponent
// (so they read back as floats), arrays in brackets, tables inline with
// their keys sorted. Equal values give equal text.
func Format(v any) string {
	var b strings.Builder
	format(&b, v)
	return b.String()
}

func format(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		b.WriteString(keypath.Quote(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		b.WriteString(formatFloat(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case time.Time:
		b.WriteString(x.Format(time.RFC3339Nano))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			format(b, e)
		}
		b.WriteByte(']')
	case []map[string]any:
		elems, _ := TableArray(x)
		format(b, elems)
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(keypath.QuoteKey(k))
			b.WriteString(" = ")
			format(b, x[k])
		}
		b.WriteByte('}')
	default:
		// Not produced by the TOML decoder; written visibly rather than
		// silently dropped.
		fmt.Fprintf(b, "%q", fmt.Sprint(v))
	}
}

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
