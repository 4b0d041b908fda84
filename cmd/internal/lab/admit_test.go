package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdmissionBounds: one run at once, one waiting; an address has at
// most two requests in; beyond either bound, 429 at once with a message.
func TestAdmissionBounds(t *testing.T) {
	a := newAdmission(1, 1, time.Hour)
	ctx := context.Background()
	rel1, err := a.admit(ctx, "10.0.0.1")
	require.NoError(t, err)

	// The second of 10.0.0.1 waits for the slot.
	got2 := make(chan func(), 1)
	go func() {
		rel, err := a.admit(ctx, "10.0.0.1")
		assert.NoError(t, err)
		got2 <- rel
	}()
	for waiting(a) < 1 {
		time.Sleep(time.Millisecond)
	}
	// A third of 10.0.0.1: past its address's bound.
	_, err = a.admit(ctx, "10.0.0.1")
	var busy *busyError
	require.ErrorAs(t, err, &busy)
	assert.Equal(t, "10.0.0.1 already has 2 requests running or waiting; wait for their answers", busy.msg)
	// Another address: the queue is full.
	_, err = a.admit(ctx, "10.0.0.2")
	require.ErrorAs(t, err, &busy)
	assert.Equal(t, "the lab is busy: 1 runs at once and 1 more waiting, its most; try again in a moment", busy.msg)

	rel1()
	rel2 := <-got2
	rel2()
	assert.Empty(t, a.byAddr, "every request left")
	assert.Zero(t, waiting(a))

	// A wait has its end.
	short := newAdmission(1, 1, 20*time.Millisecond)
	rel, err := short.admit(ctx, "10.0.0.1")
	require.NoError(t, err)
	_, err = short.admit(ctx, "10.0.0.2")
	require.ErrorAs(t, err, &busy)
	assert.Equal(t, "the lab is busy: waited 20ms for one of its 1 runs at once; try again in a moment", busy.msg)
	rel()

	// A client that goes away leaves the queue.
	rel, err = short.admit(ctx, "10.0.0.1")
	require.NoError(t, err)
	gone, cancel := context.WithCancel(ctx)
	cancel()
	_, err = short.admit(gone, "10.0.0.3")
	require.ErrorIs(t, err, context.Canceled)
	rel()
	assert.Empty(t, short.byAddr)
}

func waiting(a *admission) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.waiting
}

// TestHeaderDoesNotSkipTheQueue: X-Lab-Client tells the pages of one
// address apart, but the address's bound holds whatever the header says.
func TestHeaderDoesNotSkipTheQueue(t *testing.T) {
	s := newServer(t, Options{MaxRunsAtOnce: 1, MaxWaiting: 8})
	// Hold the address's two places as two running or waiting requests do.
	for range perAddress {
		s.admit.mu.Lock()
		s.admit.byAddr["192.0.2.1"]++
		s.admit.mu.Unlock()
	}
	for _, id := range []string{"", "page-1", "a-fresh-id"} {
		r := httptest.NewRequest(http.MethodGet, "/api/run?s=gc-pause", nil)
		if id != "" {
			r.Header.Set("X-Lab-Client", id)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		require.Equal(t, http.StatusTooManyRequests, w.Code, "X-Lab-Client %q", id)
		var e apiError
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &e))
		assert.Equal(t, "192.0.2.1 already has 2 requests running or waiting; wait for their answers", e.Error)
		assert.Equal(t, "5", w.Header().Get("Retry-After"))
	}
}

// TestThousandByThousandIsRefusedCheaply: the request that took 7.3 s and
// 1.45 GB to be refused is refused from its Config, with run's message.
func TestThousandByThousandIsRefusedCheaply(t *testing.T) {
	s := newServer(t, Options{})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var e apiError
	w := get(t, s, "/api/run?s=gc-pause&set=nodes.count=1000&set=clients.count=1000", &e)
	runtime.ReadMemStats(&after)
	assert.Equal(t, http.StatusUnprocessableEntity, w.Code)
	assert.Contains(t, e.Error, "the run would exceed its budget: its world alone would hold 577MB before the first event")
	assert.Contains(t, e.Error, "The key that drives it is clients.count = 1000")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(100<<20), "refused without building the world")
}

// TestLossAndWatchdogAreRefusedCheaply: worlds with network loss or
// Redisson's watchdog, which the pilot refused after hundreds of MB, are
// refused from their Config with run's message.
func TestLossAndWatchdogAreRefusedCheaply(t *testing.T) {
	s := newServer(t, Options{})
	for _, c := range []struct{ query, msg string }{
		{"nodes.count=400&set=clients.count=400&set=network.loss=0.01", "The network loses a message with a chance of up to 0.01"},
		{"nodes.count=300&set=clients.count=300&set=lock.renewal=%22watchdog%22", "the 300 clients spend the rest of their time awake failing"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var e apiError
		w := get(t, s, "/api/run?s=gc-pause&set="+c.query, &e)
		runtime.ReadMemStats(&after)
		assert.Equal(t, http.StatusUnprocessableEntity, w.Code, c.query)
		assert.Contains(t, e.Error, "the run would exceed its budget: at least ", c.query)
		assert.Contains(t, e.Error, c.msg, c.query)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(100<<20), "%s: refused without building the world", c.query)
	}
}

// TestSeedMessageSaysItOnce: a seed past a file's range names the request
// and the key once ("seed: seed:" before).
func TestSeedMessageSaysItOnce(t *testing.T) {
	s := newServer(t, Options{})
	var e apiError
	w := get(t, s, "/api/run?s=gc-pause&seed=18446744073709551615", &e)
	assert.Equal(t, http.StatusUnprocessableEntity, w.Code)
	assert.Equal(t, "the request: seed: a scenario file's seed is at most 9223372036854775807, got 18446744073709551615", e.Error)
}

// TestLoadHeavyAndLight: over real loopback connections from several
// addresses (127.0.0.0/8 is all loopback), heavy requests (the issue's
// 1000 × 1000, and legitimate runs of a long baseline) and light ones (the
// catalog, and a short run from an address of its own) together, bounded
// in count. The server stays up, its heap stays under a stated bound,
// every light catalog request is served, every answer is one the
// admission gives (200, 422 with the budget, 429 with a message), and a
// light run is served once the heavy ones are answered.
func TestLoadHeavyAndLight(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	const heapBound = 1 << 30 // 1 GB, the bound for the server
	s := newServer(t, Options{MaxRunsAtOnce: 2, MaxWaiting: 4})
	srv := httptest.NewServer(s)
	defer srv.Close()
	from := func(ip string) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		return &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
	}
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()

	type answer struct {
		code int
		msg  string
	}
	fetch := func(c *http.Client, path string) answer {
		resp, err := c.Get(srv.URL + path)
		if !assert.NoError(t, err, path) {
			return answer{}
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var e apiError
		_ = json.Unmarshal(body, &e)
		return answer{resp.StatusCode, e.Error}
	}
	var mu sync.Mutex
	answers := map[string][]answer{}
	var wg sync.WaitGroup
	send := func(kind, ip, path string, n int) {
		c := from(ip)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a := fetch(c, path)
				mu.Lock()
				answers[kind] = append(answers[kind], a)
				mu.Unlock()
			}()
		}
	}
	start := time.Now()
	for i := range 5 { // ten of the requests at once, two per address
		send("huge", fmt.Sprintf("127.0.0.%d", 10+i), "/api/run?s=gc-pause&set=nodes.count=1000&set=clients.count=1000", 2)
	}
	for i := range 3 { // six legitimate runs of a long baseline
		send("long", fmt.Sprintf("127.0.0.%d", 20+i), `/api/run?s=baseline&set=duration="600s"`, 2)
	}
	send("catalog", "127.0.0.30", "/api/scenarios", 20)
	send("page", "127.0.0.30", "/", 20)
	wg.Wait()
	loaded := time.Since(start)
	light := fetch(from("127.0.0.31"), "/api/run?s=gc-pause")
	close(stop)
	<-sampled

	for _, a := range answers["catalog"] {
		assert.Equal(t, http.StatusOK, a.code, "a light request is served")
	}
	for _, a := range answers["page"] {
		assert.Equal(t, http.StatusOK, a.code, "a light request is served")
	}
	for _, a := range answers["huge"] {
		switch a.code {
		case http.StatusUnprocessableEntity:
			assert.Contains(t, a.msg, "its world alone would hold 577MB")
		case http.StatusTooManyRequests:
			assert.Contains(t, a.msg, "the lab is busy")
		default:
			t.Errorf("1000 × 1000 answered %d %q", a.code, a.msg)
		}
	}
	ran := 0
	for _, a := range answers["long"] {
		switch a.code {
		case http.StatusOK:
			ran++
		case http.StatusTooManyRequests:
			assert.Contains(t, a.msg, "the lab is busy")
		default:
			t.Errorf("a long baseline answered %d %q", a.code, a.msg)
		}
	}
	assert.Positive(t, ran, "some long runs ran")
	assert.Equal(t, http.StatusOK, light.code, "a light run after the load: %s", light.msg)
	assert.Less(t, peak.Load(), uint64(heapBound), "the heap stayed under the bound")
	t.Logf("load: %d requests in %v; long runs %d of %d ran; peak heap %d MB", len(answers["huge"])+len(answers["long"])+len(answers["catalog"])+len(answers["page"]),
		loaded.Round(time.Millisecond), ran, len(answers["long"]), peak.Load()>>20)
}
