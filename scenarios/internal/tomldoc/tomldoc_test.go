package tomldoc

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func decode(t *testing.T, src string) map[string]any {
	t.Helper()
	var m map[string]any
	if _, err := toml.Decode(src, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSet: the anchor is the first key Set created, or the key; existing
// arrays are indexed, missing elements are errors naming the path.
func TestSet(t *testing.T) {
	doc := decode(t, "[lock]\nttl = \"1s\"\n[[faults]]\nat = \"1s\"\n")
	for _, c := range []struct{ key, anchor, err string }{
		{"lock.ttl", "lock.ttl", ""},
		{"clients.pauses.every", "clients", ""},
		{"faults[0].for", "faults[0].for", ""},
		{"faults[1].for", "", "faults has 1 elements, so there is no faults[1]"},
		{"lock.ttl.x", "", `lock.ttl is the string "5s", not a table`},
		{"nodes[0]", "", "nodes is not in the scenario, so there is no nodes[0]"},
	} {
		anchor, err := Set(doc, c.key, "5s")
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Set(%s): got error %v, want one saying %q", c.key, err, c.err)
		case c.err == "" && (err != nil || anchor != c.anchor):
			t.Errorf("Set(%s) = %q, %v; want anchor %q", c.key, anchor, err, c.anchor)
		}
	}
	if got := doc["clients"].(map[string]any)["pauses"].(map[string]any)["every"]; got != "5s" {
		t.Errorf("clients.pauses.every = %v, want 5s", got)
	}
}

// TestWrite: keys in the given order, then sorted; tables after the
// top-level keys; what is written reads back to the same document.
func TestWrite(t *testing.T) {
	src := "zeta = 1\nname = \"x\"\nlesson = \"\"\"\ntwo\nlines\"\"\"\n[lock]\nttl = \"1s\"\nkey = \"k\"\n[[lock.extra]]\na = 1\n[[faults]]\nat = \"1s\"\nkind = \"heal\"\n"
	doc := decode(t, src)
	order := func(table string) []string {
		switch table {
		case "":
			return []string{"name", "lesson", "lock", "faults"}
		case "lock":
			return []string{"ttl", "key"}
		case "faults":
			return []string{"at", "kind"}
		}
		return nil
	}
	got := string(Write(doc, order))
	want := "name = \"x\"\nlesson = \"\"\"\ntwo\nlines\"\"\"\nzeta = 1\n\n[lock]\nttl = \"1s\"\nkey = \"k\"\n\n[[lock.extra]]\na = 1\n\n[[faults]]\nat = \"1s\"\nkind = \"heal\"\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if again := string(Write(decode(t, got), order)); again != got {
		t.Errorf("writing what was written changed it:\n%s", again)
	}
}
