package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/scenarios"
)

func TestRealRefusesAClockFaultWithExit2(t *testing.T) {
	code, out, errOut := runCLI("real", "clock-jump")
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "redlocksim real: clock-jump: cannot run for real: clock-step fault on n3")
}

func TestRealClientIsHidden(t *testing.T) {
	code, out, _ := runCLI("help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "real ")
	assert.NotContains(t, out, "real-client")
}

func TestCompareRefusesWhatCannotRunForReal(t *testing.T) {
	code, _, errOut := runCLI("compare", "aof-everysec-power-loss")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "appendfsync everysec")
}

func TestCompareVerdicts(t *testing.T) {
	five := newRate(5, 5)
	none := newRate(0, 5)
	assert.Equal(t, "violation", five.verdict())
	assert.Equal(t, "safe", none.verdict())
	assert.False(t, five.overlaps(none), "5/5 [%.2f,%.2f] and 0/5 [%.2f,%.2f]", five.Lo, five.Hi, none.Lo, none.Hi)
	four := newRate(4, 5)
	assert.True(t, five.overlaps(four))
	assert.Equal(t, "4/5 [0.38,0.96]", four.String())
}

// compareDir writes the library's baseline once per name into a fresh
// directory, each with the extra TOML lines given, and returns the directory.
func compareDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := scenarios.LoadBase("baseline")
	require.NoError(t, err)
	for name, extra := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), append(b.TOML(), []byte(extra)...), 0o644))
	}
	return dir
}

func TestCompareDirSkipsWhatCannotRunForReal(t *testing.T) {
	// Loss on a TCP link is refused for good (TCP retransmits), so these
	// two files stay refused whatever else comes to run for real.
	dir := compareDir(t, map[string]string{
		"b-lossy.toml": "\n[[faults]]\nat = \"1s\"\nkind = \"loss\"\nprob = 0.5\n",
		"a-lossy.toml": "\n[[faults]]\nat = \"2s\"\nkind = \"loss\"\nprob = 0.1\n",
	})
	code, out, errOut := runCLI("compare", dir)
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	a := strings.Index(errOut, "skipped "+filepath.Join(dir, "a-lossy.toml")+": cannot run for real: loss fault")
	b := strings.Index(errOut, "skipped "+filepath.Join(dir, "b-lossy.toml")+": cannot run for real: loss fault")
	assert.True(t, a >= 0 && b > a, "both files skipped, in name order:\n%s", errOut)
	assert.Contains(t, errOut, "nothing to compare")
}

func TestCompareDirRefusesABadFileOrAnEmptyDir(t *testing.T) {
	code, _, errOut := runCLI("compare", t.TempDir())
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "a directory with no scenario files (*.toml) in it")

	dir := compareDir(t, map[string]string{"bad.toml": "\nno_such_key = 1\n"})
	code, _, errOut = runCLI("compare", dir)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, filepath.Join(dir, "bad.toml")+":")
	assert.Contains(t, errOut, "no_such_key")
}
