package proc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// alive reports whether a process with this pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// groupMembers lists the live processes in process group pgid.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

func sh(t *testing.T) string {
	t.Helper()
	p, err := LookPath("sh", "dash")
	require.NoError(t, err)
	return p
}

func TestCloseKillsEveryChildAndGrandchildAndRemovesDirs(t *testing.T) {
	g := NewGroup()
	dir, err := g.TempDir("proc-test-*")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644))
	// The child starts a grandchild in the background: only a kill of the
	// process group reaches it.
	a, err := g.Start(Spec{Name: "a", Path: sh(t), Args: []string{"-c", "sleep 100 & sleep 100"}})
	require.NoError(t, err)
	b, err := g.Start(Spec{Name: "b", Path: sh(t), Args: []string{"-c", "sleep 100"}})
	require.NoError(t, err)
	require.NoError(t, b.Signal(syscall.SIGSTOP)) // a stopped child must die too
	require.NoError(t, WaitFor(context.Background(), nil, 5*time.Second, "the grandchild", func() error {
		if n := len(groupMembers(t, a.Pid())); n < 2 {
			return fmt.Errorf("group has %d members", n)
		}
		return nil
	}))

	require.NoError(t, g.Close())
	for _, p := range []*Proc{a, b} {
		assert.True(t, p.Exited(), "%s still running", p.Name)
		assert.Empty(t, groupMembers(t, p.Pid()), "%s's process group survived Close", p.Name)
	}
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "temp dir %s left behind: %v", dir, err)
	require.NoError(t, g.Close(), "a second Close is a no-op")
	_, err = g.Start(Spec{Name: "c", Path: sh(t), Args: []string{"-c", "true"}})
	assert.ErrorIs(t, err, ErrClosed)
}

func TestWaitTCPReportsAChildThatDies(t *testing.T) {
	g := NewGroup()
	t.Cleanup(func() { _ = g.Close() })
	port, err := FreePort()
	require.NoError(t, err)
	p, err := g.Start(Spec{Name: "n1", Path: sh(t), Args: []string{"-c", "echo bind: address in use >&2; exit 3"}})
	require.NoError(t, err)
	start := time.Now()
	err = WaitTCP(context.Background(), fmt.Sprintf("127.0.0.1:%d", port), p, 10*time.Second)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second, "the wait should end when the child dies, not at its deadline")
	assert.Contains(t, err.Error(), "n1 (pid")
	assert.Contains(t, err.Error(), "exit status 3")
	assert.Contains(t, err.Error(), "bind: address in use")
}

func TestWaitTCPHasADeadline(t *testing.T) {
	port, err := FreePort()
	require.NoError(t, err)
	start := time.Now()
	err = WaitTCP(context.Background(), fmt.Sprintf("127.0.0.1:%d", port), nil, 200*time.Millisecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "within 200ms")
	assert.Less(t, time.Since(start), 3*time.Second)
}

func TestMissingBinaryNamesThePackage(t *testing.T) {
	_, err := LookPath("redlocksim-no-such-binary", "redis-server")
	var m *MissingError
	require.True(t, errors.As(err, &m), "got %v", err)
	assert.Equal(t, "redlocksim-no-such-binary is not installed: install the Debian package redis-server (apt-get install -y redis-server)", err.Error())
}

func TestFreePortNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for range 200 {
		p, err := FreePort()
		require.NoError(t, err)
		require.False(t, seen[p], "port %d handed out twice", p)
		seen[p] = true
	}
}

// A port is taken from below the kernel's ephemeral range, where outgoing
// connections never land, and never one another listener holds.
func TestFreePortIsBelowTheEphemeralRange(t *testing.T) {
	lo, hi := listeningRange()
	held, err := FreePort()
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(held))
	require.NoError(t, err)
	defer l.Close()
	nextPort = held // the walk comes back to the held port first
	delete(usedPorts, held)
	for range 50 {
		p, err := FreePort()
		require.NoError(t, err)
		assert.NotEqual(t, held, p, "handed out a port another listener holds")
		assert.True(t, p >= lo && p < hi, "port %d outside %d-%d", p, lo, hi-1)
	}
}

// The helper process of the two tests below: it starts two sleeping
// children in a group, prints their pids, and waits to be signalled or
// killed.
func TestMain(m *testing.M) {
	if os.Getenv("PROC_TEST_HELPER") == "1" {
		g := NewGroup()
		g.CloseOnInterrupt(func(os.Signal) { os.Exit(130) })
		for _, name := range []string{"x", "y"} {
			p, err := g.Start(Spec{Name: name, Path: "/bin/sh", Args: []string{"-c", "sleep 100"}})
			if err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			fmt.Println(p.Pid())
		}
		fmt.Println("ready")
		time.Sleep(100 * time.Second)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func startHelper(t *testing.T) (*exec.Cmd, []int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROC_TEST_HELPER=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var pids []int
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
		pid, err := strconv.Atoi(sc.Text())
		require.NoError(t, err, "helper said %q", sc.Text())
		pids = append(pids, pid)
	}
	require.Len(t, pids, 2)
	return cmd, pids
}

func requireAllGone(t *testing.T, pids []int) {
	t.Helper()
	err := WaitFor(context.Background(), nil, 5*time.Second, "the children to die", func() error {
		for _, pid := range pids {
			if alive(pid) {
				return fmt.Errorf("pid %d alive", pid)
			}
		}
		return nil
	})
	require.NoError(t, err)
}

func TestInterruptKillsTheChildren(t *testing.T) {
	cmd, pids := startHelper(t)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "got %v", err)
	assert.Equal(t, 130, ee.ExitCode())
	requireAllGone(t, pids)
}

func TestParentKilledTakesTheChildrenWithIt(t *testing.T) {
	cmd, pids := startHelper(t)
	require.NoError(t, cmd.Process.Kill()) // no handler runs: Pdeathsig must do it
	_ = cmd.Wait()
	requireAllGone(t, pids)
}

func TestFinishedIsACleanExitOnly(t *testing.T) {
	g := NewGroup()
	defer g.Close()
	ok, err := g.Start(Spec{Name: "ok", Path: sh(t), Args: []string{"-c", "exit 0"}})
	require.NoError(t, err)
	bad, err := g.Start(Spec{Name: "bad", Path: sh(t), Args: []string{"-c", "exit 3"}})
	require.NoError(t, err)
	live, err := g.Start(Spec{Name: "live", Path: sh(t), Args: []string{"-c", "sleep 100"}})
	require.NoError(t, err)
	<-ok.Done()
	<-bad.Done()
	assert.True(t, ok.Finished())
	assert.False(t, bad.Finished(), "a child that failed has not finished its work")
	assert.False(t, live.Finished())
	assert.Error(t, ok.Signal(syscall.SIGSTOP), "Signal itself still refuses an exited child")
}

// A store's servers are named after the program, wait as one store (an
// error names the store and the server that exited), and are signalled
// each, every problem reported.
func TestServersWaitAndSignalAsOneStore(t *testing.T) {
	g := NewGroup()
	t.Cleanup(func() { _ = g.Close() })
	ss := Servers{Program: "teststore", Store: "test store"}
	s1, err := ss.Add(g, "s1")
	require.NoError(t, err)
	s2, err := ss.Add(g, "s2")
	require.NoError(t, err)
	assert.Equal(t, []string{s1.ClientAddr, s2.ClientAddr}, ss.Endpoints())
	assert.NotEqual(t, s1.ClientAddr, s2.ClientAddr)
	assert.True(t, strings.HasPrefix(filepath.Base(s1.Dir), "redlocksim-teststore-s1-"), s1.Dir)

	require.NoError(t, ss.Start(g, s1, Spec{Path: sh(t), Args: []string{"-c", "sleep 100"}}))
	require.NoError(t, ss.Start(g, s2, Spec{Path: sh(t), Args: []string{"-c", "echo no quorum for me >&2; exit 3"}}))
	assert.Equal(t, "teststore s1", s1.Proc().Name)
	<-s2.Proc().Done()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var asked []int
	err = ss.WaitEach(ctx, "serving", func(i int) error {
		asked = append(asked, i)
		if i == 1 {
			return errors.New("not yet")
		}
		return nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "test store not ready: waiting for teststore s2 serving: teststore s2 (pid")
	assert.Contains(t, err.Error(), "exit status 3")
	assert.Equal(t, 0, asked[0], "servers are asked in order")

	// A write never succeeds while a server is down: the wait runs to its
	// deadline and names the server as its last error.
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err = ss.WaitWrite(short, func() error { return errors.New("no quorum") })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "test store not ready: no a committed write to the test store within")
	assert.Contains(t, err.Error(), "no quorum for me", "the exited server's last words")

	err = ss.Signal(syscall.SIGCONT)
	require.Error(t, err, "s2 has exited")
	assert.Contains(t, err.Error(), "teststore s2")
	assert.NotContains(t, err.Error(), "teststore s1", "s1 took the signal")
}
