package proto

import (
	"strings"
	"testing"
)

// TestObsKindWireNames: every observation kind has one wire name, distinct
// from the others, that parses back to it; a name that is none parses to
// nothing, so a real client's narration is never taken for a fact.
func TestObsKindWireNames(t *testing.T) {
	seen := map[string]ObsKind{}
	for k := AttemptStart; k <= Finished; k++ {
		name := k.String()
		if name == "" || strings.HasPrefix(name, "ObsKind(") {
			t.Fatalf("kind %d has no wire name", k)
		}
		if prev, dup := seen[name]; dup {
			t.Fatalf("kinds %d and %d share the wire name %q", prev, k, name)
		}
		seen[name] = k
		if got, ok := ParseObsKind(name); !ok || got != k {
			t.Errorf("ParseObsKind(%q) = %d, %v; want %d", name, got, ok, k)
		}
	}
	for _, name := range []string{"", "ready", "note", "extend", "ObsKind(0)", "Hold"} {
		if k, ok := ParseObsKind(name); ok {
			t.Errorf("ParseObsKind(%q) = %d; want no kind", name, k)
		}
	}
	if s := ObsKind(0).String(); s != "ObsKind(0)" {
		t.Errorf("the zero kind prints %q", s)
	}
}
