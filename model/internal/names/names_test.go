package names

import "testing"

type kind uint8

func TestParse(t *testing.T) {
	names := []string{"", "none", "incr"}
	for _, c := range []struct {
		first int
		s     string
		want  kind
		err   string
	}{
		{1, "none", 1, ""},
		{1, "incr", 2, ""},
		{1, "", 0, `unknown token source "" (valid: none, incr)`},
		{0, "", 0, ""},
		{1, "INCR", 0, `unknown token source "INCR" (valid: none, incr)`},
	} {
		got, err := Parse[kind](names, c.first, "token source", c.s)
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("Parse(%d, %q) = %v, %v; want %v", c.first, c.s, got, err, c.want)
		}
		if c.err != "" && (err == nil || err.Error() != c.err) {
			t.Errorf("Parse(%d, %q) error = %v; want %q", c.first, c.s, err, c.err)
		}
	}
}
