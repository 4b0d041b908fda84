package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/real/zookeeper"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
)

// DriverZooKeeper is the zookeeper lock's client driver: Curator's
// InterProcessMutex recipe on go-zookeeper (zookeeper.Locker).
const DriverZooKeeper = "zookeeper"

// zkSystem is the zookeeper lock's: a real 3-server ZooKeeper ensemble
// (cmd/internal/real/zookeeper) whose tickTime is the scenario's tick,
// each client reaching every server through proxy links of its own
// ("c1>store1", ...), as the lease lock reaches etcd. Pausing the store is
// SIGSTOP of every server.
type zkSystem struct{ storeSystem }

func (zkSystem) binaries() []binary {
	return []binary{{"redis-server", "redis-server"}, {zookeeper.Java, zookeeper.JavaPackage}, {zookeeper.Jar, zookeeper.Package}}
}

func (zkSystem) refusals(cfg *model.Config) []*RefusedError {
	return storeNetRefusals(cfg, "three ZooKeeper servers")
}

// minZKTick is the shortest scaled tick a real run takes: the servers
// expire sessions once a tick, and a JVM on a busy machine keeps a timer
// to a few milliseconds, not better.
const minZKTick = 50 * time.Millisecond

func (zkSystem) minimums(cfg *model.Config) []minimum {
	return []minimum{{"lock.tick", cfg.Lock.Tick, minZKTick}}
}

// zkTimes are the tickTime and session timeout of cfg's lock at scale f,
// in the whole milliseconds zoo.cfg and the client take.
func zkTimes(cfg *model.Config, f float64) (tick, timeout time.Duration) {
	return scaled(cfg.Lock.Tick, f).Round(time.Millisecond), scaled(cfg.Lock.TTL, f).Round(time.Millisecond)
}

// scaleError: the scaled session timeout must stay within the scaled
// ticks' bounds once both are whole milliseconds.
func (zkSystem) scaleError(cfg *model.Config, f float64) error {
	tick, timeout := zkTimes(cfg, f)
	if tick < time.Millisecond {
		return fmt.Errorf("--scale %g makes lock.tick %v, below ZooKeeper's 1 ms", f, tick)
	}
	if err := (zookeeper.Config{Tick: tick}).ValidSessionTimeout(timeout); err != nil {
		return fmt.Errorf("--scale %g: %w", f, err)
	}
	return nil
}

func (zkSystem) fitScale(_ *model.Config, s float64) float64 { return s }

// start starts a 3-server ensemble ticking at the scenario's scaled tick.
// The run's config is already scaled; the tick is rounded to whole
// milliseconds, as zoo.cfg takes it.
func (zkSystem) start(ctx context.Context, r *run) error {
	zc := zookeeper.Config{Tick: r.cfg.Lock.Tick.Round(time.Millisecond)}
	if err := zc.ValidSessionTimeout(r.cfg.Lock.TTL.Round(time.Millisecond)); err != nil {
		return &RefusedError{What: "lock.session_timeout", Reason: err.Error()}
	}
	return r.keepStore(zookeeper.Start(ctx, r.g, zc))
}

func (zkSystem) driver(client.LockConfig) string { return DriverZooKeeper }

// newZKDriver is the zookeeper lock's client: Curator's InterProcessMutex
// recipe on go-zookeeper (zookeeper.Locker).
func newZKDriver(spec ClientSpec, rng *rand.Rand) (lockDriver, error) {
	lc := spec.Lock
	l, err := zookeeper.NewLocker(zookeeper.LockConfig{
		Servers:        spec.Nodes,
		Path:           "/" + lc.Key,
		SessionTimeout: lc.TTL.Round(time.Millisecond),
		EndAtSuspended: lc.ErrorPolicy.EndsAtSuspended(),
	})
	if err != nil {
		return nil, err
	}
	name := "Curator's InterProcessMutex recipe on go-zookeeper v1.0.4 (" + lc.ErrorPolicy.String() + " error policy), against ZooKeeper " + zookeeper.Version
	// A try waits behind earlier nodes as Curator's recipe does. One whose
	// node went with its expired session (or whose session was LOST) is
	// retried with a new session, as model/client's zookeeper lock tries
	// again.
	return warmStoreDriver(spec, rng, name, l, func(ctx context.Context, value uint64) (acquired, storeHold, error) {
		h, err := l.Lock(ctx, value)
		if err != nil {
			return acquired{}, nil, err
		}
		// The belief lasts, without word from the servers, until
		// SUSPENDED (two thirds of the timeout) or LOST (a timeout
		// more), as the model's beliefEnd; Lost says when it ended.
		end := 2 * lc.TTL / 3
		if !lc.ErrorPolicy.EndsAtSuspended() {
			end += lc.TTL
		}
		return acquired{ok: true, value: value, until: monoNow() + int64(end), nodes: "store", token: h.Token, lost: h.Lost()}, h, nil
	})
}

// storeCluster is the consensus store of a real run: etcd's cluster or
// ZooKeeper's ensemble.
type storeCluster interface {
	Endpoints() []string
	Signal(sig syscall.Signal) error
}
