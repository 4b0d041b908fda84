package keypath

import (
	"strings"
	"testing"
)

func TestParent(t *testing.T) {
	for in, want := range map[string]string{
		"a":                 "",
		"a.b":               "a",
		"a[2]":              "a",
		"a[2].b":            "a[2]",
		`a."x.y[1]"`:        "a",
		`a."x\"y".z`:        `a."x\"y"`,
		"faults[10].groups": "faults[10]",
	} {
		if got := Parent(in); got != want {
			t.Errorf("Parent(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJoin(t *testing.T) {
	if got := Join(Index(Join("", "a"), 3), "b c"); got != `a[3]."b c"` {
		t.Errorf("got %s", got)
	}
}

func TestParse(t *testing.T) {
	segs, err := Parse("nodes.node[1][2].clock")
	if err != nil {
		t.Fatal(err)
	}
	want := []Seg{{Name: "nodes"}, {Name: "node"}, {Index: 1}, {Index: 2}, {Name: "clock"}}
	if len(segs) != len(want) {
		t.Fatalf("got %v, want %v", segs, want)
	}
	for i := range want {
		if segs[i] != want[i] {
			t.Errorf("segment %d: got %v, want %v", i, segs[i], want[i])
		}
	}
	for in, why := range map[string]string{
		"":           "empty",
		"a..b":       "an empty name",
		"a b":        `' ' in a name`,
		"a[]":        "an index must be a number",
		"a[":         "an empty index",
		"a[1]b":      "text after an index",
		"a[1234567]": "an index must be a number",
	} {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Parse(%q) = %v, want an error saying %q", in, err, why)
		}
	}
}

func TestQuoteKey(t *testing.T) {
	for in, want := range map[string]string{
		"ttl": "ttl", "rate-ppm_2": "rate-ppm_2", "": `""`, "a b": `"a b"`,
		"tab\there": `"tab\there"`, "ctl\x01": `"ctl\u0001"`, "q\"": `"q\""`,
	} {
		if got := QuoteKey(in); got != want {
			t.Errorf("QuoteKey(%q) = %s, want %s", in, got, want)
		}
	}
}
