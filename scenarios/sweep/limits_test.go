package sweep

import (
	"strings"
	"testing"

	"github.com/redlocksim/redlocksim/scenarios"
)

func TestDeepNestingInASpecIsRefused(t *testing.T) {
	src := "name = \"deep\"\nseeds = 2\n[axes]\nlock.ttl = " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n"
	_, err := Parse("deep.toml", []byte(src))
	errs := scenarios.Errors(err)
	if len(errs) != 1 || errs[0].Line != 4 || !strings.Contains(errs[0].Msg, "nest more than 16 deep") {
		t.Fatalf("got %v, want one error at deep.toml:4 about the nesting", err)
	}
}

// TestLongDescriptionIsRefused: a long description is refused at its line
// (a spec file over scenarios.MaxFileBytes is refused by its size:
// TestLargeFilesAreRefusedAtOnce in package scenarios).
func TestLongDescriptionIsRefused(t *testing.T) {
	src := "name = \"x\"\nbase = \"baseline\"\ndescription = \"" + strings.Repeat("d", 600) + "\"\n"
	_, err := Parse("long.toml", []byte(src))
	errs := scenarios.Errors(err)
	if len(errs) != 1 || errs[0].Line != 3 || !strings.Contains(errs[0].Msg, "is 600 bytes long: at most 500 bytes for a description") {
		t.Fatalf("got %v, want one error at long.toml:3 about the length", err)
	}
}
