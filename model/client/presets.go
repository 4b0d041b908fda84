package client

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
)

// presets are Redlock client libraries' defaults, from their documentation
// and source as summarised in the project's domain notes (§3). Each sets every
// algorithm parameter except the TTL, which the caller gives.
var presets = map[string]func(ttl time.Duration) LockConfig{
	// go-redsync/redsync: drift factor 0.01 with no constant, 32 tries,
	// uniform 50–250 ms between them, per-request timeout 5% of the TTL,
	// elapsed time on Go's monotonic clock, requests in parallel.
	"redsync": redsync,
	// node-redlock: drift factor 0.01 + 2 ms, 10 retries, 200 ms ± 100 ms,
	// elapsed time from Date.now() (the wall clock), requests in parallel.
	// It has no per-request timeout of its own; 50 ms stands for the
	// Redis client's.
	"node-redlock": nodeRedlock,
	// redlock-py: drift factor 0.01 + 2 ms, 3 retries 200 ms apart, elapsed
	// time from time.time() (the wall clock), and it asks the servers one
	// after the other. 50 ms stands for the socket timeout.
	"redlock-py": redlockPy,

	// Libraries with their historic bugs, beside the correct presets, so
	// that what each bug costs can be measured.

	// redlock-py computed the validity as ttl − (elapsed − drift): the
	// drift allowance, meant to shorten the validity, lengthened it by as
	// much. Otherwise redlock-py.
	"redlock-py-drift-sign": func(ttl time.Duration) LockConfig {
		l := redlockPy(ttl)
		l.DriftAdded = true
		return l
	},
	// redlock-py kept the servers it could connect to at start-up and took
	// the quorum as a majority of those rather than of the servers it was
	// configured with. Otherwise redlock-py.
	"redlock-py-connected-quorum": func(ttl time.Duration) LockConfig {
		l := redlockPy(ttl)
		l.QuorumOfReached = true
		return l
	},
	// node-redlock measured a lock's expiration from the start of the first
	// attempt rather than of the one that succeeded, and handed the lock out
	// without checking it (its issues 296 and 299): after retries, a lock
	// could be expired on arrival while its keys in Redis were fresh, and
	// using() then aborted the work at once. Otherwise node-redlock, used
	// through using() (auto-extension 500 ms before expiry, its default).
	"node-redlock-first-attempt-expiry": func(ttl time.Duration) LockConfig {
		l := nodeRedlock(ttl)
		l.ExpiryFromFirstTry = true
		l.Renewal, l.ExtendThreshold = AutoExtend, 500*time.Millisecond
		return l
	},
	// node-redlock's using(): extend 500 ms (automaticExtensionThreshold)
	// before expiry, abort the work when an extension fails.
	"node-redlock-using": func(ttl time.Duration) LockConfig {
		l := nodeRedlock(ttl)
		l.Renewal, l.ExtendThreshold = AutoExtend, 500*time.Millisecond
		return l
	},
	// Redisson's RLock as most use it (redisson#2669 and #5965 point
	// RedLock's users to it): SET on the master of a master-replica set
	// under Sentinel, kept by the watchdog (lockWatchdogTimeout is the
	// ttl, 30 s by default, renewed every ttl/3), 3 s command timeout,
	// and lock() waiting until it gets the lock (its retries here are
	// without end, 100 ms ± 50 ms apart, standing for the unlock
	// notification it waits for).
	"redisson": redisson,
	// redisson with WAIT 1 after taking the lock (RLock's
	// syncSlaves, or RedissonClient's WAIT through a batch).
	"redisson-wait": func(ttl time.Duration) LockConfig {
		l := redisson(ttl)
		l.WaitReplicas, l.WaitTimeout = 1, time.Second
		return l
	},
	// client-go's LeaderElector with the defaults of kube-controller-manager
	// and kube-scheduler: 15 s lease, 10 s renew deadline, 2 s retry
	// period. The ttl is not used.
	"k8s-defaults": func(time.Duration) LockConfig {
		return K8sLease.Defaults(LockConfig{Key: "lock", RequestTimeout: 50 * time.Millisecond, ElapsedClock: proto.Mono})
	},
	// Consul's api.Lock with its defaults: a 15 s session TTL
	// (DefaultLockSessionTTL) and a 15 s lock-delay. The ttl is not used.
	"consul-defaults": func(time.Duration) LockConfig {
		return Consul.Defaults(LockConfig{Key: "lock", RequestTimeout: 50 * time.Millisecond, ElapsedClock: proto.Mono})
	},
	// redsync with WithFailFast(true): an acquisition returns as soon as a
	// quorum has answered OK (or a quorum has answered taken). Otherwise
	// redsync.
	"redsync-fail-fast": func(ttl time.Duration) LockConfig {
		l := redsync(ttl)
		l.FailFast = true
		return l
	},
}

func redsync(ttl time.Duration) LockConfig {
	return LockConfig{
		Algorithm: Redlock, Key: "lock", TTL: ttl, RequestTimeout: ttl / 20,
		DriftFactor: 0.01, ValidityCheck: true, ElapsedClock: proto.Mono,
		Retries: 31, RetryDelay: 150 * time.Millisecond, RetryJitter: 100 * time.Millisecond,
	}
}

func redisson(ttl time.Duration) LockConfig {
	return LockConfig{
		Algorithm: Failover, Key: "lock", TTL: ttl, RequestTimeout: 3 * time.Second,
		ElapsedClock: proto.Mono, Renewal: Watchdog,
		Retries: 1 << 30, RetryDelay: 100 * time.Millisecond, RetryJitter: 50 * time.Millisecond,
	}
}

func nodeRedlock(ttl time.Duration) LockConfig {
	return LockConfig{
		Algorithm: Redlock, Key: "lock", TTL: ttl, RequestTimeout: 50 * time.Millisecond,
		DriftFactor: 0.01, DriftConst: 2 * time.Millisecond, ValidityCheck: true, ElapsedClock: proto.Wall,
		Retries: 10, RetryDelay: 200 * time.Millisecond, RetryJitter: 100 * time.Millisecond,
	}
}

func redlockPy(ttl time.Duration) LockConfig {
	return LockConfig{
		Algorithm: Redlock, Key: "lock", TTL: ttl, RequestTimeout: 50 * time.Millisecond, Sequential: true,
		DriftFactor: 0.01, DriftConst: 2 * time.Millisecond, ValidityCheck: true, ElapsedClock: proto.Wall,
		Retries: 3, RetryDelay: 200 * time.Millisecond,
	}
}

// Preset returns a named library's defaults for the given TTL.
func Preset(name string, ttl time.Duration) (LockConfig, error) {
	p, ok := presets[name]
	if !ok {
		return LockConfig{}, fmt.Errorf("unknown preset %q (valid: %s)", name, strings.Join(PresetNames(), ", "))
	}
	return p(ttl), nil
}

// PresetNames lists the presets in sorted order.
func PresetNames() []string {
	var names []string
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
