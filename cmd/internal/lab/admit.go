package lab

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"
)

// Admission's defaults: a run is single-threaded, so one per core keeps
// the machine's cores busy and no more; a few requests wait for each.
const (
	defaultQueuePerRun = 4
	// perAddress is the most requests one connection address may have
	// running or waiting at once: its page's run, and the next.
	perAddress       = 2
	defaultQueueWait = time.Minute
)

// admission bounds the runs the server makes, whoever asks: at most
// maxRuns at once server-wide; at most maxWaiting more wait for one to
// end, each at most maxWait; and each connection address (not a header
// the client chooses) at most perAddress running or waiting. A request
// beyond any bound is refused with 429 at once, before it loads anything.
type admission struct {
	slots      chan struct{} // one token per run at once
	maxRuns    int
	maxWaiting int
	maxWait    time.Duration

	mu      sync.Mutex
	waiting int
	byAddr  map[string]int // requests running or waiting, per address
}

func newAdmission(maxRuns, maxWaiting int, maxWait time.Duration) *admission {
	if maxRuns <= 0 {
		maxRuns = runtime.NumCPU()
	}
	if maxWaiting <= 0 {
		maxWaiting = defaultQueuePerRun * maxRuns
	}
	if maxWait <= 0 {
		maxWait = defaultQueueWait
	}
	return &admission{slots: make(chan struct{}, maxRuns), maxRuns: maxRuns, maxWaiting: maxWaiting, maxWait: maxWait, byAddr: map[string]int{}}
}

// busyError is a request the server turns away for now: 429.
type busyError struct{ msg string }

func (e *busyError) Error() string { return e.msg }

// clientAddr is the connection's address without its port: what the
// fairness counts by. The server does not trust X-Lab-Client or
// X-Forwarded-For for it: a client chooses those.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// admit waits for a run slot for the request from addr; release gives it
// back. It refuses at once, with a *busyError, when addr already has
// perAddress requests in or the queue is full, and after maxWait; it
// returns ctx's error when the client went away.
func (a *admission) admit(ctx context.Context, addr string) (release func(), err error) {
	a.mu.Lock()
	if a.byAddr[addr] >= perAddress {
		a.mu.Unlock()
		return nil, &busyError{fmt.Sprintf("%s already has %d requests running or waiting; wait for their answers", addr, perAddress)}
	}
	a.byAddr[addr]++
	a.mu.Unlock()
	leave := func() {
		a.mu.Lock()
		if a.byAddr[addr]--; a.byAddr[addr] == 0 {
			delete(a.byAddr, addr)
		}
		a.mu.Unlock()
	}
	select {
	case a.slots <- struct{}{}:
		return func() { <-a.slots; leave() }, nil
	default:
	}
	a.mu.Lock()
	if a.waiting >= a.maxWaiting {
		a.mu.Unlock()
		leave()
		return nil, &busyError{fmt.Sprintf("the lab is busy: %d runs at once and %d more waiting, its most; try again in a moment", a.maxRuns, a.maxWaiting)}
	}
	a.waiting++
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.waiting--
		a.mu.Unlock()
	}()
	timer := time.NewTimer(a.maxWait)
	defer timer.Stop()
	select {
	case a.slots <- struct{}{}:
		return func() { <-a.slots; leave() }, nil
	case <-timer.C:
		leave()
		return nil, &busyError{fmt.Sprintf("the lab is busy: waited %v for one of its %d runs at once; try again in a moment", a.maxWait, a.maxRuns)}
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}
