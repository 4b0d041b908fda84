package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
)

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
