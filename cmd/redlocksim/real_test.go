package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/scenarios"
)

// Node clocks run for real, but no clock library reaches etcd, a Go
// program: a store clock is refused with exit 2.
func TestRealRefusesAStoreClockWithExit2(t *testing.T) {
	code, out, errOut := runCLI("real", "consensus-lease-fencing", "--set", "store.clock={rate_ppm=20}")
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "redlocksim real: consensus-lease-fencing: cannot run for real: store.clock: etcd is a Go program")
}

// A clock step the scale brings below Redis's millisecond is refused.
func TestRealRefusesAClockStepBelowResolutionWithExit2(t *testing.T) {
	code, _, errOut := runCLI("real", "clock-jump", "--set", `faults[4].by="+3ms"`, "--scale", "4")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--scale 4 makes faults[4].by (clock-step on n3) 750µs, below the 1ms a real redis-server resolves")
}

func TestRealClientIsHidden(t *testing.T) {
	code, out, _ := runCLI("help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "real ")
	assert.NotContains(t, out, "real-client")
}

func TestCompareRefusesWhatCannotRunForReal(t *testing.T) {
	// Loss on a TCP link stays refused (TCP retransmits); a power loss
	// under everysec, which this test named before, now runs on lazyfs.
	dir := compareDir(t, map[string]string{"lossy.toml": "\n[[faults]]\nat = \"1s\"\nkind = \"loss\"\nprob = 0.5\n"})
	code, _, errOut := runCLI("compare", filepath.Join(dir, "lossy.toml"))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "cannot run for real: loss fault")
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

func TestAFailoverRunNotesTheSentinelsOwnTimers(t *testing.T) {
	sc, err := loadScenario("failover-wait", nil)
	require.NoError(t, err)
	refused, notes := harness.Refusals(&sc.Config)
	require.Empty(t, refused)
	assert.Contains(t, notes, harness.SentinelTimersNote)
	sc, err = loadScenario("gc-pause", nil)
	require.NoError(t, err)
	_, notes = harness.Refusals(&sc.Config)
	assert.NotContains(t, notes, harness.SentinelTimersNote)
}
