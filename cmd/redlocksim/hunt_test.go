package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
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

// TestHuntInterruptedAndResumedGivesTheUninterruptedResult: an interrupted
// hunt prints what its finished seeds show and exits 130; the same command
// with --resume prints exactly the report of a hunt never interrupted.
func TestHuntInterruptedAndResumedGivesTheUninterruptedResult(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	args := []string{"hunt", "baseline", "--seeds", "120", "--workers", "2", "--set", longPauses}
	code, want, errOut := runCLI(args...)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, want, "first violating seeds:")

	journal := filepath.Join(t.TempDir(), "hunt.partial")
	args = append(args, "--journal", journal)
	huntProgress = func(done, _ int, interrupt func()) {
		if done == 40 {
			interrupt()
		}
	}
	code, partial, errOut := runCLI(args...)
	huntProgress = nil
	require.Equal(t, exitInterrupted, code, errOut)
	require.Regexp(t, `baseline: seeds 1 to 120, interrupted with 4\d of 120 done\n  mutual exclusion  \d+ of 4\d runs`, partial)
	require.Contains(t, errOut, "run the same command with --resume to continue")
	require.Contains(t, errOut, journal)
	_, err := os.Stat(journal)
	require.NoError(t, err, "the journal is kept")

	code, _, errOut = runCLI(args...)
	require.Equal(t, exitBadInput, code, "a journal without --resume")
	require.Contains(t, errOut, "an interrupted hunt left this journal: give --resume")

	code, got, errOut := runCLI(append(args, "--resume")...)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, want, got, "resumed, the report is the uninterrupted one")
	_, err = os.Stat(journal)
	require.ErrorIs(t, err, os.ErrNotExist, "the journal is removed at the end")
}

// TestHuntSignalExitsWithItsNumber: a signal stops the hunt with 128 + the
// signal's number (130 for SIGINT, 143 for SIGTERM); SIGUSR1 stands in for
// them, so that the test process is never at risk.
func TestHuntSignalExitsWithItsNumber(t *testing.T) {
	old := interruptSignals
	interruptSignals = []os.Signal{syscall.SIGUSR1}
	defer func() { interruptSignals = old }()
	huntProgress = func(done, _ int, _ func()) {
		if done == 10 {
			syscall.Kill(os.Getpid(), syscall.SIGUSR1)
		}
	}
	defer func() { huntProgress = nil }()
	code, out, errOut := runCLI("hunt", "baseline", "--seeds", "5000", "--workers", "1", "--journal", filepath.Join(t.TempDir(), "j"))
	if code == exitOK {
		t.Skip("the hunt finished before the signal arrived")
	}
	require.Equal(t, 128+int(syscall.SIGUSR1), code, errOut)
	require.Contains(t, out, "interrupted with ")
	require.Contains(t, out, "mutual exclusion  0 of ")
}

func TestHuntSeedRange(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, _, errOut := runCLI("hunt", "baseline", "--from", "18446744073709551615", "--seeds", "3")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "runs past the largest seed")
	assert.Contains(t, errOut, "start at 18446744073709551613 at most")
	code, _, errOut = runCLI("hunt", "baseline", "--seeds", "1000001")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--seeds must be between 1 and 1000000")
	code, out, errOut := runCLI("hunt", "baseline", "--from", "18446744073709551613", "--seeds", "3")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "seeds 18446744073709551613 to 18446744073709551615")
}

func TestHuntProgressBar(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	old := isTerminal
	isTerminal = func(io.Writer) bool { return true }
	defer func() { isTerminal = old }()
	code, _, errOut := runCLI("hunt", "baseline", "--seeds", "30")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "hunt baseline")
	assert.Contains(t, errOut, "30/30")
	assert.Contains(t, errOut, "runs/s")
}

func TestHuntInternalErrorExits3(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	defer func(f func(*model.Plan, uint64, uint64) (model.Result, error)) { modelRunFast = f }(modelRunFast)
	modelRunFast = func(plan *model.Plan, seed, maxEvents uint64) (model.Result, error) {
		if seed == 7 {
			panic("injected")
		}
		return plan.RunFastWithin(seed, maxEvents)
	}
	code, _, errOut := runCLI("hunt", "baseline", "--seeds", "20", "--workers", "2")
	require.Equal(t, exitInternal, code, errOut)
	assert.Contains(t, errOut, "seed 7; replay with:\n    redlocksim run baseline --seed 7 --trace")
	assert.True(t, strings.Contains(errOut, "Please report it"))
}
