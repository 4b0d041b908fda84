package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// DriverFailover is the single-instance lock on a Sentinel-managed master.
const DriverFailover = "raw-failover"

// failoverDriver is the single-instance lock on whichever node the
// Sentinel names master: SET NX PX and the Lua release on it, and, when
// the scenario waits for replicas, WAIT n on the same connection before
// the lock counts. It asks the Sentinel for the master before each try;
// the model's Sentinel tells the clients of a promotion, which comes to
// the same.
type failoverDriver struct {
	spec     ClientSpec
	clients  []*redis.Client // through this client's proxy links, in node order
	sentinel *redis.SentinelClient
	master   int
	rng      *rand.Rand
}

func newFailoverDriver(spec ClientSpec, rng *rand.Rand) (lockDriver, error) {
	d := &failoverDriver{spec: spec, rng: rng}
	for i, a := range spec.Nodes {
		d.clients = append(d.clients, newRedisClient(a, -1, selfStop.dialer(i)))
	}
	if err := warm(context.Background(), d.clients); err != nil {
		return nil, err
	}
	d.sentinel = redis.NewSentinelClient(&redis.Options{Addr: spec.SentinelAddr, Protocol: 2, DisableIdentity: true, MaxRetries: -1,
		ReadTimeout: spec.Lock.RequestTimeout + 50*time.Millisecond})
	return d, nil
}

func (d *failoverDriver) Name() string {
	if d.spec.Lock.WaitReplicas > 0 {
		return fmt.Sprintf("raw failover client (harness): SET NX PX on the Sentinel's master, then WAIT %d", d.spec.Lock.WaitReplicas)
	}
	return "raw failover client (harness): SET NX PX on the Sentinel's master and the Lua release"
}

// findMaster asks the Sentinel which node is master; on no answer the
// last known master stays.
func (d *failoverDriver) findMaster(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, d.spec.Lock.RequestTimeout+50*time.Millisecond)
	defer cancel()
	a, err := d.sentinel.GetMasterAddrByName(ctx, sentinelMaster).Result()
	if err != nil || len(a) != 2 {
		return
	}
	addr := net.JoinHostPort(a[0], a[1])
	for i, n := range d.spec.NodeAddrs {
		if n == addr {
			d.master = i
		}
	}
}

func (d *failoverDriver) Acquire(ctx context.Context, fresh func() uint64) (acquired, string) {
	l := d.spec.Lock
	var why string
	for try := 0; try <= l.Retries; try++ {
		if try > 0 && !sleepFor(ctx, retryDelay(l, d.rng)) {
			return acquired{}, "run ended"
		}
		d.findMaster(ctx)
		value := fresh()
		v := strconv.FormatUint(value, 10)
		start := time.Now()
		c := d.clients[d.master]
		timeout := l.RequestTimeout
		if l.WaitReplicas > 0 {
			timeout += l.WaitTimeout
		}
		rctx, cancel := context.WithTimeout(ctx, timeout)
		pipe := c.Pipeline() // one connection: WAIT counts this connection's writes
		set := pipe.SetNX(rctx, l.Key, v, l.TTL)
		var wait *redis.Cmd
		if l.WaitReplicas > 0 {
			wait = pipe.Do(rctx, "WAIT", l.WaitReplicas, l.WaitTimeout.Milliseconds())
		}
		_, _ = pipe.Exec(rctx)
		cancel()
		ok, err := set.Result()
		var acked int64
		if wait != nil {
			acked, _ = wait.Int64()
		}
		switch {
		case err != nil:
			why = fmt.Sprintf("n%d: %v", d.master+1, err)
		case !ok:
			why = fmt.Sprintf("n%d: the key is taken", d.master+1)
		case wait != nil && wait.Err() != nil:
			why = fmt.Sprintf("n%d: WAIT: %v", d.master+1, wait.Err())
		case wait != nil && acked < int64(l.WaitReplicas):
			why = fmt.Sprintf("WAIT got %d of %d replicas", acked, l.WaitReplicas)
		default:
			validity := l.TTL - time.Since(start) - l.Drift()
			if l.ValidityCheck && validity <= 0 {
				why = fmt.Sprintf("validity %v is not positive", validity)
				break
			}
			until := monoNow() + int64(time.Until(start.Add(l.TTL-l.Drift())))
			return acquired{ok: true, value: value, until: until, nodes: fmt.Sprintf("n%d", d.master+1)}, ""
		}
		d.Release(ctx, value)
	}
	return acquired{}, why
}

// Release sends the Lua release to the master and does not wait.
func (d *failoverDriver) Release(ctx context.Context, value uint64) {
	c := d.clients[d.master]
	v := strconv.FormatUint(value, 10)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), d.spec.Lock.RequestTimeout+time.Second)
		defer cancel()
		c.Eval(ctx, releaseScript, []string{d.spec.Lock.Key}, v)
	}()
}

func (d *failoverDriver) Close() error {
	for _, c := range d.clients {
		c.Close()
	}
	return d.sentinel.Close()
}
