package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

func TestVersionIsNotEmpty(t *testing.T) {
	code, out, errOut := runCLI("--version")
	require.Equal(t, exitOK, code, errOut)
	require.True(t, strings.HasPrefix(out, "redlocksim "), out)
	require.Greater(t, len(strings.TrimSpace(strings.TrimPrefix(out, "redlocksim "))), 0)
	require.Contains(t, out, "go1.", "the toolchain is part of the version line")
}

func TestVersionNamesTheRevision(t *testing.T) {
	defer func(f func() (*debug.BuildInfo, bool)) { readBuildInfo = f }(readBuildInfo)
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/redlocksim/redlocksim", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.modified", Value: "true"}}}, true
	}
	_, out, _ := runCLI("--version")
	assert.Equal(t, "redlocksim (devel) 0123456789abcdef0123456789abcdef01234567+modified go1.26.8\n", out)
	_, js, _ := runCLI("run", "gc-pause", "--json")
	assert.Contains(t, js, `"version": "(devel) 0123456789abcdef0123456789abcdef01234567+modified"`)

	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/redlocksim/redlocksim", Version: "(devel)"}}, true
	}
	_, out, _ = runCLI("version")
	assert.Contains(t, out, "-buildvcs=false", "a build without a revision says why")
}

func TestInjectedInternalErrorExits3WithSeedAndReplay(t *testing.T) {
	defer func(f func(*model.Plan, uint64, uint64) (model.Result, error)) { modelRun = f }(modelRun)
	modelRun = func(*model.Plan, uint64, uint64) (model.Result, error) { panic("injected fault") }
	code, _, errOut := runCLI("run", "gc-pause", "--seed", "42")
	require.Equal(t, exitInternal, code, "an internal error is not bad input (2)")
	assert.Contains(t, errOut, "internal error: injected fault")
	assert.Contains(t, errOut, "seed 42; replay with:\n    redlocksim run gc-pause --seed 42 --trace")
	assert.Contains(t, errOut, "Please report it")
}

func TestPanicOutsideARunExits3(t *testing.T) {
	boom := &command{name: "boom", summary: "panics", run: func(context.Context, []string, io.Writer, io.Writer) error { panic("broken invariant") }}
	var errBuf strings.Builder
	code := realMainOf([]*command{boom}, []string{"boom"}, io.Discard, &errBuf)
	errOut := errBuf.String()
	require.Equal(t, exitInternal, code)
	assert.Contains(t, errOut, "internal error: broken invariant")
	assert.Contains(t, errOut, "Please report it")
}

func TestHelpCommandPrintsItsUsage(t *testing.T) {
	for _, args := range [][]string{{"help", "sweep"}, {"sweep", "--help"}} {
		code, out, errOut := runCLI(args...)
		require.Equal(t, exitOK, code, args)
		assert.Contains(t, out+errOut, "usage: redlocksim sweep NAME|FILE", args)
		assert.Contains(t, out+errOut, "-resume", args)
	}
	_, out, _ := runCLI("help", "sweep")
	assert.Contains(t, out, "usage: redlocksim sweep", "help COMMAND writes to stdout")
	code, _, errOut := runCLI("help", "nosuch")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, `unknown command "nosuch"`)
}

func TestJSONWithTraceIncludesTheTrace(t *testing.T) {
	code, out, errOut := runCLI("run", "gc-pause", "--json", "--trace")
	require.Equal(t, exitOK, code, errOut)
	var m struct {
		Trace        []string `json:"trace"`
		ScenarioHash string   `json:"scenario_hash"`
		Version      string   `json:"version"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	require.NotEmpty(t, m.Trace, "--trace with --json must not be dropped")
	joined := strings.Join(m.Trace, "\n")
	assert.Contains(t, joined, "pauses (GC) for 15s")
	assert.NotEmpty(t, m.Version)
	assert.Len(t, m.ScenarioHash, 32)

	_, plain, _ := runCLI("run", "gc-pause", "--json")
	assert.NotContains(t, plain, `"trace"`)
}

func TestScenarioHashFollowsTheContent(t *testing.T) {
	hash := func(args ...string) string {
		code, out, errOut := runCLI(append([]string{"run", "--json"}, args...)...)
		require.Equal(t, exitOK, code, errOut)
		var m struct {
			H string `json:"scenario_hash"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &m))
		return m.H
	}
	a := hash("gc-pause")
	assert.Equal(t, a, hash("gc-pause", "--seed", "7"), "the seed is not the scenario's content")
	assert.NotEqual(t, a, hash("gc-pause", "--set", "lock.ttl=11s"))
	assert.NotEqual(t, a, hash("gc-pause-fencing"))

	// The same meaning in another layout hashes the same.
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "library", "gc-pause.toml"))
	require.NoError(t, err)
	p := filepath.Join(dir, "gc-pause.toml")
	require.NoError(t, os.WriteFile(p, append([]byte("# a comment that changes nothing\n\n"), src...), 0o644))
	assert.Equal(t, a, hash(p))
}

func TestFailOnUnexpected(t *testing.T) {
	// gc-pause expects violations: as expected, exit 0.
	code, _, errOut := runCLI("run", "gc-pause", "--fail-on-unexpected")
	require.Equal(t, exitOK, code, errOut)
	// A pause shorter than the validity leaves the run safe, against the
	// scenario's expectation.
	code, _, errOut = runCLI("run", "gc-pause", "--fail-on-unexpected", "--set", "lock.ttl=60s")
	require.Equal(t, exitFinding, code, errOut)
	assert.Contains(t, errOut, "mutual exclusion is safe, expected violation")
	code, _, _ = runCLI("run", "gc-pause", "--set", "lock.ttl=60s")
	assert.Equal(t, exitOK, code, "without the flag a contradiction is only shown")
}

func TestSweepSeedsZeroIsRefused(t *testing.T) {
	dir, spec := writeSpec(t, smallSweep)
	code, _, errOut := runCLI("sweep", spec, "--out", filepath.Join(dir, "r.csv"), "--seeds", "0")
	require.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "between 1 and 1000000")
}

func TestSweepWritesMetaSidecarAndKeepsTheCSV(t *testing.T) {
	dir, spec := writeSpec(t, smallSweep)
	out1, out2 := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	code, _, errOut := runCLI("sweep", spec, "--out", out1, "--workers", "1", "--seeds", "2")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = runCLI("sweep", spec, "--out", out2, "--workers", "3", "--seeds", "2")
	require.Equal(t, exitOK, code, errOut)
	a, err := os.ReadFile(out1)
	require.NoError(t, err)
	b, err := os.ReadFile(out2)
	require.NoError(t, err)
	require.Equal(t, string(a), string(b), "the CSV does not depend on workers, machine or version")
	require.NotContains(t, string(a), "#", "no provenance comment in an unsharded CSV")

	var m sweeprun.Meta
	raw, err := os.ReadFile(out2 + ".meta.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &m))
	assert.Equal(t, version(), m.Version)
	assert.Len(t, m.SpecHash, 32)
	assert.Equal(t, 3, m.Workers)
	assert.Equal(t, 2, m.Seeds)
	assert.Equal(t, 8, m.Runs)
	assert.Greater(t, m.WallSeconds, 0.0)
	assert.Equal(t, []string{"redlocksim", "sweep", spec, "--out", out2, "--workers", "3", "--seeds", "2"}, m.Command)
}

func TestBudgetRefusesTenThousandHours(t *testing.T) {
	code, out, errOut := runCLI("run", "baseline", "--set", `duration="10000h"`)
	require.Equal(t, exitBadInput, code, out)
	assert.Contains(t, errOut, "the run would exceed its budget: at least ")
	assert.Contains(t, errOut, `The key that drives it is duration = "10000h0m0s"`)
	assert.Contains(t, errOut, "raise the budget with --max-events N")

	// Raising the budget lets a run through that the default would let
	// through too; lowering it refuses one.
	code, _, errOut = runCLI("run", "baseline", "--set", `duration="2h"`, "--max-events", "2000000")
	require.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "measured over the first")
	code, _, errOut = runCLI("run", "baseline", "--set", `duration="2h"`, "--max-events", "5000000")
	require.Equal(t, exitOK, code, errOut)
	code, _, errOut = runCLI("run", "baseline", "--max-events", "0")
	require.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--max-events is a positive whole number")
}

// TestBudgetRefusesThousandByThousandCheaply: the gc-pause with
// 1000 nodes and 1000 clients (1.45 GB and 7 s just to be refused) is
// refused from its Config, before a world is built: the memory it took
// is a few MB, not the world's 0.6 GB.
func TestBudgetRefusesThousandByThousandCheaply(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, out, errOut := runCLI("run", "gc-pause", "--set", "nodes.count=1000", "--set", "clients.count=1000")
	runtime.ReadMemStats(&after)
	require.Equal(t, exitBadInput, code, out)
	assert.Equal(t, "redlocksim run: gc-pause: the run would exceed its budget: its world alone would hold 577MB before the first event (the network keeps a link for each ordered pair of its 2001 processes: 2001 × 2001), against a budget of 400MB (8 bytes per event of --max-events; about 1 GB of memory in all by default). The key that drives it is clients.count = 1000; lower it, or raise the budget with --max-events N (N ≥ 80000000 for this run)\n", errOut)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(100<<20), "refused without building the world")
}

func TestSweepAndHuntKeepTheBudget(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir, spec := writeSpec(t, smallSweep)
	code, _, errOut := runCLI("sweep", spec, "--out", filepath.Join(dir, "r.csv"), "--seeds", "1", "--max-events", "1000")
	require.Equal(t, exitBadInput, code, errOut)
	assert.Contains(t, errOut, "exceed")
	assert.Contains(t, errOut, "--max-events N")
	code, _, errOut = runCLI("hunt", "baseline", "--seeds", "3", "--max-events", "1000")
	require.Equal(t, exitBadInput, code, errOut)
	assert.Contains(t, errOut, "--max-events N")
}

func TestMergeOntoAnInputExits2(t *testing.T) {
	dir, spec := writeSpec(t, smallSweep)
	var shards []string
	for k := 1; k <= 2; k++ {
		out := filepath.Join(dir, fmt.Sprintf("s%d.csv", k))
		code, _, errOut := runCLI("sweep", spec, "--out", out, "--seeds", "1", "--shard", fmt.Sprintf("%d/2", k))
		require.Equal(t, exitOK, code, errOut)
		shards = append(shards, out)
	}
	code, _, errOut := runCLI(append([]string{"merge", shards[0]}, shards...)...)
	require.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "is also an input")
	code, _, errOut = runCLI(append([]string{"merge", filepath.Join(dir, "no-such-dir", "m.csv")}, shards...)...)
	require.Equal(t, exitBadInput, code, "an output that cannot be written is not a finding")
	assert.Contains(t, errOut, "no-such-dir")
}

// A sweep whose base reads a data file names it, with its hash, in the
// sidecar (once, though every point reads it); a sweep without one has
// no data_files key (the sidecar above).
func TestSweepMetaNamesItsDataFiles(t *testing.T) {
	dir := t.TempDir()
	writeDataScenario(t, dir)
	spec := filepath.Join(dir, "spec.toml")
	require.NoError(t, os.WriteFile(spec, []byte("base = \"my-data.toml\"\nseeds = 2\n[axes]\n\"lock.ttl\" = [\"1s\", \"2s\"]\n"), 0o644))
	out := filepath.Join(dir, "out.csv")
	code, _, errOut := runCLI("sweep", spec, "--out", out)
	require.Equal(t, exitOK, code, errOut)
	raw, err := os.ReadFile(out + ".meta.json")
	require.NoError(t, err)
	var m sweeprun.Meta
	require.NoError(t, json.Unmarshal(raw, &m))
	sc, err := scenarios.Load(filepath.Join(dir, "my-data.toml"))
	require.NoError(t, err)
	require.Len(t, m.DataFiles, 1, string(raw))
	assert.Equal(t, sc.DataFiles[0].SHA256, m.DataFiles[0].SHA256)
	assert.Equal(t, "pauses.txt", m.DataFiles[0].Path)
	assert.Equal(t, "clients.pauses.length", m.DataFiles[0].Key)

	dir2, plain := writeSpec(t, smallSweep)
	out2 := filepath.Join(dir2, "plain.csv")
	code, _, errOut = runCLI("sweep", plain, "--out", out2, "--seeds", "1")
	require.Equal(t, exitOK, code, errOut)
	raw, err = os.ReadFile(out2 + ".meta.json")
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "data_files")
}
