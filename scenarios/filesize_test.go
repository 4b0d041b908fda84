package scenarios_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// TestLargeFilesAreRefusedAtOnce: a file over MaxFileBytes is refused by
// its size, before it is read, by every loader of a scenario or sweep
// file: a scenario, a sweep's base, a sweep spec (a pipe:
// TestLargePipeIsRefused). It is an external test so that it can load a
// sweep spec too.
func TestLargeFilesAreRefusedAtOnce(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.toml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse gigabyte: its size says all, and reading it would take seconds.
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for name, load := range map[string]func(string) error{
		"scenario":   func(p string) error { _, err := scenarios.Load(p); return err },
		"base":       func(p string) error { _, err := scenarios.LoadBase(p); return err },
		"sweep spec": func(p string) error { _, err := sweep.Load(p); return err },
	} {
		start := time.Now()
		err := load(big)
		if err == nil || !strings.Contains(err.Error(), big+": the file is 1.0 GiB: too large, a scenario or sweep file may be at most 1048576 bytes (1 MiB)") {
			t.Errorf("%s: got %v, want the size refused", name, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: refusing the file took %v", name, d)
		}
	}
}
