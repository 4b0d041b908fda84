package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
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

// fifoInputBound is how soon after SIGINT or SIGTERM a command reading a
// FIFO that has no writer must end: the 2 s.
const fifoInputBound = 2 * time.Second

// TestSignalWalkEveryCommand walks every command with SIGTERM (143) and
// SIGINT (130), the table's statuses. Each command is given, where it
// reads a file, a FIFO that no one writes: it blocks in open(), which no
// signal interrupts, and must still end within 2 s of the signal (a
// command that watches its signal context is ended after signalGrace; the
// others at once). league runs long enough to get the signal, lab serves
// until it. (list ends before any signal could reach it; real-client is
// real's own child.) Each gets its signal once it is under way (see
// underWay): sent half a second after the start, at a load of 35 the
// signal came before the process had installed its handler, and it died
// of it.
func TestSignalWalkEveryCommand(t *testing.T) {
	bin := builtBinaryUnlessShort(t, "runs processes")
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, syscall.Mkfifo(p, 0o600))
		return p
	}
	scen, spec, results, shard := fifo("s.toml"), fifo("spec.toml"), fifo("r.csv"), fifo("shard.csv")
	out := func(name string) string { return filepath.Join(dir, name) }
	cases := []struct {
		args  []string
		ready string // a line on stdout that says the command is under way; "": see underWay
	}{
		{args: []string{"assess", scen}},
		{args: []string{"boundary", scen, "--key", "duration", "--from", "1s", "--to", "2s"}},
		{args: []string{"compare", scen}},
		{args: []string{"estimate", scen}},
		{args: []string{"explore", scen}},
		{args: []string{"hunt", scen}},
		{args: []string{"lab", "--addr", "127.0.0.1:0"}, ready: "redlocksim lab: serving"},
		{args: []string{"league"}},
		{args: []string{"merge", out("merged.csv"), shard}},
		{args: []string{"plot", results, "--x", "a", "--y", "b", "--out", out("p.svg")}},
		{args: []string{"real", scen}},
		{args: []string{"report", scen, "--out", out("r.html")}},
		{args: []string{"run", scen}},
		{args: []string{"sweep", spec, "--out", out("o.csv")}},
	}
	walked := map[string]bool{"list": true, "real-client": true}
	for _, c := range cases {
		walked[c.args[0]] = true
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(c.args[0]+"/"+sig.String(), func(t *testing.T) {
				t.Parallel() // each waits on its FIFO, taking no CPU
				code, stderr, after := signalled(t, bin, c.args, c.ready, sig)
				assert.Equal(t, exitSignaled+int(sig), code, "%v: %s", c.args, stderr)
				assert.Less(t, after, fifoInputBound, "%v: ended %v after the signal", c.args, after)
				assert.Contains(t, stderr, "redlocksim "+c.args[0]+": ", "names the command")
				assert.Contains(t, stderr, sig.String(), "names the signal")
			})
		}
	}
	for _, c := range commands {
		assert.True(t, walked[c.name], "the walk misses %s", c.name)
	}
}

// signalled starts bin with args, waits until it prints ready (or is
// otherwise under way: underWay), sends sig, and returns its exit status,
// its stderr and how long it took to end after the signal. The process
// dies with the test.
func signalled(t *testing.T, bin string, args []string, ready string, sig syscall.Signal) (code int, stderr string, after time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	var e strings.Builder
	cmd.Stderr = &e
	lines := startWithLines(t, cmd)
	if ready == "" {
		underWay(t, cmd.Process.Pid, args)
	} else {
		waitLine(t, lines, ready)
	}
	require.NoError(t, cmd.Process.Signal(sig))
	sent := time.Now()
	go func() {
		for range lines { // drain, so that the command never blocks on stdout
		}
	}()
	err := cmd.Wait()
	after = time.Since(sent)
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "%v must exit with the signal's status: %v; %s", args, err, e.String())
	require.False(t, ee.Sys().(syscall.WaitStatus).Signaled(), "%v died of the signal instead of exiting with its status; %s", args, e.String())
	return ee.ExitCode(), e.String(), after
}

// underWay waits up to 30 s until the process pid, running args, is past
// dispatch, which installs the signal handler before the command starts
// (a signal before it kills the process, as a shell reports with the
// same status, 128 + its number, but as a death): blocked opening a
// FIFO (one of its threads waits in the kernel's wait_for_partner, open's
// wait for the other end) or, for a command given none (league), 300 ms
// of CPU time used (starting the binary takes 40-50 ms). No wall-clock
// guess: at a load of 35 the start alone took over half a second.
func underWay(t *testing.T, pid int, args []string) {
	t.Helper()
	fifo := slices.ContainsFunc(args, func(a string) bool {
		fi, err := os.Stat(a) // a FIFO's Stat does not open it
		return err == nil && fi.Mode()&fs.ModeNamedPipe != 0
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if fifo {
			chans, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
			for _, c := range chans {
				if b, err := os.ReadFile(c); err == nil && string(b) == "wait_for_partner" {
					return
				}
			}
		} else if cpuTicks(pid) >= 30 { // USER_HZ is 100
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%v: not under way within 30 s (fifo=%v)", args, fifo)
}

// cpuTicks is the CPU time process pid has used, user and system, in
// clock ticks (/proc/PID/stat's utime and stime); 0 if it cannot be read.
func cpuTicks(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's name, which is in parentheses and may
	// hold spaces: state is the first, utime the 12th, stime the 13th.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b)[i+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}

// startWithLines starts cmd and gives its stdout line by line.
func startWithLines(t *testing.T, cmd *exec.Cmd) <-chan string {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// waitLine waits up to 30 s for a line that begins with prefix, and
// returns it.
func waitLine(t *testing.T, lines <-chan string, prefix string) string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "ended before printing %q", prefix)
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-deadline:
			t.Fatalf("no %q within 30 s", prefix)
		}
	}
}

// TestExitClassesAcrossCommands holds the table's other statuses across
// commands, by the binary: bad input 2 (a file that does not exist, a
// value out of range, an unknown flag), a finding 1 (a violation where
// none was expected, a contradicted expect), the environment 4 (a port in
// use; an open-file limit too low: TestEnvironmentExits4), each with its
// message.
func TestExitClassesAcrossCommands(t *testing.T) {
	bin := builtBinaryUnlessShort(t, "runs processes")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	missing := filepath.Join(t.TempDir(), "missing.toml")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", missing}, exitBadInput, "missing.toml"},
		{[]string{"hunt", missing}, exitBadInput, "missing.toml"},
		{[]string{"sweep", missing, "--out", "o.csv"}, exitBadInput, "missing.toml"},
		{[]string{"plot", filepath.Join(t.TempDir(), "r.csv"), "--x", "a", "--y", "b", "--out", "p.svg"}, exitBadInput, "r.csv"},
		{[]string{"run", "gc-pause", "--set", "nodes.count=0"}, exitBadInput, "redlock needs at least one node"},
		{[]string{"estimate", "--no-such-flag"}, exitBadInput, "flag provided but not defined: -no-such-flag"},
		{[]string{"run", "gc-pause", "--fail-on-violation"}, exitFinding, ""},
		{[]string{"run", "gc-pause", "--set", `expect.mutex="safe"`, "--fail-on-unexpected"}, exitFinding, "the result contradicts the scenario's expect"},
		{[]string{"lab", "--addr", ln.Addr().String()}, exitEnvironment, "is in use by another program"},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = t.TempDir()
		var e strings.Builder
		cmd.Stderr, cmd.Stdout = &e, io.Discard
		err := cmd.Run()
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "%v: %v", c.args, err)
		assert.Equal(t, c.code, ee.ExitCode(), "%v: %s", c.args, e.String())
		assert.Contains(t, e.String(), c.msg, "%v", c.args)
	}
}
