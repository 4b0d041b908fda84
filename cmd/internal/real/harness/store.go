package harness

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/real/etcd"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proxy"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
)

// DriverStore is the lease lock's client driver: etcd's own recipe.
const DriverStore = "store"

// etcdSystem is the consensus lease lock's: a real 3-member etcd cluster
// (cmd/internal/real/etcd), each client reaching every member through
// proxy links of its own ("c1>store1", ...). Pausing the store is SIGSTOP
// of every member, as Jepsen's nemesis pauses etcd.
type etcdSystem struct{ storeSystem }

func (etcdSystem) binaries() []binary {
	return []binary{{"redis-server", "redis-server"}, {etcd.Binary, etcd.Package}}
}

func (etcdSystem) refusals(cfg *model.Config) []*RefusedError {
	return storeNetRefusals(cfg, "three etcd members")
}

func (etcdSystem) fitScale(cfg *model.Config, s float64) float64 { return leaseScale(cfg, s) }
func (etcdSystem) scaleError(cfg *model.Config, f float64) error { return leaseScaleError(cfg, f) }

// LessorCheckEvery is how often etcd's lessor looks for expired leases, in
// wall time: its runLoop (lease/lessor.go of 3.4) calls
// revokeExpiredLeases, then waits time.After(500 * time.Millisecond), and
// each revocation it finds then goes through raft. So the next holder of a
// lock gets it up to this long after the holder's deadline, or more.
const LessorCheckEvery = 500 * time.Millisecond

// LessorNote is the note on a real run of cfg's lease lock at scale f: how
// long etcd's look for expired leases is in scenario time, and what the
// scenario models, so that a user knows what store.lease_check_every to
// --set for the simulator to look as often. It is a note, not a change of
// the scenario: the real run is what it is whatever the key says.
func LessorNote(cfg *model.Config, f float64) string {
	x := time.Duration(math.Round(float64(LessorCheckEvery) * f))
	models := fmt.Sprintf("the scenario's store acts on each expiry exactly at it (store.lease_check_every = \"0s\"; --set store.lease_check_every=%v models etcd's)", x)
	if e := cfg.Store.LeaseCheckEvery; e > 0 {
		models = fmt.Sprintf("the scenario's store looks every %v (store.lease_check_every)", e)
	}
	return fmt.Sprintf("etcd's lessor looks for expired leases every %v of wall time (lease/lessor.go runLoop), %v of scenario time at scale %g; %s", LessorCheckEvery, x, f, models)
}

// scaleNotes: LessorNote.
func (etcdSystem) scaleNotes(cfg *model.Config, f float64) []string {
	return []string{LessorNote(cfg, f)}
}

// start starts a 3-member cluster whose timings grant the scenario's
// (scaled) lease TTL as asked.
func (etcdSystem) start(ctx context.Context, r *run) error {
	ec, err := etcd.ConfigFor(r.cfg.Lock.TTL)
	if err != nil {
		return &RefusedError{What: "lock.ttl", Reason: err.Error()}
	}
	return r.keepStore(etcd.Start(ctx, r.g, ec))
}

// storeSystem is what the systems with a consensus store (etcd's
// cluster, ZooKeeper's ensemble) do alike: each client reaches every
// server through proxy links of its own, and a pause of "store" stops
// them all.
type storeSystem struct{ redisSystem }

// connect puts the store's servers, through client c's links, after the
// client's node links.
func (storeSystem) connect(r *run, c string, spec *ClientSpec) error {
	store, err := r.storeLinks(c)
	spec.Nodes = append(spec.Nodes, store...)
	return err
}

// target: "store" is every server, frozen and resumed together: the
// simulator's store is one process.
func (storeSystem) target(r *run, name string) signaller {
	if name != "store" || r.store == nil {
		return nil
	}
	return storeProcs{r.store}
}

func (etcdSystem) driver(client.LockConfig) string { return DriverStore }

// keepStore makes c the run's store once it started (err nil): a failed
// start leaves r.store nil, not an interface holding a nil cluster, so that
// target and storeLinks see no store.
func (r *run) keepStore(c storeCluster, err error) error {
	if err != nil {
		return err
	}
	r.store = c
	return nil
}

// storeProcs signals every server of the store.
type storeProcs struct{ c storeCluster }

func (s storeProcs) signal(sig syscall.Signal) error { return s.c.Signal(sig) }

// storeLink names the proxy link from a client to store member i (0-based).
func storeLink(client string, i int) string {
	return linkName(client, "store"+strconv.Itoa(i+1))
}

// storeLinks adds client's proxy links to every store member, with the
// network's latency both ways and the overrides of the client↔store links,
// and returns their addresses (none without a store).
func (r *run) storeLinks(c string) ([]string, error) {
	if r.store == nil {
		return nil, nil
	}
	var addrs []string
	for i, a := range r.store.Endpoints() {
		name := storeLink(c, i)
		if err := r.links.Add(name, a); err != nil {
			return nil, err
		}
		for _, d := range []proxy.Dir{proxy.Upstream, proxy.Downstream} {
			if err := r.links.set.SetLatency(name, d, r.cfg.Network.Latency); err != nil {
				return nil, err
			}
		}
		for _, l := range r.cfg.Network.Links {
			if l.Latency.Kind == 0 {
				continue
			}
			var d proxy.Dir
			switch {
			case l.From == c && l.To == "store":
				d = proxy.Upstream
			case l.From == "store" && l.To == c:
				d = proxy.Downstream
			default:
				continue
			}
			if err := r.links.set.SetLatency(name, d, l.Latency); err != nil {
				return nil, err
			}
		}
		addrs = append(addrs, r.links.Addr(name))
	}
	return addrs, nil
}

// storeNetRefusals lists the network faults of a lease scenario that the
// real run cannot apply, as each kind's rule says (faultRule.onStoreLinks):
// partitions, cuts and spikes address one proxy link per client and
// server, and the store is three etcd members behind three links per
// client, which they do not reach.
func storeNetRefusals(cfg *model.Config, servers string) []*RefusedError {
	why := "the store is " + servers + " behind three proxy links per client, which partitions, cuts and spikes do not reach yet; pause the store instead"
	var out []*RefusedError
	for _, f := range cfg.Faults {
		if on := faultRules[f.Kind].onStoreLinks; on != nil {
			if what, reaches := on(f, cfg.Lock.Algorithm); reaches {
				out = append(out, &RefusedError{What: what, Reason: why})
			}
		}
	}
	return out
}

// leaseScaleError says why scale f cannot run cfg's lease lock, or nil:
// etcd grants leases in whole seconds only.
func leaseScaleError(cfg *model.Config, f float64) error {
	ttl := scaled(cfg.Lock.TTL, f)
	if ttl >= time.Second && ttl%time.Second == 0 {
		return nil
	}
	var ok []string
	for k := int64(1); k <= int64(cfg.Lock.TTL/time.Second) && len(ok) < 6; k++ {
		if g := float64(cfg.Lock.TTL) / float64(time.Duration(k)*time.Second); scaled(cfg.Lock.TTL, g) == time.Duration(k)*time.Second {
			ok = append(ok, strconv.FormatFloat(g, 'g', 4, 64))
		}
	}
	want := "no scale does"
	if len(ok) > 0 {
		want = "scales that do: " + strings.Join(ok, ", ")
	}
	return fmt.Errorf("--scale %g makes lock.ttl %v, but etcd grants leases in whole seconds only (%s)", f, ttl, want)
}

// leaseScale is the largest scale at most s at which the lease TTL scales
// to a whole number of seconds; 1 if none does.
func leaseScale(cfg *model.Config, s float64) float64 {
	for k := int64(math.Ceil(cfg.Lock.TTL.Seconds()/s - 1e-9)); k >= 1 && time.Duration(k)*time.Second <= cfg.Lock.TTL; k++ {
		f := float64(cfg.Lock.TTL) / float64(time.Duration(k)*time.Second)
		if leaseScaleError(cfg, f) == nil {
			return f
		}
	}
	return 1
}

// newEtcdDriver is the lease lock's client: etcd's own recipe, clientv3's
// concurrency.Mutex on a session lease (etcd.Locker).
func newEtcdDriver(spec ClientSpec, rng *rand.Rand) (lockDriver, error) {
	l, err := etcd.NewLocker(etcd.LockConfig{Endpoints: spec.Nodes, Key: spec.Lock.Key, TTL: spec.Lock.TTL})
	if err != nil {
		return nil, err
	}
	name := "etcd clientv3 v3.7.3 concurrency.Mutex on a session lease, against etcd " + etcdServerVersion
	// A try waits behind earlier holders as etcd's recipe does. A refused
	// one (the lease gone before the lock came, "session is expired") is
	// retried as model/client's lease lock retries a refused grant or lock.
	// The validity is the lease's, renewed by its keep-alives: the hold
	// reports Lost when it runs out.
	return warmStoreDriver(spec, rng, name, l, func(ctx context.Context, value uint64) (acquired, storeHold, error) {
		h, err := l.Lock(ctx)
		if err != nil {
			return acquired{}, nil, err
		}
		until := monoNow() + int64(time.Until(h.Deadline()))
		return acquired{ok: true, value: value, until: until, nodes: "store", token: h.Token, lost: h.Lost()}, h, nil
	})
}

// etcdServerVersion is the server the tests and the README were run with.
const etcdServerVersion = "3.4.23"

// storeLocker is a consensus store's lock client: etcd.Locker or
// zookeeper.Locker.
type storeLocker interface {
	Warm(ctx context.Context) error
	Close() error
}

// storeHold is a hold of a store's lock: etcd.Hold or zookeeper.Hold.
type storeHold interface {
	Release(ctx context.Context) error
}

// storeDriver is the client of a lock held in a consensus store (etcd's
// lease lock, ZooKeeper's recipe): lock makes one try, which the driver
// retries as tryAcquire does and whose hold it releases.
type storeDriver struct {
	spec ClientSpec
	rng  *rand.Rand
	name string
	l    storeLocker
	lock func(ctx context.Context, value uint64) (acquired, storeHold, error)
	hold storeHold
}

// warmStoreDriver warms l (its first connection) within 10 seconds, so
// that the first acquire does not pay for it, and drives it with lock.
func warmStoreDriver(spec ClientSpec, rng *rand.Rand, name string, l storeLocker, lock func(ctx context.Context, value uint64) (acquired, storeHold, error)) (lockDriver, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.Warm(ctx); err != nil {
		l.Close()
		return nil, err
	}
	return &storeDriver{spec: spec, rng: rng, name: name, l: l, lock: lock}, nil
}

func (d *storeDriver) Name() string { return d.name }

// Acquire takes the lock until ctx ends: a refused try is retried after
// the scenario's retry delay, up to its retries.
func (d *storeDriver) Acquire(ctx context.Context, fresh func() uint64) (acquired, string) {
	return tryAcquire(ctx, d.spec.Lock, d.rng, fresh, func(value uint64) (acquired, error) {
		got, h, err := d.lock(ctx, value)
		if err != nil {
			return acquired{}, err
		}
		d.hold = h
		return got, nil
	})
}

func (d *storeDriver) Release(ctx context.Context, _ uint64) {
	if d.hold != nil {
		_ = d.hold.Release(ctx)
		d.hold = nil
	}
}

func (d *storeDriver) Close() error { return d.l.Close() }

// tryAcquire runs a store lock's tries: a refused one is retried after
// the scenario's retry delay, up to its retries, until ctx ends.
func tryAcquire(ctx context.Context, l client.LockConfig, rng *rand.Rand, fresh func() uint64, try func(value uint64) (acquired, error)) (acquired, string) {
	var why string
	for n := 0; n <= l.Retries; n++ {
		if n > 0 && !sleepFor(ctx, retryDelay(l, rng)) {
			return acquired{}, "run ended"
		}
		got, err := try(fresh())
		if err == nil {
			return got, ""
		}
		why = err.Error()
		if ctx.Err() != nil {
			break
		}
	}
	return acquired{}, why
}
