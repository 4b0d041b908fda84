package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGoldenTraces pins the narrated story of three of the debate's
// scenarios, byte for byte: a change in the model, the narration or the
// output format shows up here as a diff to read. Regenerate with
// `go test ./cmd/redlocksim/ -run Golden -update` and review the diff.
func TestGoldenTraces(t *testing.T) {
	for _, name := range []string{"gc-pause", "clock-jump", "consensus-lease-pauses", "pause-in-flight"} {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI("run", name, "--trace")
			require.Equal(t, 0, code, errOut)
			path := filepath.Join("testdata", "golden", name+".txt")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run with -update to create the golden file")
			if out != string(want) {
				t.Errorf("the narrated run of %s differs from %s; if the change is intended, rerun with -update and review the diff", name, path)
			}
		})
	}
}
