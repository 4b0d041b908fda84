package client

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Algorithm is a lock algorithm. The zero value is invalid.
type Algorithm uint8

const (
	_         Algorithm = iota
	Single              // SET NX PX on one Redis node
	Failover            // SET NX PX on the current master of a replicated set, optionally WAIT n
	Redlock             // SET NX PX on a quorum of N independent masters
	Lease               // a lease-bound key on a consensus store (etcd-like)
	ZooKeeper           // Curator's InterProcessMutex: an ephemeral sequential znode of a session
	K8sLease            // client-go's LeaderElector over a Lease record
	DynamoDB            // the DynamoDB lock client: a record with a record version number
	Consul              // Consul's api.Lock: a key acquired by a session, with a lock-delay
	maxAlgorithm
)

// algorithmSpec is one lock algorithm, whole: every rule that tells the
// algorithms apart is here, and the client, the model's validator and
// plan, the loader, the explorer, the what-ifs and the real harness ask it
// (through Algorithm's methods) rather than compare algorithms.
type algorithmSpec struct {
	name string
	// store: the lock is a key on the consensus store, which exists
	// beside the nodes; no Redis node holds it.
	store bool
	// sentinel: a sentinel watches the first node and promotes a replica;
	// the other nodes replicate the first unless they say otherwise, and
	// clients may WAIT for replicas.
	sentinel bool
	// asksAll: every node is asked and a quorum counted (Redlock); else
	// only the master is.
	asksAll bool
	// fewestNodes is the least number of Redis nodes it runs on, with the
	// validator's words for fewer.
	fewestNodes int
	tooFew      string
	// tokens is where its fencing tokens come from.
	tokens TokenSource
	// keepsAlive: the lock is kept by keep-alives of its lease (and so
	// takes no Renewal), timed by the client's monotonic clock; else the
	// client measures elapsed time and validity on ElapsedClock.
	keepsAlive bool
	// new is the client's step for the algorithm, given this entry.
	new func(c *Client, s *algorithmSpec) algorithm

	// tokenName is what a scenario calls its fencing tokens when they come
	// from the store ("zxid" for ZooKeeper's czxid); "" for the Redis locks.
	tokenName string
	// keys are the [lock] keys that only this algorithm (and others
	// listing them) takes, by their scenario names.
	keys []string
	// ttlKey and keepAliveKey are the [lock] keys that set TTL and
	// KeepAlive for an algorithm timed by its own keys ("" for KeepAlive
	// when the algorithm derives its period from TTL).
	ttlKey, keepAliveKey string
	// defaults fills the algorithm's own times, from the system's
	// documentation (see each entry); nil for the algorithms timed by ttl.
	defaults func(l *LockConfig)
	// check reports the algorithm's own bounds, each naming its source.
	check func(l LockConfig, bad func(name, format string, a ...any))
	// sessions: the store's leases are ZooKeeper sessions, expired in
	// buckets of LockConfig.Tick (consensus.Config.Sessions).
	sessions bool
}

func newRedisLock(c *Client, s *algorithmSpec) algorithm {
	n := len(c.cfg.Nodes)
	return &redisLock{c: c, acq: newRound(n), ext: newRound(n), all: s.asksAll}
}

// algorithms is the table of every algorithm, by its constant.
var algorithms = [maxAlgorithm]algorithmSpec{
	Single: {
		name: "single", fewestNodes: 1, tooFew: "the single lock needs a node",
		tokens: IncrToken, new: newRedisLock,
	},
	Failover: {
		name: "failover", sentinel: true, fewestNodes: 1, tooFew: "the failover lock needs a node",
		tokens: IncrToken, new: newRedisLock,
	},
	Redlock: {
		name: "redlock", asksAll: true, fewestNodes: 1, tooFew: "redlock needs at least one node",
		tokens: IncrToken, new: newRedisLock,
	},
	Lease: {
		name: "lease", store: true, keepsAlive: true,
		tokens: RevisionToken, new: func(c *Client, _ *algorithmSpec) algorithm { return &leaseLock{c: c} },
		tokenName: "revision", keys: []string{"keepalive"},
		check: func(l LockConfig, bad func(name, format string, a ...any)) {
			if l.KeepAlive <= 0 || l.KeepAlive >= l.TTL {
				bad("KeepAlive", "must be positive and shorter than the ttl for the lease lock, got %v", l.KeepAlive)
			}
		},
	},
	ZooKeeper: {
		name: "zookeeper", store: true, keepsAlive: true, sessions: true,
		tokens: RevisionToken, new: func(c *Client, _ *algorithmSpec) algorithm { return &zkLock{c: c} },
		tokenName: "zxid", keys: []string{"session_timeout", "tick", "error_policy"}, ttlKey: "session_timeout",
		defaults: zkDefaults, check: zkCheck,
	},
	K8sLease: {
		name: "k8s-lease", store: true, keepsAlive: true,
		tokens: RevisionToken, new: func(c *Client, _ *algorithmSpec) algorithm { return &recordLock{c: c} },
		tokenName: "resource-version", keys: []string{"lease_duration", "renew_deadline", "retry_period"},
		ttlKey: "lease_duration", keepAliveKey: "retry_period", defaults: k8sDefaults, check: k8sCheck,
	},
	DynamoDB: {
		name: "dynamodb", store: true, keepsAlive: true,
		tokens: RevisionToken, new: func(c *Client, _ *algorithmSpec) algorithm { return &recordLock{c: c, dynamo: true} },
		tokenName: "rvn", keys: []string{"lease_duration", "heartbeat_period"},
		ttlKey: "lease_duration", keepAliveKey: "heartbeat_period", defaults: dynamoDefaults, check: dynamoCheck,
	},
	Consul: {
		name: "consul", store: true, keepsAlive: true,
		tokens: RevisionToken, new: func(c *Client, _ *algorithmSpec) algorithm { return &consulLock{c: c} },
		tokenName: "lock-index", keys: []string{"session_ttl", "lock_delay"},
		ttlKey: "session_ttl", defaults: consulDefaults, check: consulCheck,
	},
}

// Valid reports whether a is one of the algorithms.
func (a Algorithm) Valid() bool { return a > 0 && a < maxAlgorithm }

func (a Algorithm) String() string {
	if name := a.spec().name; name != "" {
		return name
	}
	return fmt.Sprintf("Algorithm(%d)", a)
}

// Algorithms lists the valid names, in the order of the constants.
func Algorithms() []string {
	var out []string
	for _, s := range algorithms[1:] {
		out = append(out, s.name)
	}
	return out
}

// ParseAlgorithm is the inverse of String.
func ParseAlgorithm(s string) (Algorithm, error) {
	if i := slices.Index(Algorithms(), s); i >= 0 {
		return Algorithm(i + 1), nil
	}
	return 0, fmt.Errorf("unknown lock algorithm %q (valid: %s)", s, strings.Join(Algorithms(), ", "))
}

// spec is a's entry; the zero entry for an invalid algorithm, so that
// every question about one is answered no.
func (a Algorithm) spec() algorithmSpec {
	if !a.Valid() {
		return algorithmSpec{}
	}
	return algorithms[a]
}

// Store reports whether the lock is a key on the consensus store (the
// store endpoint exists, and no Redis node holds the lock).
func (a Algorithm) Store() bool { return a.spec().store }

// Sentinel reports whether a sentinel promotes a replica when the master
// fails (the sentinel endpoint exists; the nodes after the first replicate
// it by default).
func (a Algorithm) Sentinel() bool { return a.spec().sentinel }

// Waits reports whether clients may WAIT for replicas before using the
// lock: those of a lock whose nodes replicate, under a sentinel.
func (a Algorithm) Waits() bool { return a.spec().sentinel }

// AsksAll reports whether every node is asked and a quorum counted
// (Redlock), rather than only the master.
func (a Algorithm) AsksAll() bool { return a.spec().asksAll }

// FewestNodes is the least number of Redis nodes the lock runs on, and
// what the validator says with fewer.
func (a Algorithm) FewestNodes() (int, string) { s := a.spec(); return s.fewestNodes, s.tooFew }

// Tokens is where fencing tokens come from with this lock: the store's
// revision of the lock key, or an INCR on a Redis node.
func (a Algorithm) Tokens() TokenSource { return a.spec().tokens }

// KeepsAlive reports whether the lock is kept by keep-alives of its lease,
// timed by the client's monotonic clock (it then takes no Renewal).
func (a Algorithm) KeepsAlive() bool { return a.spec().keepsAlive }

// TokenName is what a scenario calls the fencing tokens the lock's store
// hands out ("revision", "zxid"), or "" for a lock on Redis nodes.
func (a Algorithm) TokenName() string { return a.spec().tokenName }

// Sessions reports whether the store's leases are ZooKeeper's sessions,
// expired in buckets of LockConfig.Tick.
func (a Algorithm) Sessions() bool { return a.spec().sessions }

// OwnTimes reports whether the algorithm is timed by its own keys (a
// session timeout, a lease duration) rather than by ttl; Defaults then
// fills them.
func (a Algorithm) OwnTimes() bool { return a.spec().defaults != nil }

// Defaults is the lock of algorithm a with the system's own defaults for
// its times, the rest as base has them.
func (a Algorithm) Defaults(base LockConfig) LockConfig {
	base.Algorithm = a
	if d := a.spec().defaults; d != nil {
		d(&base)
	}
	return base
}

// StoreAlgorithms names the algorithms on the consensus store, quoted and
// joined with "or": what a scenario may write to have the store.
func StoreAlgorithms() string { return algorithmNames(true) }

// RedisAlgorithms names the algorithms on Redis nodes, as StoreAlgorithms
// does: what a scenario may write to have its lock on the nodes.
func RedisAlgorithms() string { return algorithmNames(false) }

func algorithmNames(store bool) string {
	var out []string
	for _, s := range algorithms[1:] {
		if s.store == store {
			out = append(out, strconv.Quote(s.name))
		}
	}
	if len(out) > 1 {
		out[len(out)-1] = "or " + out[len(out)-1]
	}
	return strings.Join(out, ", ")
}

// TTLKey is the [lock] key that sets TTL for an algorithm timed by its own
// keys ("session_timeout"), and KeepAliveKey the one that sets KeepAlive,
// if any; "" for the rest.
func (a Algorithm) TTLKey() string { return a.spec().ttlKey }

// KeepAliveKey: see TTLKey.
func (a Algorithm) KeepAliveKey() string { return a.spec().keepAliveKey }

// Takes reports whether the algorithm takes [lock] key k, one of LockKeys.
func (a Algorithm) Takes(k string) bool { return slices.Contains(a.spec().keys, k) }

// LockKeys lists the [lock] keys that only some algorithms take, sorted.
func LockKeys() []string {
	var out []string
	for _, s := range algorithms[1:] {
		for _, k := range s.keys {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Taking lists the algorithms that take [lock] key k, by name, in the
// order of the constants; nil for a key every algorithm takes.
func Taking(k string) []string {
	var out []string
	for _, s := range algorithms[1:] {
		if slices.Contains(s.keys, k) {
			out = append(out, s.name)
		}
	}
	return out
}

// Elapsed reports whether the client measures elapsed time and validity
// on the clock LockConfig.ElapsedClock names (the Redis locks), and so
// whether a validity check applies.
func (a Algorithm) Elapsed() bool { return a.Valid() && !a.spec().keepsAlive }
