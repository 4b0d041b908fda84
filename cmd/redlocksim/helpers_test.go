package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
)

// The helpers the command's tests share.

// runCLI runs redlocksim with args in this process and returns its exit
// status and what it printed.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = realMain(args, &o, &e)
	return code, o.String(), e.String()
}

// fileWriter gives a test a write(name, body) that writes body to
// dir/name and returns its path.
func fileWriter(t *testing.T, dir string) func(name, body string) string {
	return func(name, body string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
}

// needRealRun skips a test that makes a real run under -short, and where
// redis-server is missing (failing under CI=true, as proctest.Need does).
func needRealRun(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a real run")
	}
	proctest.Need(t, "redis-server", "redis-server")
}
