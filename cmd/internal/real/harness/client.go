package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sys/unix"

	"github.com/redlocksim/redlocksim/cmd/internal/real/resource"
	"github.com/redlocksim/redlocksim/model/client"
)

// emitter writes a client's events, stamped on the shared monotonic clock.
type emitter struct {
	mu sync.Mutex
	w  *bufio.Writer
	t0 int64
}

func (e *emitter) now() time.Duration { return time.Duration(monoNow() - e.t0) }

func (e *emitter) emit(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ev.At == 0 {
		ev.At = e.now()
	}
	b, _ := json.Marshal(ev)
	e.w.Write(b)
	e.w.WriteByte('\n')
	e.w.Flush() // at once: the process may be frozen or killed any moment
}

// workload is one client process's loop; it mirrors model/client's: wait
// StartIn, acquire (with the algorithm's retries), take a fencing token
// when the scenario has them, read the resource, hold CriticalSection,
// write back one new element, release, think, again.
type workload struct {
	spec   ClientSpec
	ev     *emitter
	lock   lockDriver
	fence  *redis.Client
	res    *resource.Client
	rng    *rand.Rand
	serial uint64
	// stops are the pauses on acquisition not yet taken (AcquireStop).
	stops []AcquireStop

	mu       sync.Mutex
	believes bool
	holdLock uint64
	until    int64 // CLOCK_MONOTONIC ns: the hold's believed end of validity
	validity *time.Timer
}

// fresh makes a unique lock value or element, as model/client does: the
// client's id above bit 40, a serial below.
func (w *workload) fresh() uint64 {
	w.serial++
	return uint64(w.spec.ID)<<40 | w.serial
}

// RunClient is a client process: it reads its ClientSpec (one JSON line)
// from in, connects, writes a ready event, reads the run's T0 (one line,
// CLOCK_MONOTONIC ns) and runs its workload until its iterations are done
// or the run's end, writing events to out.
func RunClient(ctx context.Context, in io.Reader, out io.Writer) error {
	r := bufio.NewReader(in)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read the client spec: %w", err)
	}
	var spec ClientSpec
	if err := json.Unmarshal(line, &spec); err != nil {
		return fmt.Errorf("decode the client spec: %w", err)
	}
	ev := &emitter{w: bufio.NewWriter(out)}
	w := &workload{spec: spec, ev: ev, rng: rand.New(rand.NewPCG(spec.Seed, uint64(spec.ID))), stops: spec.AcquireStops}
	if len(spec.SelfStops) > 0 {
		selfStop = newStopper(len(spec.Nodes), spec.Lock.RequestTimeout, func() {
			ev.emit(Event{Kind: EvNote, Text: "freezes itself (SIGSTOP) with its lock requests on the wire"})
		})
	}
	mk, ok := drivers[spec.Driver]
	if !ok {
		return fmt.Errorf("unknown lock driver %q", spec.Driver)
	}
	if w.lock, err = mk(spec, w.rng); err != nil {
		return err
	}
	defer w.lock.Close()
	if spec.FenceAddr != "" {
		w.fence = newRedisClient(spec.FenceAddr, spec.Work.RequestTimeout, nil)
		defer w.fence.Close()
		if err := warm(ctx, []*redis.Client{w.fence}); err != nil {
			return err
		}
	}
	if w.res, err = resource.NewClient(spec.Resource, spec.Name, spec.Work.RequestTimeout); err != nil {
		return fmt.Errorf("resource %s: %w", spec.Resource, err)
	}
	defer w.res.Close()
	ev.emit(Event{Kind: EvReady, Text: w.lock.Name()})
	line, err = r.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read T0: %w", err)
	}
	if ev.t0, err = strconv.ParseInt(string(bytes.TrimSpace(line)), 10, 64); err != nil {
		return fmt.Errorf("decode T0 %q: %w", line, err)
	}
	if c, ok := w.lock.(interface{ setT0(int64) }); ok {
		c.setT0(ev.t0) // a driver on the client's own clocks (ownClock)
	}
	if selfStop != nil {
		due := make([]int64, len(spec.SelfStops))
		for i, d := range spec.SelfStops {
			due[i] = ev.t0 + int64(d)
		}
		selfStop.start(due)
	}

	end := time.Duration(spec.End)
	ctx, cancel := context.WithTimeout(ctx, end-ev.now())
	defer cancel()
	if !sleepUntil(ctx, ev, spec.StartIn) {
		return nil
	}
	if c, ok := w.lock.(interface {
		connect(context.Context) (string, int)
	}); ok && spec.Lock.QuorumOfReached {
		nodes, quorum := c.connect(ctx)
		ev.emit(Event{Kind: EvConnect, Text: nodes, N: quorum})
	}
	for iter := 0; spec.Work.Iterations == 0 || iter < spec.Work.Iterations; {
		if ctx.Err() != nil {
			return nil
		}
		ev.emit(Event{Kind: EvAttempt})
		got, why := w.lock.Acquire(ctx, w.fresh)
		if ctx.Err() != nil {
			return nil
		}
		if !got.ok {
			ev.emit(Event{Kind: EvAttemptEnd, Text: why})
			if !sleepFor(ctx, spec.Work.Think) {
				return nil
			}
			continue
		}
		iter++
		w.critical(ctx, got)
		if !sleepFor(ctx, spec.Work.Think) {
			return nil
		}
	}
	return nil
}

// critical is one hold: from the lock to its release.
func (w *workload) critical(ctx context.Context, got acquired) {
	ev := w.ev
	l := w.spec.Lock
	ev.emit(Event{Kind: EvAttemptEnd, OK: true, Lock: got.value})
	w.mu.Lock()
	w.believes, w.holdLock, w.until, w.validity = true, got.value, got.until, nil
	until := time.Duration(got.until - ev.t0)
	if l.Renewal == client.Watchdog {
		// Redisson gives the application no validity to watch.
		w.until, until = math.MaxInt64, -1
	}
	w.mu.Unlock()
	at := ev.now()
	ev.emit(Event{Kind: EvHold, At: at, Lock: got.value, Until: until, Text: got.nodes})
	if l.Renewal != client.Watchdog && got.until <= ev.t0+int64(at) {
		// Born expired: by the client's own reckoning the validity ran
		// out before the lock came (an etcd lease granted before a pause
		// of the store and its lock given after). The model's client ends
		// such a belief at the instant it begins; the timer or watcher
		// below would end it a goroutine's wake-up later, a hold of tens
		// of microseconds that cuts an outage in two.
		w.endBeliefAt(at, "validity ran out")
	}
	// The belief ends when the client's own timer says the validity ran
	// out; a frozen process cannot run the timer, so its belief lasts
	// through a pause, as in the model.
	switch {
	case got.lost != nil:
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-got.lost:
				w.endBelief("its lease ran out")
			case <-stop:
			}
		}()
	case l.Renewal == client.Watchdog:
		// The holder believes until it unlocks.
	default:
		w.mu.Lock()
		w.validity = time.AfterFunc(time.Duration(got.until-monoNow()), func() { w.endBelief("validity ran out") })
		w.mu.Unlock()
	}
	// The work stops when the lock library aborts it (node-redlock's
	// AbortSignal); the release comes after the renewal has stopped, as
	// Redisson's unlock cancels its renewal first.
	ctx, abortWork := context.WithCancel(ctx)
	defer abortWork()
	defer w.release(got)
	if renews(l) {
		done := make(chan struct{})
		stopped := make(chan struct{})
		defer func() { close(done); <-stopped }()
		go func() {
			defer close(stopped)
			w.renew(done, got, func(why string) {
				ev.emit(Event{Kind: EvAbort, Lock: got.value, Text: why})
				w.endBelief("work aborted: " + why)
				abortWork()
			})
		}()
	}
	w.work(ctx, got, w.stopOnAcquire(got.value, at))
}

// stopOnAcquire takes the pauses on acquisition armed by the hold at
// (AcquireStop): the longest of them, as the model's pause in force. It
// returns the function that stops the client once its first request of
// the work is answered or has failed (what says which), or a no-op.
func (w *workload) stopOnAcquire(lock uint64, at time.Duration) (stop func(what string)) {
	d := w.dueStop(at)
	if d == 0 {
		return func(string) {}
	}
	return func(what string) {
		if d == 0 {
			return
		}
		w.ev.emit(Event{Kind: EvStop, Lock: lock, Until: at + d, Text: what})
		d = 0
		stopSelf() // the harness sends SIGCONT at Until
	}
}

// dueStop takes the pauses armed by an acquisition at at (their From at
// or before it) and returns the longest one's length: 0 when none is
// due, or when the run is over.
func (w *workload) dueStop(at time.Duration) time.Duration {
	var d time.Duration
	for len(w.stops) > 0 && w.stops[0].From <= at {
		d = max(d, w.stops[0].For)
		w.stops = w.stops[1:]
	}
	if at >= w.spec.End {
		return 0
	}
	return d
}

// stopSelf stops the whole process (every thread, as the harness's
// kill(2) would) before the calling goroutine goes on. A SIGSTOP sent to
// the process is taken by whichever thread the kernel picks, and the
// caller may run on for some microseconds, long enough to start a timer
// that then runs out during the stop; sent to the calling thread itself
// (tgkill, on a locked thread), it stops that thread on the way out of the
// system call, and the stop spreads to the others from there.
func stopSelf() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), unix.SIGSTOP)
}

// work is a hold's work under the lock: its fencing token, the read, the
// critical section and the write, each refusal said as a note. It returns
// early when the lock library aborts the work (ctx). stop takes a pause
// on acquisition, once the first request is answered (AcquireStop).
func (w *workload) work(ctx context.Context, got acquired, stop func(what string)) {
	ev := w.ev
	work := w.spec.Work
	token := got.token
	if token != 0 { // the lock's own token, from where it was granted
		ev.emit(Event{Kind: EvToken, Lock: got.value, Token: token, Text: got.nodes})
	}
	if w.fence != nil {
		rctx, cancel := context.WithTimeout(ctx, work.RequestTimeout)
		n, err := w.fence.Incr(rctx, work.FenceKey).Result()
		cancel()
		if err != nil {
			stop("with its fencing token's INCR failed")
			ev.emit(Event{Kind: EvNote, Text: "gives up waiting for a fencing token: " + err.Error()})
			return
		}
		stop("with the reply to its fencing token's INCR in")
		token = uint64(n)
		ev.emit(Event{Kind: EvToken, Lock: got.value, Token: token})
	}
	version, _, err := w.res.Read(got.value, token)
	if err != nil {
		stop("with its read of the resource failed")
		ev.emit(Event{Kind: EvNote, Text: "gives up reading the resource: " + err.Error()})
		return
	}
	stop("with the reply to its read of the resource in")
	if !sleepFor(ctx, work.CriticalSection) {
		return
	}
	if work.RecheckBeforeWrite {
		w.mu.Lock()
		believes, remaining := w.believes, time.Duration(w.until-monoNow())
		w.mu.Unlock()
		if !believes || remaining < work.RecheckMargin {
			ev.emit(Event{Kind: EvNote, Text: fmt.Sprintf("abandons its write: %v of validity left", remaining)})
			return
		}
	}
	if ctx.Err() != nil { // aborted during the read
		return
	}
	element := w.fresh()
	reply, err := w.res.Write(got.value, token, element, version)
	switch {
	case err != nil:
		ev.emit(Event{Kind: EvNote, Text: "gives up waiting for its write: " + err.Error()})
	case !reply.Accepted:
		ev.emit(Event{Kind: EvNote, Text: "write refused: " + reply.Reason})
	}
}

func (w *workload) endBelief(why string) { w.endBeliefAt(0, why) }

// endBeliefAt ends the belief as of at (0: now).
func (w *workload) endBeliefAt(at time.Duration, why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.believes {
		return
	}
	w.believes = false
	w.ev.emit(Event{Kind: EvHoldEnd, At: at, Lock: w.holdLock, Text: why})
}

// release stops believing first, then unlocks: the model's unlock is a
// message it does not wait for.
func (w *workload) release(got acquired) {
	w.mu.Lock()
	if w.validity != nil {
		w.validity.Stop()
	}
	w.mu.Unlock()
	w.endBelief("released")
	ctx, cancel := context.WithTimeout(context.Background(), w.spec.Lock.RequestTimeout)
	defer cancel()
	w.lock.Release(ctx, got.value)
}

// sleepUntil sleeps until at (after T0) or ctx ends; false if ctx ended.
func sleepUntil(ctx context.Context, ev *emitter, at time.Duration) bool {
	return sleepFor(ctx, at-ev.now())
}

func sleepFor(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
