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
	assert.Equal(t, "redlocksim lab: --max-runs-at-once is a whole number from 1 to 1024 (each run holds its world), got 0\n", stderr)
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
	require.Equal(t, exitSignaled+int(syscall.SIGUSR1), code, "stopped by the signal, as every command: %s", stderr)
	assert.True(t, strings.HasPrefix(stdout, "redlocksim lab: serving http://127.0.0.1:"), stdout)
	assert.Contains(t, stdout, "redlocksim lab: stopped")
	assert.Contains(t, <-answers, "gc-pause")
}

// --check-tour checks a tour as the lab lists it: the library's debate
// passes; a tour naming a missing scenario, with an answer and no
// question, exits 2 with each problem's file, line and key, and the
// valid names; --dir's scenarios are valid names.
func TestLabCheckTour(t *testing.T) {
	code, stdout, stderr := runCLI("lab", "--check-tour", "../../scenarios/tour/library/debate.toml")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "../../scenarios/tour/library/debate.toml: \"The Redlock debate in five minutes\", 5 steps: ok\n", stdout)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(dir+"/mine.toml", []byte("duration = \"10s\"\n[lock]\nttl = \"1s\"\n"), 0o644))
	bad := dir + "/bad.tour.toml"
	require.NoError(t, os.WriteFile(bad, []byte("title = \"B\"\n\n[[steps]]\nscenario = \"gc-paws\"\ncursor = \"2s\"\ntext = \"look\"\nanswer = \"x\"\n"), 0o644))
	code, _, stderr = runCLI("lab", "--check-tour", bad, "--dir", dir)
	assert.Equal(t, exitBadInput, code)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	require.Len(t, lines, 2, stderr)
	assert.True(t, strings.HasPrefix(lines[0], bad+`:4: steps[0].scenario: no scenario "gc-paws" (valid: aof-everysec-power-loss, `), lines[0])
	assert.True(t, strings.HasSuffix(lines[0], ", zookeeper-session-pause, mine)"), lines[0])
	assert.Equal(t, bad+`:7: steps[0].answer: an answer needs its question (question = "...")`, lines[1])

	good := dir + "/good.tour.toml"
	require.NoError(t, os.WriteFile(good, []byte("title = \"G\"\n[[steps]]\nscenario = \"mine\"\ncursor = \"2s\"\ntext = \"look\"\n"), 0o644))
	code, _, stderr = runCLI("lab", "--check-tour", good, "--dir", dir)
	assert.Equal(t, exitOK, code, stderr)
	code, _, _ = runCLI("lab", "--check-tour", good)
	assert.Equal(t, exitBadInput, code, "without --dir, mine is no scenario")
}
