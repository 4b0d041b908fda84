package harness

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlocksim/redlocksim/model/client"
)

// extender is a lock driver that can push its current hold's expiry back:
// lock.renewal and lock.extend run on it.
type extender interface {
	// extend runs one extension round for the hold named value: ok when
	// enough nodes pushed the key's expiry back to the full TTL and the
	// validity is still positive; until is then the hold's new end of
	// validity (CLOCK_MONOTONIC ns); agreed says how many nodes agreed.
	extend(ctx context.Context, value uint64) (ok bool, until int64, agreed string)
	// dueBefore is the CLOCK_MONOTONIC ns at which margin of the current
	// hold's validity is left, by the client's own clock.
	dueBefore(margin time.Duration) int64
	// expired says whether the current hold's validity has run out by
	// the client's own clock.
	expired() bool
}

// renews says whether a scenario's lock keeps its holds alive from the
// client (lock.renewal or lock.extend).
func renews(l client.LockConfig) bool {
	return l.Renewal != client.NoRenewal || (l.Extend && l.MaxExtensions > 0)
}

// renewalName says, for the lock client's name, how it keeps its holds.
func renewalName(l client.LockConfig, how string) string {
	switch {
	case l.Renewal == client.Watchdog:
		return "; watchdog renewal (Redisson's): " + how + " every TTL/3, stopping silently at the first failure"
	case l.Renewal == client.AutoExtend:
		return fmt.Sprintf("; auto-extend renewal (node-redlock's using()): %s when less than %v is left, aborting the work if it fails", how, l.ExtendThreshold)
	case renews(l):
		return fmt.Sprintf("; extends: %s at %g of the validity, up to %d times", how, l.ExtendAt, l.MaxExtensions)
	}
	return ""
}

// renew keeps hold got alive as model/client's redisLock does, until done
// closes (the release) or the renewal ends. It runs on this process's own
// timers, so a SIGSTOP of the process stalls it, as it stalls Redisson's
// watchdog thread.
//   - watchdog: every TTL/3 a renewal to the full TTL; the first that
//     fails stops the renewal, and nothing tells the application.
//   - auto-extend (node-redlock's using()): an extension when less than
//     extend_threshold of the validity is left; if it fails, or the lock
//     had already expired, abort stops the work.
//   - extend: at extend_at of the validity left, up to max_extensions
//     times; the first that fails ends the extensions, and the belief
//     ends with the validity.
func (w *workload) renew(done <-chan struct{}, got acquired, abort func(why string)) {
	l := w.spec.Lock
	x := w.lock.(extender) // Refusals lets no other driver renew
	until := got.until
	wait := func(due int64) bool {
		t := time.NewTimer(time.Duration(due - monoNow()))
		defer t.Stop()
		select {
		case <-done:
			return false
		case <-t.C:
			return true
		}
	}
	for n := 1; ; n++ {
		var due int64
		switch l.Renewal {
		case client.Watchdog:
			due = monoNow() + int64(l.TTL/3)
		case client.AutoExtend:
			due = x.dueBefore(l.ExtendThreshold)
		default:
			if n > l.MaxExtensions {
				return
			}
			// The model sets this timer on the client's clock; over one
			// validity its rate's difference from CLOCK_MONOTONIC is
			// below a timer's resolution here.
			now := monoNow()
			due = now + int64(float64(until-now)*l.ExtendAt)
		}
		if !wait(due) {
			return
		}
		if l.Renewal == client.AutoExtend && x.expired() {
			// node-redlock's Lock.extend throws "Cannot extend an
			// already-expired lock." without asking Redis.
			abort("the lock had expired before it could be extended")
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.RequestTimeout+time.Second)
		ok, next, agreed := x.extend(ctx, got.value)
		cancel()
		select {
		case <-done: // released meanwhile: the answer counts for nothing
			return
		default:
		}
		ev := Event{Kind: EvExtend, OK: ok, Lock: got.value, N: n, Text: agreed}
		switch l.Renewal {
		case client.Watchdog:
			ev.Until = -1
			w.ev.emit(ev)
			if !ok {
				return
			}
		case client.AutoExtend:
			if !ok {
				abort(fmt.Sprintf("extension failed (%s nodes agreed)", agreed))
				return
			}
			until = next
			w.renewed(until)
			ev.Until = time.Duration(until - w.ev.t0)
			w.ev.emit(ev)
		default:
			if !ok || x.expired() || !w.believing() {
				ev.OK = false
				w.ev.emit(ev)
				return
			}
			until = next
			w.renewed(until)
			ev.Until = time.Duration(until - w.ev.t0)
			w.ev.emit(ev)
		}
	}
}

// renewed moves the hold's validity to until (CLOCK_MONOTONIC ns).
func (w *workload) renewed(until int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.until = until
	if w.validity != nil && w.believes {
		w.validity.Reset(time.Duration(until - monoNow()))
	}
}

func (w *workload) believing() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.believes
}

// extendScript pushes the key's expiry back to the full TTL if it still
// holds this client's value, as the model's CompareExtend does.
const extendScript = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`

// extend is the raw client's extension round: the compare-and-PEXPIRE
// script to every node at once, a quorum of 1s within the request
// timeout, and the validity counted from the round's start on the
// client's own clock, as in model/client.
func (d *rawDriver) extend(ctx context.Context, value uint64) (bool, int64, string) {
	l := d.spec.Lock
	v := strconv.FormatUint(value, 10)
	start := d.clk.read(l.ElapsedClock)
	oks := d.ask(ctx, false, false, func(ctx context.Context, c *redis.Client) bool {
		n, err := c.Eval(ctx, extendScript, []string{l.Key}, v, l.TTL.Milliseconds()).Int()
		return err == nil && n == 1
	})
	n := 0
	for _, ok := range oks {
		if ok {
			n++
		}
	}
	if n < l.QuorumOf(len(d.clients)) {
		return false, 0, strconv.Itoa(n)
	}
	d.deadline = start + l.TTL - l.Drift()
	return true, d.clk.when(l.ElapsedClock, d.deadline), strconv.Itoa(n)
}

func (d *rawDriver) dueBefore(margin time.Duration) int64 {
	return d.clk.when(d.spec.Lock.ElapsedClock, d.deadline-margin)
}

func (d *rawDriver) expired() bool {
	return d.clk.read(d.spec.Lock.ElapsedClock) >= d.deadline
}

// extend is redsync's own: Mutex.ExtendContext, which touches every node
// with its compare-and-PEXPIRE script and counts the validity from the
// round's start, less its drift.
func (d *redsyncDriver) extend(ctx context.Context, value uint64) (bool, int64, string) {
	if d.mutex == nil {
		return false, 0, "0"
	}
	ok, err := d.mutex.ExtendContext(ctx)
	if !ok {
		_ = err // which nodes refused; the count is what the story tells
		return false, 0, "fewer than " + strconv.Itoa(len(d.clients)/2+1)
	}
	d.until = monoNow() + int64(time.Until(d.mutex.Until()))
	return true, d.until, "a quorum of"
}

func (d *redsyncDriver) dueBefore(margin time.Duration) int64 { return d.until - int64(margin) }

func (d *redsyncDriver) expired() bool { return monoNow() >= d.until }

// The drivers that extends names.
var (
	_ extender = (*rawDriver)(nil)
	_ extender = (*redsyncDriver)(nil)
)
