package harness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/proto"
)

// acquired is the outcome of one acquire operation.
type acquired struct {
	ok    bool
	value uint64 // the lock's value (names the hold)
	until int64  // CLOCK_MONOTONIC ns: when the client's validity runs out
	nodes string // which nodes said OK, when the driver knows
	token uint64 // the lock's own fencing token (the lease lock's revision), 0 if none
	// lost, when not nil, closes when the validity runs out by the lock
	// client's own reckoning, renewals included (the lease lock's
	// keep-alives); until is then only its value at the acquisition.
	lost <-chan struct{}
}

// lockDriver is one lock client implementation inside a client process.
type lockDriver interface {
	// Name says which client ran, for the output.
	Name() string
	// Acquire runs one acquire operation with all its tries; why says
	// why it failed.
	Acquire(ctx context.Context, fresh func() uint64) (got acquired, why string)
	// Release gives the lock up (best effort, bounded by ctx).
	Release(ctx context.Context, value uint64)
	Close() error
}

// A DriverFunc makes a lock driver for a client process.
type DriverFunc func(spec ClientSpec, rng *rand.Rand) (lockDriver, error)

// drivers are the lock clients a client process can run, by name; the
// scenario's system picks one (system.driver, ChooseDriver).
var drivers = map[string]DriverFunc{
	DriverRedsync:    newRedsyncDriver,
	DriverRawRedlock: newRawDriver,
	DriverRawSingle:  newRawDriver,
	DriverFailover:   newFailoverDriver,
	DriverStore:      newEtcdDriver,
	DriverZooKeeper:  newZKDriver,
}

// The drivers' names.
const (
	DriverRedsync    = "redsync"
	DriverRawRedlock = "raw-redlock"
	DriverRawSingle  = "raw-single"
)

// newRedisClient is a go-redis client for one node as a lock client uses
// it: no retries of its own (the algorithm decides what a failure
// means), timeouts from the scenario, and the connection's context
// deadlines honoured so that a request timeout is the scenario's.
func newRedisClient(addr string, timeout time.Duration, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                     addr,
		Dialer:                   dial,
		Protocol:                 2,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
		MaxRetries:               -1,
		DialTimeout:              max(timeout, 100*time.Millisecond),
		ReadTimeout:              timeout,
		WriteTimeout:             timeout,
		ContextTimeoutEnabled:    true,
		PoolSize:                 8,
	})
}

// warm opens a connection to every node so that the first lock request
// does not pay for a TCP handshake through the proxy. A PING may time out
// under the scenario's short (scaled) timeout while the machine is busy
// starting the run's processes; it is tried again for up to 5 s.
func warm(ctx context.Context, cs []*redis.Client) error {
	for _, c := range cs {
		err := proc.WaitFor(ctx, nil, 5*time.Second, "a PING reply from "+c.Options().Addr, func() error {
			return c.Ping(ctx).Err()
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// retryDelay draws the model's delay between tries: uniform in
// [RetryDelay-RetryJitter, RetryDelay+RetryJitter].
func retryDelay(l client.LockConfig, rng *rand.Rand) time.Duration {
	d := l.RetryDelay
	if j := l.RetryJitter; j > 0 {
		d += time.Duration(rng.Int64N(int64(2*j)+1)) - j
	}
	return d
}

// --- redsync --------------------------------------------------------------

type redsyncDriver struct {
	spec    ClientSpec
	clients []*redis.Client
	rs      *redsync.Redsync
	rng     *rand.Rand
	mutex   *redsync.Mutex
	until   int64 // CLOCK_MONOTONIC ns: the current hold's end of validity
}

func newRedsyncDriver(spec ClientSpec, rng *rand.Rand) (lockDriver, error) {
	d := &redsyncDriver{spec: spec, rng: rng}
	var pools []redsyncredis.Pool
	for i, a := range spec.Nodes {
		c := newRedisClient(a, spec.Lock.RequestTimeout, selfStop.dialer(i))
		d.clients = append(d.clients, c)
		pools = append(pools, goredis.NewPool(c))
	}
	if err := warm(context.Background(), d.clients); err != nil {
		return nil, err
	}
	d.rs = redsync.New(pools...)
	return d, nil
}

func (d *redsyncDriver) Name() string {
	name := "redsync v4.18.1 over go-redis v9"
	if d.spec.Lock.FailFast {
		name += " with WithFailFast(true)"
	}
	return name + renewalName(d.spec.Lock, "Mutex.ExtendContext")
}

func (d *redsyncDriver) Acquire(ctx context.Context, fresh func() uint64) (acquired, string) {
	l := d.spec.Lock
	var value uint64
	// redsync's drift is expiry × factor; the scenario's is TTL × factor
	// + const, which the same formula gives with factor + const/TTL.
	factor := l.DriftFactor + float64(l.DriftConst)/float64(l.TTL)
	m := d.rs.NewMutex(l.Key,
		redsync.WithExpiry(l.TTL),
		redsync.WithTries(l.Retries+1),
		redsync.WithRetryDelayFunc(func(int) time.Duration { return retryDelay(l, d.rng) }),
		redsync.WithDriftFactor(factor),
		redsync.WithTimeoutFactor(float64(l.RequestTimeout)/float64(l.TTL)),
		redsync.WithFailFast(l.FailFast),
		redsync.WithGenValueFunc(func() (string, error) {
			value = fresh()
			return strconv.FormatUint(value, 10), nil
		}),
	)
	if err := m.LockContext(ctx); err != nil {
		return acquired{}, err.Error()
	}
	d.mutex = m
	// Until carries Go's monotonic reading; time.Until measures on it.
	d.until = monoNow() + int64(time.Until(m.Until()))
	return acquired{ok: true, value: value, until: d.until}, ""
}

func (d *redsyncDriver) Release(ctx context.Context, value uint64) {
	if d.mutex != nil {
		_, _ = d.mutex.UnlockContext(ctx)
		d.mutex = nil
	}
}

func (d *redsyncDriver) Close() error {
	var errs []error
	for _, c := range d.clients {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// --- the raw client -----------------------------------------------------------

// rawDriver is the harness's own Redlock (and single-instance) client. It
// follows model/client step by step, so it can do what no library offers:
// skip the elapsed-time validity check, measure elapsed time on the wall
// clock, ask the nodes one by one, or use a quorum other than N/2+1. With
// one node it is the plain single-instance lock: SET NX PX and the Lua
// release.
type rawDriver struct {
	spec    ClientSpec
	clients []*redis.Client
	rng     *rand.Rand
	clk     *ownClock
	// deadline is the current hold's end of validity, read on the clock
	// that measures it (lock.elapsed_clock); extensions move it.
	deadline time.Duration
	names    []string // the nodes' names, in the order of clients
}

func newRawDriver(spec ClientSpec, rng *rand.Rand) (lockDriver, error) {
	clk, err := newOwnClock(spec.Clock)
	if err != nil {
		return nil, err
	}
	d := &rawDriver{spec: spec, rng: rng, clk: clk}
	for i, a := range spec.Nodes {
		d.clients = append(d.clients, newRedisClient(a, -1, selfStop.dialer(i)))
		d.names = append(d.names, "n"+strconv.Itoa(i+1))
	}
	if err := warm(context.Background(), d.clients); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *rawDriver) Name() string {
	return d.name() + renewalName(d.spec.Lock, "the Lua compare-and-PEXPIRE script")
}

func (d *rawDriver) name() string {
	l := d.spec.Lock
	if !l.Algorithm.AsksAll() {
		return "raw single-instance client (harness): SET NX PX and the Lua release"
	}
	var odd []string
	if !l.ValidityCheck {
		odd = append(odd, "no elapsed-time validity check")
	}
	if l.Sequential {
		odd = append(odd, "nodes asked one by one")
	}
	if l.ElapsedClock == proto.Wall {
		odd = append(odd, "elapsed time on the wall clock")
	}

	if l.Quorum > 0 {
		odd = append(odd, fmt.Sprintf("quorum %d", l.Quorum))
	}
	if l.FailFast {
		odd = append(odd, "fail-fast (decides at the first quorum of answers, as redsync's WithFailFast)")
	}
	if l.DriftAdded {
		odd = append(odd, "redlock-py's drift-sign bug (validity = TTL − (elapsed − drift))")
	}
	if l.QuorumOfReached {
		odd = append(odd, "redlock-py's connected-quorum bug (the quorum is a majority of the nodes reached at start-up)")
	}
	if l.ExpiryFromFirstTry {
		odd = append(odd, "node-redlock's first-attempt-expiry bug (validity from the first try, unchecked; issues 296, 299)")
	}
	if len(odd) == 0 {
		return "raw Redlock client (harness)"
	}
	return "raw Redlock client (harness): " + strings.Join(odd, ", ")
}

const releaseScript = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`

// setT0 starts the client's own clocks at the run's T0.
func (d *rawDriver) setT0(t0 int64) { d.clk.t0.Store(t0) }

func (d *rawDriver) Acquire(ctx context.Context, fresh func() uint64) (acquired, string) {
	l := d.spec.Lock
	quorum := l.QuorumOf(len(d.clients))
	drift := l.Drift()
	if l.DriftAdded {
		// redlock-py's sign bug: validity = ttl − (elapsed − drift).
		drift = -drift
	}
	attemptStart := d.clk.read(l.ElapsedClock)
	var why string
	for try := 0; try <= l.Retries; try++ {
		if try > 0 && !sleepFor(ctx, retryDelay(l, d.rng)) {
			return acquired{}, "run ended"
		}
		value := fresh()
		// Elapsed time on the clock the scenario measures it on (the
		// wall or the monotonic clock of the client's own pair), as the
		// model's client reads it.
		start := d.clk.read(l.ElapsedClock)
		oks := d.round(ctx, value)
		now := d.clk.read(l.ElapsedClock)
		elapsed := now - start
		validity := l.TTL - elapsed - drift
		n := 0
		var names []string
		for i, ok := range oks {
			if ok {
				n++
				names = append(names, d.names[i])
			}
		}
		switch {
		case n < quorum:
			asked := len(d.clients)
			if !l.Algorithm.AsksAll() {
				asked = 1
			}
			why = fmt.Sprintf("%d of %d nodes said OK, need %d", n, asked, quorum)
		case l.ExpiryFromFirstTry:
			// node-redlock's bug (its issues 296 and 299): the
			// expiration counts from the first try, and nothing checks
			// it before handing the lock out.
			d.deadline = attemptStart + l.TTL - drift
			return acquired{ok: true, value: value, until: d.clk.when(l.ElapsedClock, d.deadline), nodes: strings.Join(names, ",")}, ""
		case l.ValidityCheck && validity <= 0:
			why = fmt.Sprintf("quorum reached but validity %v is not positive (elapsed %v)", validity, elapsed)
		default:
			// The validity timer is set on the same clock, as the
			// model's is: it fires when that clock reads the deadline.
			d.deadline = start + l.TTL - drift
			if !l.ValidityCheck {
				// It assumes the whole TTL, less drift, from the replies.
				d.deadline = now + l.TTL - drift
			}
			until := d.clk.when(l.ElapsedClock, d.deadline)
			return acquired{ok: true, value: value, until: until, nodes: strings.Join(names, ",")}, ""
		}
		d.unlock(value)
	}
	return acquired{}, why
}

// round sends SET NX PX to every node, in parallel or one by one, and
// returns which said OK within the request timeout.
func (d *rawDriver) round(ctx context.Context, value uint64) []bool {
	l := d.spec.Lock
	v := strconv.FormatUint(value, 10)
	return d.ask(ctx, l.Sequential, l.FailFast, func(ctx context.Context, c *redis.Client) bool {
		ok, err := c.SetNX(ctx, l.Key, v, l.TTL).Result()
		return err == nil && ok
	})
}

// ask sends op to every node, in parallel or one by one, and returns
// which said yes within the request timeout. A process frozen while its
// requests were out wakes to find both the replies (in its sockets) and
// the timeout due; like the model, which hands a frozen actor what
// arrived in arrival order, it reads what is already there before it
// counts the rest as timed out.
//
// failFast (redsync's WithFailFast, lock.fail_fast) returns as soon as a
// quorum has said yes or a quorum has said no, as the model's client
// decides; what comes later counts for nothing.
func (d *rawDriver) ask(ctx context.Context, sequential, failFast bool, op func(context.Context, *redis.Client) bool) []bool {
	l := d.spec.Lock
	need := l.QuorumOf(len(d.clients))
	yes, no := 0, 0
	oks := make([]bool, len(d.clients))
	type reply struct {
		i  int
		ok bool
	}
	res := make(chan reply, len(d.clients))
	send := func(i int) {
		go func() { res <- reply{i, op(context.WithoutCancel(ctx), d.clients[i])} }()
	}
	wait := func(pending int) {
		due := time.Now().Add(l.RequestTimeout)
		t := time.NewTimer(l.RequestTimeout)
		defer t.Stop()
		for pending > 0 {
			select {
			case r := <-res:
				oks[r.i] = r.ok
				pending--
				if r.ok {
					yes++
				} else {
					no++
				}
				if failFast && (yes >= need || no >= need) {
					return
				}
			case <-t.C:
				if time.Since(due) < 5*time.Millisecond {
					return
				}
				// Frozen past the timeout: read what the sockets
				// already hold before counting the rest as lost.
				grace := time.After(5 * time.Millisecond)
				for pending > 0 {
					select {
					case r := <-res:
						oks[r.i] = r.ok
						pending--
					case <-grace:
						return
					}
				}
			}
		}
	}
	if sequential {
		for i := range d.clients {
			if failFast && (yes >= need || no >= need) {
				break
			}
			send(i)
			wait(1)
		}
		return oks
	}
	for i := range d.clients {
		send(i)
	}
	wait(len(d.clients))
	return oks
}

// unlock sends the release script to every node and does not wait, as
// the model's client does after a failed try.
func (d *rawDriver) unlock(value uint64) {
	v := strconv.FormatUint(value, 10)
	for _, c := range d.clients {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), d.spec.Lock.RequestTimeout+time.Second)
			defer cancel()
			c.Eval(ctx, releaseScript, []string{d.spec.Lock.Key}, v)
		}()
	}
}

// connect is redlock-py's constructor, for lock.preset
// redlock-py-connected-quorum: it asks every node once when the client
// starts and keeps those that answered within the request timeout; the
// quorum is then a majority of those (model/client's connect). It says
// which it kept and the quorum it counts.
func (d *rawDriver) connect(ctx context.Context) (nodes string, quorum int) {
	l := d.spec.Lock
	reached := d.ask(ctx, false, false, func(ctx context.Context, c *redis.Client) bool {
		err := c.Get(ctx, l.Key).Err()
		return err == nil || errors.Is(err, redis.Nil)
	})
	var clients []*redis.Client
	var names []string
	for i, ok := range reached {
		if ok {
			clients, names = append(clients, d.clients[i]), append(names, d.names[i])
		} else {
			defer d.clients[i].Close()
		}
	}
	d.clients, d.names = clients, names
	return strings.Join(names, ","), l.QuorumOf(len(clients))
}

func (d *rawDriver) Release(ctx context.Context, value uint64) { d.unlock(value) }

func (d *rawDriver) Close() error {
	var errs []error
	for _, c := range d.clients {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
