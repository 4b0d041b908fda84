package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const longPauses = `clients.pauses={ every = "5s", length = { kind = "exponential", mean = "3s" } }`

func TestHuntFindsViolatingSeedsWhateverTheWorkers(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, one, errOut := runCLI("hunt", "baseline", "--seeds", "60", "--workers", "1", "--set", longPauses)
	require.Equal(t, 0, code, errOut)
	_, three, _ := runCLI("hunt", "baseline", "--seeds", "60", "--workers", "3", "--set", longPauses)
	assert.Equal(t, one, three, "the report does not depend on the worker count")
	assert.Contains(t, one, "first violating seeds:")
	// Each listed seed replays to a violation.
	line := strings.Split(strings.SplitAfter(one, "first violating seeds:\n")[1], "\n")[0]
	fields := strings.Fields(line)
	require.GreaterOrEqual(t, len(fields), 2)
	code, out, _ := runCLI("run", "baseline", "--seed", fields[1], "--set", longPauses, "--fail-on-violation")
	assert.Equal(t, 1, code, out)
}

func TestHuntOnASafeScenario(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, out, _ := runCLI("hunt", "baseline", "--seeds", "50")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "mutual exclusion  0 of 50 runs (0; 95% interval 0–0.07135)")
	assert.NotContains(t, out, "violating seeds")
	// No violation: the rates per acquisition and per hour (50 runs of
	// 60 s) are bounded by Garwood's 3.689 over the exposure, not [0, 0].
	m := regexp.MustCompile(`mutex per acquisition +0 in (\d+) acquisitions: 0 \(95% upper bound ([^)]+)\)`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	require.Greater(t, n, 1000, "baseline's clients take turns all run long")
	assert.Equal(t, fmt.Sprintf("%.3g", 3.688879/float64(n)), m[2])
	assert.Contains(t, out, fmt.Sprintf("mutex per hour            0 in 0.8333 simulated hours: 0 (95%% upper bound %.3g)", 3.688879/(50*60.0/3600)))
}

func TestHuntBadInput(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, _, errOut := runCLI("hunt")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "name one scenario")
	code, _, errOut = runCLI("hunt", "baseline", "--seeds", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--seeds must be positive")
	code, _, errOut = runCLI("hunt", "baseline", "--set", "lock.ttl=0s")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "lock.ttl: must be positive")
}
