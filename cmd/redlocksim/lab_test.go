package main

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A port in use is bad input, exit 2, naming the address.
func TestLabPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	code, _, stderr := runCLI("lab", "--addr", ln.Addr().String())
	assert.Equal(t, exitEnvironment, code, "a port in use is the environment's")
	assert.Equal(t, "redlocksim lab: "+ln.Addr().String()+" is in use by another program; choose another port with --addr\n", stderr)
}

func TestLabBadFlags(t *testing.T) {
	code, _, stderr := runCLI("lab", "--dir", "/nonexistent/dir")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "redlocksim lab: --dir: stat /nonexistent/dir: no such file or directory")
	code, _, stderr = runCLI("lab", "--addr", "8080")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "want HOST:PORT")
	code, _, stderr = runCLI("lab", "--max-runs-at-once", "0")
	assert.Equal(t, exitBadInput, code)
	assert.Equal(t, "redlocksim lab: --max-runs-at-once is a whole number from 1, got 0\n", stderr)
}

// The command prints its URL, serves the page and the API there, and
// stops on its signal with exit 0.
func TestLabServesAndStops(t *testing.T) {
	// The lab stops at the signal context's signal; SIGUSR1 stands in
	// for SIGINT, so that the test process is never at risk.
	oldSignals, oldReady := interruptSignals, labReady
	defer func() { interruptSignals, labReady = oldSignals, oldReady }()
	interruptSignals = []os.Signal{syscall.SIGUSR1}
	cancel := func() { syscall.Kill(os.Getpid(), syscall.SIGUSR1) }
	answers := make(chan []string, 1)
	labReady = func(url string) {
		resp, err := http.Get(url + "api/scenarios")
		if err != nil {
			answers <- []string{err.Error()}
			cancel()
			return
		}
		var c struct{ Scenarios []struct{ ID string } }
		_ = json.NewDecoder(resp.Body).Decode(&c)
		resp.Body.Close()
		var ids []string
		for _, s := range c.Scenarios {
			ids = append(ids, s.ID)
		}
		answers <- ids
		cancel()
	}
	code, stdout, stderr := runCLI("lab", "--addr", "127.0.0.1:0")
	require.Equal(t, exitOK, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "redlocksim lab: serving http://127.0.0.1:"), stdout)
	assert.Contains(t, stdout, "redlocksim lab: stopped")
	assert.Contains(t, <-answers, "gc-pause")
}
