package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelpPrintsTheExitTable: the one table, in help, names every status.
func TestHelpPrintsTheExitTable(t *testing.T) {
	code, out, _ := runCLI("help")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, exitTable)
	for _, s := range []string{"\n  0 ", "\n  1 ", "\n  2 ", "\n  3 ", "\n  4 ", "\n  130 "} {
		assert.Contains(t, exitTable, s)
	}
}

// TestEveryCommandRefusesABadFlagWith2: bad input is 2 for every command,
// with the flag package's message.
func TestEveryCommandRefusesABadFlagWith2(t *testing.T) {
	var names [][]string
	for _, c := range commands {
		if c.hidden { // real-client reads its spec from stdin, from real
			continue
		}
		names = append(names, []string{c.name})
		for _, sub := range c.subcommands {
			names = append(names, []string{c.name, sub.name})
		}
	}
	for _, name := range names {
		n := strings.Join(name, " ")
		code, _, stderr := runCLI(append(name, "--no-such-flag")...)
		assert.Equal(t, exitBadInput, code, "%s: %s", n, stderr)
		assert.Contains(t, stderr, "flag provided but not defined: -no-such-flag", n)
	}
}

// TestSIGTERMExits143: explore said 130 for SIGTERM where sweep and hunt
// say 143; every command that catches the signal now reports the signal
// it got, as a shell reports a process it killed.
func TestSIGTERMExits143(t *testing.T) {
	bin := builtBinaryUnlessShort(t, "runs processes")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"explore", "baseline", "--runs", "100000000"}, "explore"},
		{[]string{"hunt", "baseline", "--seeds", "1000000", "--journal", "JOURNAL"}, "hunt"},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			args := slices.Clone(c.args)
			for i, a := range args {
				if a == "JOURNAL" {
					args[i] = t.TempDir() + "/hunt.journal"
				}
			}
			cmd := exec.Command(bin, args...)
			var stderr bytes.Buffer
			cmd.Stderr, cmd.Dir = &stderr, t.TempDir()
			require.NoError(t, cmd.Start())
			time.Sleep(1500 * time.Millisecond)
			require.NoError(t, cmd.Process.Signal(sig))
			err := cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "%v: %s", c.args, stderr.String())
			assert.Equal(t, 128+int(sig), ee.ExitCode(), "%v on %v: %s", c.args, sig, stderr.String())
		}
	}
}

// TestEnvironmentExits4: what the machine lacks is 4, not bad input (2)
// or a finding (1): an open-file limit too low for a real run (which
// exited 1 with a log in a directory already gone). (A port in use:
// TestLabPortInUse.)
func TestEnvironmentExits4(t *testing.T) {
	bin := builtBinaryUnlessShort(t, "runs a process")
	cmd := exec.Command("sh", "-c", `ulimit -n 20 && exec "$0" real baseline`, bin)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, string(out))
	assert.Equal(t, exitEnvironment, ee.ExitCode(), string(out))
	if !strings.Contains(string(out), "is not installed") { // without redis-server: 4 too, naming the package
		assert.Equal(t, "redlocksim real: baseline: the open-file limit (ulimit -n) is 20; a real run of 5 nodes and 3 clients needs at least 96 (redis-server alone needs 33): raise it, e.g. ulimit -n 1024 (a resource limit of this machine, not a problem with the scenario)\n", string(out))
	}
}

// TestRuntimeFatalIsNotBadInput: a fatal error of the Go runtime (here a
// stack overflow; out of memory is another) exited 2, bad input's status.
// With dieByAbort the process dies of SIGABRT instead. The test runs
// itself as the child that dies.
func TestRuntimeFatalIsNotBadInput(t *testing.T) {
	if os.Getenv("REDLOCKSIM_TEST_FATAL") == "1" {
		dieByAbort()
		debug.SetMaxStack(1 << 20)
		var recurse func(n int) int
		recurse = func(n int) int { return recurse(n+1) + 1 }
		recurse(0)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRuntimeFatalIsNotBadInput$")
	cmd.Env = append(os.Environ(), "REDLOCKSIM_TEST_FATAL=1", "GOTRACEBACK=")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "the child must die: %v", err)
	ws := ee.Sys().(syscall.WaitStatus)
	require.True(t, ws.Signaled(), "died of a signal, not exit %d", ee.ExitCode())
	assert.Equal(t, syscall.SIGABRT, ws.Signal())
	assert.NotEqual(t, exitBadInput, ee.ExitCode())
	assert.Contains(t, string(out), "fatal error: stack overflow")
}
