package proxy

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/Shopify/toxiproxy/v2/toxics"
	"golang.org/x/sys/unix"

	"github.com/redlocksim/redlocksim/network"
)

// toxicType is the name under which the link toxic is registered with
// toxiproxy.
const toxicType = "redlocksim-link"

func init() { toxics.Register(toxicType, new(linkToxic)) }

// linkToxic is the one toxic on each direction of a link. toxiproxy shares
// one instance among all connections of the link, one Pipe goroutine per
// connection; the control it points to is shared too, so a fault applies to
// every connection of the link at once.
type linkToxic struct {
	ctl *control // set by Set.Link before the proxy starts
}

// GetBufferSize is the number of chunks that may wait in front of the toxic
// before the proxy stops reading the socket.
func (t *linkToxic) GetBufferSize() int { return 1024 }

// Pipe passes chunks in order, each at its due time and never while the
// direction is cut. An interrupt (a change of the toxic chain, which Set
// never makes after the start) forwards the pending chunk at once, as
// toxiproxy's own toxics do, so no byte is lost.
func (t *linkToxic) Pipe(stub *toxics.ToxicStub) {
	for {
		select {
		case <-stub.Interrupt:
			return
		case <-t.ctl.done:
			drain(stub)
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			switch t.ctl.wait(c.Timestamp, stub.Interrupt) {
			case waitDone:
				drain(stub)
				return
			case waitInterrupted:
				stub.Output <- c
				return
			}
			select {
			case stub.Output <- c:
			case <-t.ctl.done:
				drain(stub)
				return
			}
		}
	}
}

// drain discards input until the reader closes it, so that the reading
// goroutine never blocks on a full buffer after the Set closed, then
// closes the output, which ends the writing goroutine.
func drain(stub *toxics.ToxicStub) {
	for c := range stub.Input {
		if c == nil {
			break
		}
	}
	stub.Close()
}

type spike struct {
	start, end time.Time
	extra      time.Duration
}

// control is the state of one direction of one link.
type control struct {
	name string
	done <-chan struct{}

	mu     sync.Mutex
	lat    network.Latency // zero Kind: no added latency
	rng    *rand.Rand
	spikes []spike
	healed chan struct{} // non-nil while cut; closed by heal
}

func (c *control) setLatency(lat network.Latency) {
	c.mu.Lock()
	c.lat = lat
	c.mu.Unlock()
}

func (c *control) addSpike(start, end time.Time, extra time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Drop the spikes that are over, so a long run does not scan them all.
	c.spikes = deleteOver(c.spikes, start)
	c.spikes = append(c.spikes, spike{start, end, extra})
}

func deleteOver(sp []spike, now time.Time) []spike {
	out := sp[:0]
	for _, s := range sp {
		if s.end.After(now) {
			out = append(out, s)
		}
	}
	return out
}

func (c *control) cut() {
	c.mu.Lock()
	if c.healed == nil {
		c.healed = make(chan struct{})
	}
	c.mu.Unlock()
}

func (c *control) heal() {
	c.mu.Lock()
	if c.healed != nil {
		close(c.healed)
		c.healed = nil
	}
	c.mu.Unlock()
}

// due is when a chunk read at t may be delivered, ignoring cuts.
func (c *control) due(t time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var d time.Duration
	if c.lat.Kind != 0 {
		d = c.lat.Sample(c.rng)
	}
	for _, s := range c.spikes {
		if !t.Before(s.start) && t.Before(s.end) {
			d += s.extra
		}
	}
	return t.Add(d)
}

// holding returns the channel to wait on while the direction is cut, or
// nil when it is not.
func (c *control) holding() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.healed
}

// preciseBelow is the last part of a chunk's delay that the proxy sleeps
// with nanosleep rather than a Go timer. A Go timer on Linux waits in the
// netpoller, whose epoll_wait takes its timeout in whole milliseconds: a
// 155 µs timer fires after about 1.1 ms, and a proxy link with 60 µs each
// way had a 2.3 ms round trip (measured on the 2-core machine, go1.26).
// A scaled latency is mostly below a millisecond (the default 0.5–1.5 ms
// at scale 8.57 is 58–175 µs), so every hop cost five to ten times the
// scenario's latency, unscaled: a real round of five SETs one by one took
// 9 ms of wall time where the scenario's took 1.6. The kernel's
// high-resolution timer ends a nanosleep within about 70 µs. A Go timer
// (interruptible) covers all of a longer delay but its last 2 ms, which is
// more than its lateness.
const preciseBelow = 2 * time.Millisecond

// sleepPrecisely blocks the goroutine's thread for d (nothing if d <= 0),
// resuming after the signals the Go runtime sends its threads.
func sleepPrecisely(d time.Duration) {
	if d <= 0 {
		return
	}
	// The thread's timer slack (50 µs by default) would add to every
	// hop; 1 ns asks the kernel for none. A thread that keeps it sleeps
	// no worse for it.
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	ts := unix.NsecToTimespec(int64(d))
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}

type waitResult uint8

const (
	waitOK waitResult = iota
	waitInterrupted
	waitDone
)

// wait blocks until a chunk read at t may go: its due time has come and the
// direction is not cut.
func (c *control) wait(t time.Time, interrupt <-chan struct{}) waitResult {
	due := c.due(t)
	if d := time.Until(due) - preciseBelow; d > 0 {
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case <-interrupt:
			timer.Stop()
			return waitInterrupted
		case <-c.done:
			timer.Stop()
			return waitDone
		}
	}
	sleepPrecisely(time.Until(due))
	// A cut may begin again between a heal and the send, so look again.
	for h := c.holding(); h != nil; h = c.holding() {
		select {
		case <-h:
		case <-interrupt:
			return waitInterrupted
		case <-c.done:
			return waitDone
		}
	}
	return waitOK
}

var _ toxics.BufferedToxic = (*linkToxic)(nil)
