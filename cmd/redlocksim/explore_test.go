package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The command as docs/guides/counterexamples.md shows it: a violation found, shrunk, written,
// and replayed by run with the same verdict, byte for byte each time.
func TestExploreWritesAFileThatRunReplays(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI("explore", "baseline", "--faults", "pause", "--runs", "60", "--shrink", "1", "--out", dir)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "1 distinct minimal counterexample")
	file := filepath.Join(dir, "baseline-mutex-1.toml")
	assert.Contains(t, out, "replay  redlocksim run "+file)
	code, first, errOut := runCLI("run", file, "--fail-on-violation")
	require.Equal(t, 1, code, errOut)
	assert.Contains(t, first, "mutual exclusion  violation")
	assert.Contains(t, first, "(as the scenario expects)")
	_, again, _ := runCLI("run", file)
	assert.Equal(t, first, again, "run replays the file byte-identically")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(data), "kind = \"pause\"")
}

func TestExploreJSONAndNothingFound(t *testing.T) {
	code, out, errOut := runCLI("explore", "gc-pause-fencing", "--property", "resource", "--faults", "pause", "--runs", "50", "--json")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"violating": 0`)
	assert.Contains(t, out, `"runs": 50`)
	code, out, _ = runCLI("explore", "gc-pause-fencing", "--property", "resource", "--faults", "pause", "--runs", "50")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "0 violations in 50 runs; rate < 0.0713 at 95% within these bounds")
}

func TestExploreBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore"}, "name one base scenario"},
		{[]string{"explore", "baseline", "--bound", "pause.len=0s..1s"}, `unknown key "pause.len"; valid: at, pause.for,`},
		{[]string{"explore", "baseline", "--bound", "crash.for=30s..11s"}, "lo 30s is greater than hi 11s"},
		{[]string{"explore", "consensus-lease-pauses", "--faults", "crash"}, "the lease lock has no Redis node to crash"},
		{[]string{"explore", "baseline", "--faults", "earthquake"}, `the explorer does not draw "earthquake"`},
		{[]string{"explore", "baseline", "--property", "speed"}, `unknown property "speed"; valid: mutex, resource, liveness`},
		{[]string{"explore", "baseline", "--runs", "5", "--time", "1s"}, "give --runs or --time, not both"},
		{[]string{"explore", "gc-pause"}, "gc-pause breaks mutex without any drawn fault"},
		{[]string{"explore", "baseline", "--set", "lock.ttl=0s"}, "lock.ttl: must be positive"},
	} {
		code, _, errOut := runCLI(c.args...)
		assert.Equal(t, 2, code, strings.Join(c.args, " "))
		assert.Contains(t, errOut, c.want, strings.Join(c.args, " "))
	}
}

// The summary and the written files are the same for any --workers.
func TestExploreSameForAnyWorkers(t *testing.T) {
	dir := t.TempDir()
	var outs []string
	for _, w := range []string{"1", "3"} {
		code, out, errOut := runCLI("explore", "baseline", "--faults", "pause,crash", "--runs", "150", "--shrink", "2", "--set", "workload.critical_section=8s", "--out", dir, "--workers", w)
		require.Equal(t, 0, code, errOut)
		files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
		require.NoError(t, err)
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			out += string(data)
			require.NoError(t, os.Remove(f))
		}
		outs = append(outs, out)
	}
	assert.Equal(t, outs[0], outs[1])
	assert.Contains(t, outs[0], "Found by: redlocksim explore baseline --faults 'pause,crash' --runs 150 --shrink 2 --set workload.critical_section=8s --out "+dir+"\n")
}

// An --out that cannot be written is bad input too, said as such.
func TestExploreUnwritableOut(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	code, _, errOut := runCLI("explore", "baseline", "--faults", "pause", "--runs", "60", "--shrink", "1", "--out", file)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "redlocksim explore: mkdir "+file)
}
