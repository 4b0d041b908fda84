package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestLargeSpecIsRefusedAtOnce: a spec file over scenarios.MaxFileBytes is
// refused by its size, before it is read; a long description is refused
// at its line.
func TestLargeSpecIsRefusedAtOnce(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.toml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	start := time.Now()
	_, err = Load(big)
	if err == nil || !strings.Contains(err.Error(), big+": the file is 1.0 GiB: too large, a scenario or sweep file may be at most 1048576 bytes (1 MiB)") {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusing took %v", d)
	}
	src := "name = \"x\"\nbase = \"baseline\"\ndescription = \"" + strings.Repeat("d", 600) + "\"\n"
	_, err = Parse("long.toml", []byte(src))
	errs := scenarios.Errors(err)
	if len(errs) != 1 || errs[0].Line != 3 || !strings.Contains(errs[0].Msg, "is 600 bytes long: at most 500 bytes for a description") {
		t.Fatalf("got %v, want one error at long.toml:3 about the length", err)
	}
}
