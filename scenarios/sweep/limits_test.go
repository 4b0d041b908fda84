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
