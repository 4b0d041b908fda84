package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLabContractUnderLoad is the contract run: the real lab
// binary under ulimit -v 4000000 gets ten requests for a 1000 × 1000 (or
// 700 × 700) world at once, each from an address of its own, while light requests
// go on for 20 s. The server stays up, each heavy request is refused
// with a 4xx and the budget's message within 2 s (or turned away busy,
// 429), every light request is answered and served once the heavy ones
// are refused, and the server's peak memory stays under 1 GB. Three such
// requests used to kill it.
func TestLabContractUnderLoad(t *testing.T) {
	bin := builtBinaryUnlessShort(t, "runs the lab for 20 s")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -v 4000000 && exec "$0" lab --addr 127.0.0.1:0`, bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	lines := startWithLines(t, cmd)
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := strings.Fields(strings.TrimPrefix(waitLine(t, lines, "redlocksim lab: serving "), "redlocksim lab: serving "))[0]
	go func() {
		for range lines {
		}
	}()
	pid := cmd.Process.Pid // sh execs the lab: the same process

	// A client whose connections come from 127.0.0.last: the lab's
	// fairness counts by address, and every one of 127/8 is loopback.
	from := func(last int) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(last))}}
		return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
	}
	type answer struct {
		status int
		body   string
		took   time.Duration
		err    error
	}
	get := func(c *http.Client, u string) answer {
		start := time.Now()
		resp, err := c.Get(u)
		if err != nil {
			return answer{err: err, took: time.Since(start)}
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return answer{status: resp.StatusCode, body: string(b), took: time.Since(start)}
	}

	heavyURL := func(i int) string { // the 1000 × 1000, and 700 × 700
		n := []int{1000, 700}[i%2]
		return fmt.Sprintf("%sapi/run?s=gc-pause&set=nodes.count=%d&set=clients.count=%d", url, n, n)
	}
	lightURL := url + "api/run?s=gc-pause"
	var (
		wg             sync.WaitGroup
		mu             sync.Mutex
		heavy          []answer
		light          [2][]answer
		heavyDone      = make(chan struct{})
		lightAfter     [2]int // light requests served after the heavy ones ended
		peakKB         int64
		stop           = time.Now().Add(20 * time.Second)
		heavyRemaining sync.WaitGroup
	)
	for i := range 10 {
		wg.Add(1)
		heavyRemaining.Add(1)
		go func() {
			defer wg.Done()
			defer heavyRemaining.Done()
			a := get(from(10+i), heavyURL(i))
			mu.Lock()
			heavy = append(heavy, a)
			mu.Unlock()
		}()
	}
	go func() { heavyRemaining.Wait(); close(heavyDone) }()
	for w := range light {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := from(2 + w)
			for time.Now().Before(stop) {
				a := get(c, lightURL)
				select {
				case <-heavyDone:
					if a.status == http.StatusOK {
						lightAfter[w]++
					}
				default:
				}
				light[w] = append(light[w], a)
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
	for time.Now().Before(stop) {
		mu.Lock()
		peakKB = max(peakKB, vmHWM(pid))
		mu.Unlock()
		time.Sleep(250 * time.Millisecond)
	}
	wg.Wait()
	peakKB = max(peakKB, vmHWM(pid))

	require.Len(t, heavy, 10)
	refused := 0
	for _, a := range heavy {
		require.NoError(t, a.err, "every heavy request is answered")
		switch a.status {
		case http.StatusUnprocessableEntity:
			refused++
			assert.Contains(t, a.body, "the run would exceed its budget: ")
			assert.Regexp(t, `The key that drives it is clients.count = (1000|700)`, a.body)
		case http.StatusTooManyRequests:
			assert.NotEmpty(t, a.body, "a busy answer says why")
		default:
			t.Errorf("a heavy request got %d: %s", a.status, a.body)
		}
	}
	assert.Positive(t, refused, "the heavy requests reached the budget, which refused them")
	for w, as := range light {
		require.NotEmpty(t, as)
		for _, a := range as {
			require.NoError(t, a.err, "light worker %d: every light request is answered", w)
			assert.Contains(t, []int{http.StatusOK, http.StatusTooManyRequests}, a.status, "light worker %d: %s", w, a.body)
		}
		assert.Positive(t, lightAfter[w], "light worker %d was served after the heavy requests", w)
	}
	a := get(from(2), url+"api/scenarios")
	require.NoError(t, a.err, "the server is still up: %s", stderr.String())
	assert.Equal(t, http.StatusOK, a.status)
	require.Positive(t, peakKB, "VmHWM of the lab process")
	assert.Less(t, peakKB, int64(1<<20), "the lab's peak memory: %d kB", peakKB)
	t.Logf("heavy: %d refused by the budget, %d busy; light: %d and %d answered; peak %d MB", refused, 10-refused, len(light[0]), len(light[1]), peakKB>>10)
}
