package harness

import (
	"context"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// stopper makes a client process freeze itself with SIGSTOP for a pause
// that the scenario places while the client's lock requests are in flight
// (pause-in-flight: c1 sends its SETs at 1 s and freezes 100 µs later).
// Timed from the harness, such a pause races the client's own timer on a
// busy machine: it lands before the requests leave, or after the replies
// were read, and tests something else. So for these pauses the client
// stops its own process group once the pause is due and every node's
// connection has written a request since the round began, that is, with
// its requests on the wire; the harness sends SIGCONT at the pause's end
// as for any pause.
type stopper struct {
	mu     sync.Mutex
	nodes  int
	due    []int64 // CLOCK_MONOTONIC ns of the pending self-stops, in order
	window int64   // a write this long before a due time belongs to its round
	wrote  map[int]bool
	before func() // called just before the stop (it logs the stop)
	timer  *time.Timer
}

// selfStop is this client process's stopper (one workload per process),
// nil when the scenario gives the client no pause in flight.
var selfStop *stopper

func newStopper(nodes int, window time.Duration, before func()) *stopper {
	return &stopper{nodes: nodes, window: int64(window), wrote: map[int]bool{}, before: before}
}

// start sets the due times, CLOCK_MONOTONIC ns in order, once T0 is known.
func (s *stopper) start(due []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.due = due
	s.arm()
}

// arm sets a timer for the next due time: if the round's requests are
// already out then, the stop happens at once; otherwise at the last
// write, or, failing that, a window after the due time.
func (s *stopper) arm() {
	if len(s.due) == 0 {
		return
	}
	due := s.due[0]
	s.timer = time.AfterFunc(time.Duration(due-monoNow()), func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.due) > 0 && s.due[0] == due && len(s.wrote) == s.nodes {
			s.stopLocked()
		}
	})
	time.AfterFunc(time.Duration(due+s.window-monoNow()), func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.due) > 0 && s.due[0] == due {
			s.stopLocked()
		}
	})
}

// write records that node i's connection wrote a request.
func (s *stopper) write(i int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.due) == 0 {
		return
	}
	now, due := monoNow(), s.due[0]
	if now < due-s.window {
		return
	}
	s.wrote[i] = true
	if len(s.wrote) == s.nodes && now >= due {
		s.stopLocked()
	}
}

func (s *stopper) stopLocked() {
	s.due = s.due[1:]
	clear(s.wrote)
	s.before()
	// The whole process group, every thread: the same stop the harness's
	// kill(2) would make.
	_ = syscall.Kill(-os.Getpid(), syscall.SIGSTOP)
	s.arm()
}

// dialer returns a go-redis dialer whose connections report their writes
// to s as node i.
func (s *stopper) dialer(i int) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if s == nil {
		return nil // go-redis's own dialer
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return c, err
		}
		return &watchedConn{Conn: c, s: s, i: i}, nil
	}
}

type watchedConn struct {
	net.Conn
	s *stopper
	i int
}

func (c *watchedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.s.write(c.i)
	return n, err
}
