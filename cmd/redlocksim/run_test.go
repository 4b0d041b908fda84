package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/plots/perfetto"
	"github.com/redlocksim/redlocksim/scenarios"
)

func TestNoArgumentsRunsGCPause(t *testing.T) {
	code, out, errOut := runCLI()
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "gc-pause (seed 1): "), out)
	assert.Contains(t, out, "mutual exclusion  violation")
	assert.Contains(t, out, "replay with:\n    redlocksim run gc-pause --seed 1 --trace")
}

func TestJSONHasTheContractFields(t *testing.T) {
	code, out, errOut := runCLI("run", "gc-pause", "--json", "--seed", "3")
	require.Equal(t, 0, code, errOut)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	for _, k := range []string{"scenario", "seed", "mutex_violations", "max_overlap_ms", "lost_updates",
		"stale_writes_accepted", "stale_writes_rejected", "acquire_attempts", "acquire_successes", "unavailable_ms", "events"} {
		assert.Contains(t, m, k)
	}
	assert.Equal(t, "gc-pause", m["scenario"])
	assert.Equal(t, 3.0, m["seed"])
	assert.Equal(t, 1.0, m["mutex_violations"])
	assert.Equal(t, 1.0, m["lost_updates"])
	assert.Greater(t, m["max_overlap_ms"].(float64), 1000.0)
}

func TestRunIsReproducible(t *testing.T) {
	_, a, _ := runCLI("run", "gc-pause", "--trace", "--seed", "5")
	_, b, _ := runCLI("--seed", "5", "--trace")
	assert.Equal(t, a, b, "flags without a command are run's, and the same seed gives the same text")
	_, c, _ := runCLI("run", "gc-pause", "--trace", "--seed", "6")
	assert.NotEqual(t, a, c)
}

func TestExitStatus(t *testing.T) {
	code, _, _ := runCLI("run", "gc-pause", "--fail-on-violation")
	assert.Equal(t, 1, code, "a violation with --fail-on-violation")
	code, _, _ = runCLI("run", "gc-pause-fencing", "--fail-on-violation")
	assert.Equal(t, 1, code, "the mutex is still violated with fencing")

	code, _, errOut := runCLI("run", "no-such-scenario")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `no built-in scenario is called "no-such-scenario"`)

	code, _, errOut = runCLI("run", "--seed", "-1")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "a seed is a non-negative integer")

	code, _, _ = runCLI("run", "a", "b")
	assert.Equal(t, 2, code)
	code, _, _ = runCLI("frobnicate")
	assert.Equal(t, 2, code)
}

func TestBadScenarioFileNamesFileLineAndKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.toml")
	require.NoError(t, os.WriteFile(path, []byte("duration = \"10s\"\n[lock]\nttl = 10\n"), 0o644))
	code, out, errOut := runCLI("run", path)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "bad.toml:3: lock.ttl:")
}

func TestListShowsEveryScenarioWithItsOutcome(t *testing.T) {
	code, out, _ := runCLI("list")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "gc-pause")
	assert.Contains(t, out, "mutex violation, resource violation")
}

func TestRunWhatIf(t *testing.T) {
	var out, errb bytes.Buffer
	code := realMain([]string{"run", "gc-pause", "--what-if", "fencing,cas,wait"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	s := out.String()
	assert.Regexp(t, `(?m)^as written\s+violation\s+violation\s`, s)
	assert.Regexp(t, `(?m)^fencing\s+violation\s+safe\s`, s)
	assert.Regexp(t, `(?m)^cas\s+violation\s+safe\s`, s)
	assert.Contains(t, s, "wait             only the failover lock")
	assert.Contains(t, s, "redlocksim run gc-pause --seed 1 --set resource.mode=fencing --trace")

	errb.Reset()
	assert.Equal(t, 2, realMain([]string{"run", "gc-pause", "--what-if", "prayer"}, &out, &errb))
	assert.Contains(t, errb.String(), `unknown remedy "prayer"`)

	errb.Reset()
	assert.Equal(t, 2, realMain([]string{"run", "gc-pause", "--what-if", "fencing", "--perfetto", filepath.Join(t.TempDir(), "x.json"), "--json"}, &out, &errb))
	assert.Contains(t, errb.String(), "--json, --perfetto would apply to one")
}

// The trace is valid Trace Event JSON, and its counts are the run's: a
// slice per timeline span, an instant per delivered message and per mark,
// and a flow per reply.
func TestRunPerfetto(t *testing.T) {
	for _, name := range []string{"gc-pause", "restart-no-persistence", "clock-jump"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.json")
			var out, errb bytes.Buffer
			require.Equal(t, 0, realMain([]string{"run", name, "--perfetto", path}, &out, &errb), errb.String())
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			counts, err := perfetto.Validate(data)
			require.NoError(t, err)

			sc, err := scenarios.LoadNamed(name)
			require.NoError(t, err)
			res, err := model.RunTraced(sc.Config, sc.Seed)
			require.NoError(t, err)
			slices, instants, replies := 0, 0, 0
			for k, n := range counts {
				switch {
				case strings.HasPrefix(k, "X:"):
					slices += n
				case strings.HasPrefix(k, "i:") && k != "i:message":
					instants += n
				}
			}
			for _, m := range res.Messages {
				if m.Reply {
					replies++
				}
			}
			assert.Equal(t, len(res.Timeline.Spans), slices)
			assert.Equal(t, len(res.Timeline.Marks), instants)
			assert.Equal(t, int(res.Net.Delivered), counts["i:message"], "one instant per delivered message")
			assert.Equal(t, replies, counts["s:message"], "every reply is joined to its request")
			assert.Equal(t, counts["s:message"], counts["f:message"])
			assert.Equal(t, 2*len(res.Lanes), counts["M:"]-3*len(res.Lanes), "a process and its sort index per lane")
		})
	}
}

// One fault, three violations, one story: the pause line appears once, and
// the other two violations refer to the first.
func TestRunTellsEachStoryOnce(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, realMain([]string{"run", "gc-pause"}, &out, &errb), errb.String())
	s := out.String()
	assert.Equal(t, 1, strings.Count(s, "c1 pauses (GC) for 15s"))
	assert.Contains(t, s, "  2. lost-update: ")
	assert.Contains(t, s, "       (the story is 1's, above)\n")
	assert.Contains(t, s, "       (the story is 1's above, up to 13.008096s)\n")

	// A story that goes on past one told above refers to it and tells
	// only the rest: in consensus-lease-pauses the lost update's story is
	// the stale write's and then c3's write; the two overlaps refer to the
	// first.
	out.Reset()
	require.Equal(t, 0, realMain([]string{"run", "consensus-lease-pauses"}, &out, &errb), errb.String())
	s = out.String()
	assert.Len(t, regexp.MustCompile(`(?m)^  \d+\. `).FindAllString(s, -1), 4, "four numbered violations")
	assert.Equal(t, 2, strings.Count(s, "(the story is 1's above"), "the overlaps refer to the first story")
	assert.Equal(t, 1, strings.Count(s, "c1 pauses (GC) for 3s"), "the pause is told once")
	assert.Regexp(t, `\(1's story, above, and then:\)\n +4\.019971s  resource accepts c3's write`, s)
}

// A run of identical failed attempts is one line, so the event that
// caused the violation (the watchdog giving up) is in the story rather
// than elided behind them.
func TestRunCollapsesRepeatedAttempts(t *testing.T) {
	code, s, errOut := runCLI("run", "watchdog-partition")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 1, strings.Count(s, "c1 stops renewing the lock"), "the cause is told, once")
	assert.Equal(t, 1, strings.Count(s, "c2 fails to acquire"), "one line for the run of failures")
	assert.Regexp(t, `c2 fails to acquire: 0 of 1 nodes said OK, need 1 \[×25, 5\.002s–9\.84s\]`, s)
	assert.NotContains(t, s, "elided")
}
