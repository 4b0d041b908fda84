package resource

import (
	"bufio"
	"errors"
	"net"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model/check"
	simres "github.com/redlocksim/redlocksim/model/resource"
)

func start(t *testing.T, cfg simres.Config) (*Server, time.Time) {
	t.Helper()
	t0 := time.Now()
	s, err := Listen(cfg, "127.0.0.1:0", t0)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, t0
}

func client(t *testing.T, s *Server, name string) *Client {
	t.Helper()
	c, err := NewClient(s.Addr(), name, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func read(t *testing.T, c *Client, lock, token uint64) int64 {
	t.Helper()
	v, _, err := c.Read(lock, token)
	require.NoError(t, err)
	return v
}

func write(t *testing.T, c *Client, lock, token, elem uint64, base int64) WriteReply {
	t.Helper()
	r, err := c.Write(lock, token, elem, base)
	require.NoError(t, err)
	return r
}

func wantReply(t *testing.T, what string, got, want WriteReply) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
}

// Kleppmann's fencing: c1 (token 33) and c2 (token 34) both read; c2 writes;
// c1's write is stale and rejected with the simulator's reason text.
func TestFencing(t *testing.T) {
	s, _ := start(t, simres.Config{Mode: simres.Fencing})
	c1, c2 := client(t, s, "c1"), client(t, s, "c2")
	if v := read(t, c1, 0xa, 33); v != 0 {
		t.Fatalf("first read: version %d, want 0", v)
	}
	read(t, c2, 0xb, 34)
	wantReply(t, "c2's write", write(t, c2, 0xb, 34, 2, 0), WriteReply{Accepted: true, Version: 1})
	wantReply(t, "c1's stale write", write(t, c1, 0xa, 33, 1, 0), WriteReply{Version: 1, Reason: "token 33 < 34"})
	if f := s.Final(); !slices.Equal(f, []uint64{2}) {
		t.Errorf("final set %v, want [2]", f)
	}
}

// With FenceWritesOnly, a stale holder that read before the new holder's
// read writes first and its element is then dropped: a lost update the
// checker counts from this server's history.
func TestFenceWritesOnlyLosesAnUpdate(t *testing.T) {
	s, t0 := start(t, simres.Config{Mode: simres.Fencing, FenceWritesOnly: true})
	c1, c2 := client(t, s, "c1"), client(t, s, "c2")
	read(t, c1, 0xa, 33)
	read(t, c2, 0xb, 34)
	wantReply(t, "c1's write", write(t, c1, 0xa, 33, 1, 0), WriteReply{Accepted: true, Version: 1})
	wantReply(t, "c2's write", write(t, c2, 0xb, 34, 2, 0), WriteReply{Accepted: true, Version: 2})
	end := time.Since(t0)

	holds := []check.Hold{
		{ID: 1, Client: "c1", Start: 0, End: end, Token: 33, Lock: 0xa},
		{ID: 2, Client: "c2", Start: 0, End: end, Token: 34, Lock: 0xb},
	}
	reads, writes := s.History(func(client string, lock uint64) int {
		for _, h := range holds {
			if h.Client == client && h.Lock == lock {
				return h.ID
			}
		}
		return 0
	})
	h := check.History{End: end, Holds: holds, Reads: reads, Writes: writes, Final: s.Final()}
	require.NoError(t, h.Validate())
	r := check.Check(h)
	if r.LostUpdates != 1 || r.WritesAccepted != 2 {
		t.Errorf("checker: %d lost updates, %d writes accepted; want 1 and 2", r.LostUpdates, r.WritesAccepted)
	}
	if len(reads) != 2 || reads[0].HoldID != 1 || reads[1].HoldID != 2 {
		t.Errorf("reads %+v; want c1's under hold 1, then c2's under hold 2", reads)
	}
}

// Compare-and-set: the latest reader owns the resource; a write under
// another lock value is rejected, and a stale holder that reads again takes
// the claim back, as the simulator's resource does.
func TestCompareAndSet(t *testing.T) {
	s, _ := start(t, simres.Config{Mode: simres.CompareAndSet})
	c1, c2 := client(t, s, "c1"), client(t, s, "c2")
	read(t, c1, 0xa, 0)
	read(t, c2, 0xb, 0)
	wantReply(t, "c1 after c2's claim", write(t, c1, 0xa, 0, 1, 0), WriteReply{Version: 0, Reason: "lock a != owner b"})
	wantReply(t, "c2, the owner", write(t, c2, 0xb, 0, 2, 0), WriteReply{Accepted: true, Version: 1})
	v := read(t, c1, 0xa, 0)
	wantReply(t, "c1 after reading again", write(t, c1, 0xa, 0, 1, v), WriteReply{Accepted: true, Version: 2})
	if f := s.Final(); !slices.Equal(f, []uint64{1, 2}) {
		t.Errorf("final set %v, want [1 2]", f)
	}
}

// Unprotected: every write is accepted, and one based on an old version
// drops what was added since; a read returns the set.
func TestUnprotectedLostUpdate(t *testing.T) {
	s, _ := start(t, simres.Config{Mode: simres.Unprotected})
	c1, c2 := client(t, s, "c1"), client(t, s, "c2")
	write(t, c1, 1, 0, 7, 0)
	v, set, err := c2.Read(2, 0)
	require.NoError(t, err)
	if v != 1 || !slices.Equal(set, []uint64{7}) {
		t.Fatalf("read: version %d set %v; want 1 [7]", v, set)
	}
	wantReply(t, "c2 on version 1", write(t, c2, 2, 0, 8, 1), WriteReply{Accepted: true, Version: 2})
	wantReply(t, "c1 on version 0", write(t, c1, 1, 0, 9, 0), WriteReply{Accepted: true, Version: 3})
	if f := s.Final(); !slices.Equal(f, []uint64{9}) {
		t.Errorf("final set %v, want [9] (7 and 8 lost)", f)
	}
	ops := s.Ops()
	if len(ops) != 4 {
		t.Fatalf("%d ops recorded, want 4", len(ops))
	}
	for i := 1; i < len(ops); i++ {
		if ops[i].At < ops[i-1].At {
			t.Errorf("op %d at %v before op %d at %v", i, ops[i].At, i-1, ops[i-1].At)
		}
	}
}

// SetStart re-times what follows, and only that.
func TestSetStart(t *testing.T) {
	s, _ := start(t, simres.Config{Mode: simres.Unprotected})
	c := client(t, s, "c1")
	read(t, c, 1, 0)
	later := time.Now().Add(time.Hour) // ops before it get negative stamps
	s.SetStart(later)
	read(t, c, 1, 0)
	ops := s.Ops()
	require.Len(t, ops, 2)
	if ops[0].At < 0 || ops[1].At > -59*time.Minute {
		t.Errorf("stamps %v and %v; want the first from the old start, the second about -1h from the new", ops[0].At, ops[1].At)
	}
}

// Requests are served one at a time, each after the service time, and
// stamped when they take effect.
func TestServiceTime(t *testing.T) {
	const service = 60 * time.Millisecond
	s, t0 := start(t, simres.Config{Mode: simres.Unprotected, ServiceTime: service})
	var wg sync.WaitGroup
	for _, name := range []string{"c1", "c2", "c3"} {
		c := client(t, s, name)
		wg.Go(func() {
			if _, _, err := c.Read(1, 0); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		})
	}
	wg.Wait()
	ops := s.Ops()
	require.Len(t, ops, 3)
	if ops[0].At < service {
		t.Errorf("first op at %v; want >= %v", ops[0].At, service)
	}
	for i := 1; i < len(ops); i++ {
		if gap := ops[i].At - ops[i-1].At; gap < service {
			t.Errorf("ops %d and %d %v apart; want >= %v (one at a time)", i-1, i, gap, service)
		}
	}
	if d := time.Since(t0); d < 3*service {
		t.Errorf("three requests served in %v; want >= %v", d, 3*service)
	}
}

// Malformed requests get ERR, change nothing and are not recorded; the
// connection stays usable, except after an overlong line.
func TestBadRequests(t *testing.T) {
	s, _ := start(t, simres.Config{Mode: simres.Fencing})
	conn, err := net.Dial("tcp", s.Addr())
	require.NoError(t, err)
	defer conn.Close()
	rd := bufio.NewReader(conn)
	cases := []struct{ req, want string }{
		{"FOO", `ERR unknown request "FOO"; want READ or WRITE`},
		{"READ c1 1", "ERR READ has 3 fields; want READ <client> <lock> <token>"},
		{"READ c1 x 1", `ERR lock "x" is not a decimal uint64`},
		{"WRITE c1 1 1 5", "ERR WRITE has 5 fields; want WRITE <client> <lock> <token> <element> <base>"},
		{"WRITE c1 1 1 5 -1", `ERR base version "-1" is not a decimal integer >= 0`},
		{"WRITE c1 1 1 5 3", "ERR base version 3 was never issued (current 0)"},
		{"READ  1 1", "ERR empty client name"},
		{"READ c1 1 1", "OK 0 -"},
	}
	for _, tc := range cases {
		_, err := conn.Write([]byte(tc.req + "\n"))
		require.NoError(t, err)
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, err := rd.ReadString('\n')
		require.NoError(t, err)
		if got != tc.want+"\n" {
			t.Errorf("%q: got %q, want %q", tc.req, got, tc.want)
		}
	}
	if n := len(s.Ops()); n != 1 {
		t.Errorf("%d ops recorded; want 1 (only the good read)", n)
	}
	long := make([]byte, 2*maxLine)
	for i := range long {
		long[i] = 'R'
	}
	conn.Write(append(long, '\n'))
	got, _ := rd.ReadString('\n')
	if got != "ERR request longer than 512 bytes\n" {
		t.Errorf("overlong line: got %q", got)
	}
	if _, err := rd.ReadString('\n'); err == nil {
		t.Errorf("connection still open after an overlong line; want it closed")
	}
	c := client(t, s, "c9")
	if _, err := c.Write(1, 1, 1, 7); err == nil || err.Error() != "resource refused the request: base version 7 was never issued (current 0)" {
		t.Errorf("client write on an unissued version: err %v", err)
	}
}

// A server that never answers makes the client time out, and the client
// redials for its next request.
func TestClientTimeoutRedials(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // never answers
		}
	}()
	c, err := NewClient(ln.Addr().String(), "c1", 100*time.Millisecond)
	require.NoError(t, err)
	defer c.Close()
	for i := range 2 {
		start := time.Now()
		_, _, err := c.Read(1, 1)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read %d: err %v; want a deadline error", i, err)
		}
		if d := time.Since(start); d < 100*time.Millisecond {
			t.Errorf("read %d failed after %v; want >= the 100ms timeout", i, d)
		}
	}
	if n := len(accepted); n != 2 {
		t.Errorf("%d connections; want 2 (a redial after the timeout)", n)
	}
	for range len(accepted) {
		(<-accepted).Close()
	}
}

func TestNewClientRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		want    string
	}{
		{"c 1", time.Second, `resource client name "c 1": want a non-empty name without spaces or line breaks`},
		{"", time.Second, `resource client name "": want a non-empty name without spaces or line breaks`},
		{"c1", 0, "resource client timeout 0s; want > 0"},
	} {
		if _, err := NewClient("127.0.0.1:1", tc.name, tc.timeout); err == nil || err.Error() != tc.want {
			t.Errorf("NewClient(%q, %v): err %v, want %q", tc.name, tc.timeout, err, tc.want)
		}
	}
	if _, err := Listen(simres.Config{}, "127.0.0.1:0", time.Now()); err == nil {
		t.Errorf("Listen with mode 0: no error")
	}
}

// Close ends connected clients' connections and the record stays.
func TestCloseEndsConnections(t *testing.T) {
	s, _ := start(t, simres.Config{Mode: simres.Unprotected})
	c := client(t, s, "c1")
	read(t, c, 1, 0)
	require.NoError(t, s.Close())
	if _, _, err := c.Read(1, 0); err == nil {
		t.Errorf("read after Close: no error")
	}
	if n := len(s.Ops()); n != 1 {
		t.Errorf("%d ops after Close; want 1", n)
	}
	require.NoError(t, s.Close())
}
