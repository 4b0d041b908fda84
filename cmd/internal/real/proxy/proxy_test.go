package proxy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/network"
)

// echoServer accepts connections and echoes every byte. got holds, per
// connection in accept order, the bytes the server has received so far.
type echoServer struct {
	ln  net.Listener
	mu  sync.Mutex
	got []*bytes.Buffer
}

func newEcho(t *testing.T) *echoServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	e := &echoServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			e.mu.Lock()
			buf := new(bytes.Buffer)
			e.got = append(e.got, buf)
			e.mu.Unlock()
			go func() {
				defer c.Close()
				b := make([]byte, 32<<10)
				for {
					n, err := c.Read(b)
					if n > 0 {
						e.mu.Lock()
						buf.Write(b[:n])
						e.mu.Unlock()
						if _, werr := c.Write(b[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return e
}

// received is the number of bytes connection i has delivered to the server.
func (e *echoServer) received(i int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if i >= len(e.got) {
		return 0
	}
	return e.got[i].Len()
}

func setup(t *testing.T) (*Set, *echoServer, string) {
	t.Helper()
	e := newEcho(t)
	s := New(os.Stderr, 1)
	t.Cleanup(s.Close)
	addr, err := s.Link("c1-n1", e.ln.Addr().String())
	require.NoError(t, err)
	return s, e, addr
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes msg and reads its echo, failing after limit.
func roundTrip(t *testing.T, c net.Conn, msg []byte, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	_, err := c.Write(msg)
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(limit)))
	got := make([]byte, len(msg))
	_, err = io.ReadFull(c, got)
	require.NoError(t, err, "echo of %q", msg)
	if !bytes.Equal(got, msg) {
		t.Fatalf("echo: got %q, want %q", got, msg)
	}
	return time.Since(start)
}

// readNothing asserts that nothing arrives on c within d.
func readNothing(t *testing.T, c net.Conn, d time.Duration) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(d)))
	b := make([]byte, 1)
	n, err := c.Read(b)
	var ne net.Error
	if n != 0 || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read while cut: got %d bytes (%q), err %v; want a timeout with nothing", n, b[:n], err)
	}
}

// A cut holds bytes in the cut direction, the other direction still flows,
// nothing is lost, and the bytes arrive soon after the heal.
func TestCutHoldsBothWaysUntilHeal(t *testing.T) {
	s, e, addr := setup(t)
	c := dial(t, addr)
	roundTrip(t, c, []byte("hello"), 5*time.Second)
	const hold = 400 * time.Millisecond
	// Generous for a loaded 2-core machine; an unheld byte takes well under
	// a millisecond.
	const tolerance = 250 * time.Millisecond

	// Upstream cut: the server receives nothing.
	require.NoError(t, s.Cut("c1-n1", Upstream))
	_, err := c.Write([]byte("up"))
	require.NoError(t, err)
	readNothing(t, c, hold)
	if n := e.received(0); n != len("hello") {
		t.Fatalf("server received %d bytes during an upstream cut; want %d (only hello)", n, len("hello"))
	}
	healed := time.Now()
	require.NoError(t, s.Heal("c1-n1"))
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	got := make([]byte, 2)
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	if lag := time.Since(healed); string(got) != "up" || lag > tolerance {
		t.Fatalf("after the heal: got %q after %v; want \"up\" within %v", got, lag, tolerance)
	}

	// Downstream cut: the server receives, the client gets no reply.
	require.NoError(t, s.Cut("c1-n1", Downstream))
	_, err = c.Write([]byte("down"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return e.received(0) == len("helloupdown") },
		5*time.Second, time.Millisecond, "the server should receive while only downstream is cut")
	readNothing(t, c, hold)
	healed = time.Now()
	require.NoError(t, s.Heal("c1-n1"))
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	got = make([]byte, 4)
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	if lag := time.Since(healed); string(got) != "down" || lag > tolerance {
		t.Fatalf("after the heal: got %q after %v; want \"down\" within %v", got, lag, tolerance)
	}
}

// Bytes held by a cut are all delivered, in order, even past the proxy's
// buffer: the sender sees back pressure, not a loss.
func TestCutLosesNothing(t *testing.T) {
	s, e, addr := setup(t)
	c := dial(t, addr)
	roundTrip(t, c, []byte("x"), 5*time.Second)
	require.NoError(t, s.Cut("c1-n1", Both))

	msg := make([]byte, 4<<20) // larger than socket buffers plus the proxy's
	for i := range msg {
		msg[i] = byte(i*7 + i>>11)
	}
	wrote := make(chan error, 1)
	go func() { _, err := c.Write(msg); wrote <- err }()
	got := make(chan []byte, 1)
	go func() {
		b := make([]byte, len(msg))
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		n, _ := io.ReadFull(c, b)
		got <- b[:n]
	}()
	time.Sleep(300 * time.Millisecond)
	if n := e.received(0); n != 1 {
		t.Fatalf("server received %d bytes during the cut; want 1 (the first x)", n)
	}
	require.NoError(t, s.Heal("c1-n1"))
	require.NoError(t, <-wrote)
	b := <-got
	if !bytes.Equal(b, msg) {
		t.Fatalf("after the heal: got %d bytes back, equal %v; want all %d in order", len(b), bytes.Equal(b, msg[:len(b)]), len(msg))
	}
}

// A connection opened during a cut carries nothing until the heal.
func TestConnectionOpenedDuringCut(t *testing.T) {
	s, _, addr := setup(t)
	require.NoError(t, s.Cut("c1-n1", Both))
	c := dial(t, addr)
	_, err := c.Write([]byte("ping"))
	require.NoError(t, err)
	readNothing(t, c, 300*time.Millisecond)
	require.NoError(t, s.Heal("c1-n1"))
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	got := make([]byte, 4)
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	if string(got) != "ping" {
		t.Fatalf("got %q after the heal; want ping", got)
	}
}

func meanRTT(t *testing.T, c net.Conn, n int) (mean, min time.Duration) {
	t.Helper()
	min = time.Hour
	var sum time.Duration
	for range n {
		d := roundTrip(t, c, []byte("x"), 10*time.Second)
		sum += d
		min = minDur(min, d)
	}
	return sum / time.Duration(n), min
}

func minDur(a, b time.Duration) time.Duration {
	if a < b {
		return a
	}
	return b
}

// The latency distribution is applied per direction: no round trip is
// faster than the two minimum delays, and the mean is near the sum of the
// means. Only the upper bounds allow for a loaded machine.
func TestLatencyIsApplied(t *testing.T) {
	cases := []struct {
		name     string
		up, down network.Latency
		min      time.Duration // lower bound of every round trip
		mean     time.Duration // expected mean round trip, floor excluded
	}{
		{"constant", network.Constant(15 * time.Millisecond), network.Constant(5 * time.Millisecond), 20 * time.Millisecond, 20 * time.Millisecond},
		{"uniform", network.Uniform(10*time.Millisecond, 30*time.Millisecond), network.Constant(0), 10 * time.Millisecond, 20 * time.Millisecond},
		{"exponential", network.Latency{Kind: network.LatencyExponential, Min: 5 * time.Millisecond, Mean: 15 * time.Millisecond}, network.Constant(0), 5 * time.Millisecond, 15 * time.Millisecond},
		{"lognormal", network.Lognormal(10*time.Millisecond, 0.3), network.Constant(0), 0, 10*time.Millisecond + 460*time.Microsecond}, // mean = median·exp(σ²/2)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, _, addr := setup(t)
			c := dial(t, addr)
			roundTrip(t, c, []byte("warm"), 5*time.Second)
			const n = 60
			// The machine's own round trip, measured on the same
			// connection just before: on a loaded machine it is
			// milliseconds, and it adds to the latency.
			floor, _ := meanRTT(t, c, n)
			require.NoError(t, s.SetLatency("c1-n1", Upstream, tc.up))
			require.NoError(t, s.SetLatency("c1-n1", Downstream, tc.down))
			mean, min := meanRTT(t, c, n)
			if min < tc.min {
				t.Errorf("fastest round trip %v; want >= %v", min, tc.min)
			}
			// The sample mean's spread: for these distributions the standard
			// deviation is at most 10ms, so over 60 draws the mean is within
			// 4ms at 3 sigma; the rest is the loaded machine's floor, and
			// how much it changes between the two measures.
			if lo, hi := tc.mean-4*time.Millisecond, tc.mean+20*time.Millisecond+floor; mean < lo || mean > hi {
				t.Errorf("mean round trip %v (the machine's own %v); want in [%v, %v]", mean, floor, lo, hi)
			}
		})
	}
}

// A latency below a millisecond is what every scaled run has (the
// default 0.5–1.5 ms at scale 8.57 is 58–175 µs). Delayed on a Go timer
// alone, each hop took at least the netpoller's millisecond: 100 µs each
// way made a 2.2 ms round trip. The median round trip must stay well below
// that, above the two delays, with the machine's own round trip (measured
// just before on the same connection) and half a millisecond of wake-ups
// on top.
func TestSubMillisecondLatencyIsPrecise(t *testing.T) {
	s, _, addr := setup(t)
	c := dial(t, addr)
	roundTrip(t, c, []byte("warm"), 5*time.Second)
	const n, each = 61, 100 * time.Microsecond
	median := func() time.Duration {
		rtts := make([]time.Duration, n)
		for i := range rtts {
			rtts[i] = roundTrip(t, c, []byte("x"), 10*time.Second)
		}
		slices.Sort(rtts)
		return rtts[n/2]
	}
	floor := median()
	require.NoError(t, s.SetLatency("c1-n1", Upstream, network.Constant(each)))
	require.NoError(t, s.SetLatency("c1-n1", Downstream, network.Constant(each)))
	got := median()
	if got < 2*each {
		t.Errorf("median round trip %v; want >= %v, the two delays", got, 2*each)
	}
	if limit := 2*each + floor + 500*time.Microsecond; got >= limit {
		t.Errorf("median round trip %v with %v each way (the machine's own %v); want < %v", got, each, floor, limit)
	}
}

// A spike delays what is sent inside its window, and only that.
func TestSpikeWindow(t *testing.T) {
	s, _, addr := setup(t)
	c := dial(t, addr)
	roundTrip(t, c, []byte("warm"), 5*time.Second)
	const extra = 150 * time.Millisecond
	require.NoError(t, s.Spike("c1-n1", Downstream, extra, 400*time.Millisecond))
	require.NoError(t, s.Spike("c1-n1", Downstream, extra, 100*time.Millisecond))
	if d := roundTrip(t, c, []byte("a"), 5*time.Second); d < 2*extra {
		t.Errorf("round trip inside two overlapping spikes took %v; want >= %v", d, 2*extra)
	}
	time.Sleep(400 * time.Millisecond)
	if d := roundTrip(t, c, []byte("b"), 5*time.Second); d >= extra {
		t.Errorf("round trip after the spike took %v; want < %v", d, extra)
	}
}

// Faults applied from many goroutines while traffic flows: the race
// detector watches, and every byte still comes back.
func TestConcurrentFaults(t *testing.T) {
	s, _, addr := setup(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				s.Cut("c1-n1", Both)
				s.SetLatency("c1-n1", Upstream, network.Uniform(0, time.Millisecond))
				s.Spike("c1-n1", Both, time.Millisecond, time.Millisecond)
				s.Heal("c1-n1")
				time.Sleep(time.Millisecond)
			}
		})
	}
	for i := range 3 {
		c := dial(t, addr)
		for j := range 20 {
			roundTrip(t, c, []byte{byte(i), byte(j), 'z'}, 10*time.Second)
		}
	}
	close(stop)
	wg.Wait()
}

// Close ends held connections instead of leaving them hanging.
func TestCloseReleasesHeldConnections(t *testing.T) {
	s, _, addr := setup(t)
	c := dial(t, addr)
	roundTrip(t, c, []byte("x"), 5*time.Second)
	require.NoError(t, s.Cut("c1-n1", Both))
	_, err := c.Write([]byte("held"))
	require.NoError(t, err)
	s.Close()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	n, err := c.Read(make([]byte, 8))
	var ne net.Error
	if n != 0 || err == nil || (errors.As(err, &ne) && ne.Timeout()) {
		t.Fatalf("read after Close: %d bytes, err %v; want the connection closed", n, err)
	}
	if _, err := s.Link("again", "127.0.0.1:1"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Link after Close: err %v; want ErrClosed", err)
	}
	s.Close() // a second Close is harmless
}

func TestBadUse(t *testing.T) {
	s, _, _ := setup(t)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"duplicate link", func() error { _, err := s.Link("c1-n1", "127.0.0.1:1"); return err }(), `proxy link "c1-n1" already exists`},
		{"empty name", func() error { _, err := s.Link("", "127.0.0.1:1"); return err }(), "proxy link name is empty"},
		{"unknown link", s.Cut("nope", Both), `no proxy link "nope"`},
		{"bad direction", s.Cut("c1-n1", 0), `proxy link "c1-n1": direction Dir(0) is not upstream, downstream or both`},
		{"bad latency", s.SetLatency("c1-n1", Upstream, network.Uniform(5, 1)), `proxy link "c1-n1": uniform latency max 1ns is below min 5ns; want max >= min`},
		{"bad spike", s.Spike("c1-n1", Upstream, 0, time.Second), `proxy link "c1-n1": spike of 0s for 1s; want both positive`},
	}
	for _, tc := range cases {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("%s: err %v; want %q", tc.name, tc.err, tc.want)
		}
	}
	cut, err := s.IsCut("c1-n1", Both)
	require.NoError(t, err)
	if cut {
		t.Errorf("IsCut after failed calls: true; want false")
	}
}

func TestFloor(t *testing.T) {
	f, err := Floor(50)
	require.NoError(t, err)
	if f <= 0 || f > 20*time.Millisecond {
		t.Fatalf("loopback floor %v; want in (0, 20ms]", f)
	}
	t.Logf("loopback one-way floor through the proxy: %v", f)
	if _, err := Floor(0); err == nil {
		t.Fatalf("Floor(0): no error; want one")
	}
}
