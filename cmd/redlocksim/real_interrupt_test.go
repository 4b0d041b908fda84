package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRealInterruptKillsEveryChild: SIGINT in the middle of a real run
// (the signal context closes the run's process group at once) kills every
// redis-server and client the run started, says so, and exits 130.
func TestRealInterruptKillsEveryChild(t *testing.T) {
	needRealRun(t)
	cmd := exec.Command(builtBinary(t), "real", "baseline")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	// The baseline has 5 nodes and 5 clients: wait for most of them.
	var kids []int
	for deadline := time.Now().Add(20 * time.Second); len(kids) < 8 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		kids = childrenOf(cmd.Process.Pid)
	}
	require.GreaterOrEqual(t, len(kids), 8, "the run's children: %v; stderr: %s", kids, stderr.String())
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	require.Equal(t, exitInterrupted, ee.ExitCode(), stderr.String())
	require.Contains(t, stderr.String(), "redlocksim real: interrupt: every child process killed")
	for _, pid := range kids {
		gone := false
		for range 100 { // reparented and reaped within moments of SIGKILL
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
				gone = true
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		require.True(t, gone, "child %d outlived the interrupted command", pid)
	}
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var kids []int
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ")".
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == pid {
			n, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
			kids = append(kids, n)
		}
	}
	return kids
}
