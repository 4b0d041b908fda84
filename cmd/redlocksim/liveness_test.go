package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/scenarios"
)

// livenessFile writes explore's liveness counterexample on the baseline,
// shrunk, as explore writes it: every node's clock steps back 30 s just
// after the first hold begins and the holder is isolated while it
// releases, so the keys outlive the heal by far more than three TTLs.
func livenessFile(t *testing.T) string {
	t.Helper()
	b, err := scenarios.LoadBase("baseline")
	require.NoError(t, err)
	// The partition loses the holder's DELs only if its connections are
	// given up and reset; TCP's hold, the default, delivers them at the heal.
	sets, err := scenarios.ParseOverrides([]string{"network.partition_mode=drop"})
	require.NoError(t, err)
	e, err := explore.New(explore.Options{Base: b, Sets: sets, Property: explore.Liveness, MaxFaults: 6, Seed: 1, Workers: 1})
	require.NoError(t, err)
	r, err := model.RunTraced(e.Scenario().Config, e.Scenario().Seed) // narrated, for its holds
	require.NoError(t, err)
	first := r.History.Holds[0]
	var s explore.Schedule
	for _, n := range []string{"n1", "n2", "n3", "n4", "n5"} {
		s = append(s, explore.Step{Fault: model.Fault{At: first.Start + 10*time.Millisecond, Kind: model.ClockStep, Target: n, By: -30 * time.Second}})
	}
	s = append(s, explore.Step{Fault: model.Fault{At: first.Start + 20*time.Millisecond, Kind: model.Partition, Partition: network.PartitionIsolate, Target: first.Client}, Lasts: time.Second})
	require.True(t, e.Violates(s), "the schedule %v starves no client", s)
	min, on := e.Shrink(s)
	data, err := on.Render(on.FileName(1), min, "redlocksim explore baseline --property liveness", 0)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), on.FileName(1)+".toml")
	require.NoError(t, os.WriteFile(file, data, 0o644))
	return file
}

// Explore's liveness counterexample replayed with run shows the same
// violation: run judges liveness because the file records property =
// "liveness", counts it for --fail-on-violation, and lists it in --json.
func TestRunJudgesLivenessOfExploresFile(t *testing.T) {
	file := livenessFile(t)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(data), `property = "liveness"`)

	code, out, errOut := runCLI("run", file, "--fail-on-violation")
	require.Equal(t, 1, code, "run --fail-on-violation of a starving file: %s%s", out, errOut)
	assert.Contains(t, out, "mutual exclusion  safe")
	assert.Regexp(t, `(?m)^  liveness          violation  c\d waits [0-9.]+s for the lock after the faults healed at [0-9.]+m?s \(limit 30s\)$`, out)
	assert.Contains(t, out, "violations (1)")
	_, again, _ := runCLI("run", file)
	assert.Equal(t, out, again, "run replays the file byte-identically")

	code, js, errOut := runCLI("run", file, "--json")
	require.Equal(t, 0, code, errOut)
	var got struct {
		Mutex      string `json:"mutex"`
		Liveness   string `json:"liveness"`
		Violations []struct {
			Kind    string `json:"kind"`
			Summary string `json:"summary"`
		} `json:"violations"`
		Replay string `json:"replay"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &got))
	assert.Equal(t, "safe", got.Mutex)
	assert.Equal(t, "violation", got.Liveness)
	require.Len(t, got.Violations, 1)
	assert.Equal(t, "liveness", got.Violations[0].Kind)
	assert.Contains(t, out, got.Violations[0].Summary)
	assert.NotEmpty(t, got.Replay)
}

// Without property = "liveness" run prints no liveness line, so the
// library's outputs (and their goldens) are unchanged; with it and no
// fault, liveness is kept.
func TestRunJudgesLivenessOnlyWhenRecorded(t *testing.T) {
	_, out, _ := runCLI("run", "baseline")
	assert.NotContains(t, out, "liveness")
	_, out, _ = runCLI("run", "baseline", "--set", "property=liveness", "--set", "liveness_limit=40s", "--fail-on-violation")
	assert.Regexp(t, `(?m)^  liveness          safe       the longest wait is [0-9.]+m?s \(c\d\) after the faults healed at 0s \(limit 40s\)$`, out)
	code, _, errOut := runCLI("run", "baseline", "--set", "liveness_limit=40s")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `liveness_limit: applies only to property = "liveness"`)
	code, _, errOut = runCLI("run", "baseline", "--set", "property=speed")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown property "speed" (valid: mutex, resource, liveness)`)
}
