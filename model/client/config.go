package client

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model/internal/names"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"

	"github.com/redlocksim/redlocksim/sim/field"
)

// TokenSource is where a client gets its fencing token.
type TokenSource uint8

const (
	_             TokenSource = iota
	NoToken                   // no fencing token
	IncrToken                 // INCR on a designated Redis node after acquiring
	RevisionToken             // the consensus store's revision of the lock key
)

var tokenNames = []string{"", "none", "incr", "revision"}

func (t TokenSource) String() string {
	if int(t) < len(tokenNames) && t != 0 {
		return tokenNames[t]
	}
	return fmt.Sprintf("TokenSource(%d)", t)
}

// ParseTokenSource is the inverse of String.
func ParseTokenSource(s string) (TokenSource, error) {
	return names.Parse[TokenSource](tokenNames, 1, "token source", s)
}

// LockConfig is the lock algorithm and its parameters, shared by the clients
// of a world.
type LockConfig struct {
	Algorithm      Algorithm
	Key            string
	TTL            time.Duration
	RequestTimeout time.Duration // per request to one node
	Sequential     bool          // ask nodes one by one instead of in parallel
	Quorum         int           // nodes needed; 0 means N/2+1
	DriftFactor    float64       // drift = TTL × DriftFactor + DriftConst
	DriftConst     time.Duration
	ValidityCheck  bool        // refuse a quorum whose remaining validity is not positive
	ElapsedClock   proto.Clock // which clock measures elapsed time and validity
	Retries        int         // tries after the first
	RetryDelay     time.Duration
	RetryJitter    time.Duration // the delay is uniform in [RetryDelay-RetryJitter, RetryDelay+RetryJitter]
	WaitReplicas   int           // failover: WAIT for this many replicas before using the lock
	WaitTimeout    time.Duration
	Extend         bool    // extend the lock while working
	ExtendAt       float64 // fraction of the validity after which to extend
	MaxExtensions  int
	KeepAlive      time.Duration // lease: keep-alive period; k8s-lease: retry_period; consul: the session renewal period; dynamodb: heartbeat_period

	// The times of the locks that are timed by their own keys, not ttl
	// (Algorithm.OwnTimes); TTL then holds zookeeper's session_timeout,
	// k8s-lease's and dynamodb's lease_duration, consul's session_ttl.
	Tick          time.Duration // zookeeper: the servers' tickTime, the width of the session expiry buckets
	ErrorPolicy   ErrorPolicy   // zookeeper: when Curator's application stops believing it holds the lock
	RenewDeadline time.Duration // k8s-lease: the leader stops after failing to renew for this long
	LockDelay     time.Duration // consul: how long an invalidated session's key stays unlockable

	// Renewal is how a library keeps the lock while its holder works, in
	// place of Extend; ExtendThreshold is auto-extend's margin.
	Renewal         Renewal
	ExtendThreshold time.Duration
	// FailFast decides as soon as a quorum has answered either way
	// (redsync's WithFailFast), rather than waiting for every node.
	FailFast bool

	// Historic bugs of client libraries, set by the presets named after
	// them (see presets.go).
	DriftAdded         bool // validity = TTL − (elapsed − drift): the drift is added
	QuorumOfReached    bool // the quorum and the nodes asked are those that answered at start-up
	ExpiryFromFirstTry bool // validity counts from the first try of an acquisition, and nothing checks it
}

// Renewal is how a library renews a lock while its holder works. The zero
// value is none.
type Renewal uint8

const (
	// NoRenewal: the lock lasts its validity, or what Extend adds.
	NoRenewal Renewal = iota
	// Watchdog is Redisson's lock watchdog: a thread of the holder's
	// process renews the key to the full TTL every TTL/3 while the lock is
	// held, and stops silently at the first renewal that fails. The
	// application is never told: it believes it holds the lock until it
	// unlocks. Redisson's unlock cancels the renewal before deleting the
	// key (cancelExpirationRenewal), so no renewal outlives the unlock
	// here.
	Watchdog
	// AutoExtend is node-redlock's using(): a timer extends the lock when
	// less than ExtendThreshold of its validity remains, and if an
	// extension fails (or the lock has already expired) it aborts the work
	// through its AbortSignal; the routine stops and the lock is released.
	AutoExtend
	maxRenewal
)

var renewalNames = []string{"none", "watchdog", "auto-extend"}

func (r Renewal) String() string {
	if r < maxRenewal {
		return renewalNames[r]
	}
	return fmt.Sprintf("Renewal(%d)", r)
}

// ParseRenewal is the inverse of String.
func ParseRenewal(s string) (Renewal, error) {
	return names.Parse[Renewal](renewalNames, 0, "renewal", s)
}

// ErrorPolicy is Curator's ConnectionStateErrorPolicy: which connection
// states tell the application that its lock is lost. The zero value is
// Curator's default (CuratorFrameworkFactory.Builder's
// connectionStateErrorPolicy).
type ErrorPolicy uint8

const (
	// StandardPolicy (StandardConnectionStateErrorPolicy, the default):
	// SUSPENDED or LOST, so SUSPENDED already, when the connection has been
	// silent two thirds of the session timeout.
	StandardPolicy ErrorPolicy = iota
	// SessionPolicy (SessionConnectionStateErrorPolicy): only LOST, which
	// Curator posts when the session expires or, without word from the
	// server, a session timeout after SUSPENDED.
	SessionPolicy
	maxErrorPolicy
)

var errorPolicyNames = []string{"standard", "session"}

func (p ErrorPolicy) String() string {
	if p < maxErrorPolicy {
		return errorPolicyNames[p]
	}
	return fmt.Sprintf("ErrorPolicy(%d)", p)
}

// EndsAtSuspended says whether the application stops believing it holds
// the lock at SUSPENDED (true) or only at LOST. Curator's
// StandardConnectionStateErrorPolicy.isErrorState is SUSPENDED || LOST;
// SessionConnectionStateErrorPolicy's is LOST alone.
func (p ErrorPolicy) EndsAtSuspended() bool { return p == StandardPolicy }

// ParseErrorPolicy is the inverse of String.
func ParseErrorPolicy(s string) (ErrorPolicy, error) {
	return names.Parse[ErrorPolicy](errorPolicyNames, 0, "error policy", s)
}

// Drift is the clock-drift allowance the algorithm subtracts from the TTL.
func (l LockConfig) Drift() time.Duration {
	return time.Duration(float64(l.TTL)*l.DriftFactor) + l.DriftConst
}

// QuorumOf is the number of nodes out of n that must agree.
func (l LockConfig) QuorumOf(n int) int {
	if !l.Algorithm.AsksAll() {
		return 1
	}
	if l.Quorum > 0 {
		return l.Quorum
	}
	return n/2 + 1
}

// Validate reports the first invalid parameter.
func (l LockConfig) Validate() error {
	var errs []error
	bad := func(name, format string, a ...any) { errs = append(errs, field.Errorf(field.Of(name), format, a...)) }
	if !l.Algorithm.Valid() {
		bad("Algorithm", "must be one of %s", strings.Join(Algorithms(), ", "))
	}
	if l.Key == "" {
		bad("Key", "must not be empty")
	}
	if l.TTL <= 0 {
		bad("TTL", "must be positive, got %v", l.TTL)
	}
	if l.RequestTimeout <= 0 {
		bad("RequestTimeout", "must be positive, got %v", l.RequestTimeout)
	}
	if l.DriftFactor < 0 || l.DriftFactor >= 1 {
		bad("DriftFactor", "must be in [0, 1), got %v", l.DriftFactor)
	}
	if l.DriftConst < 0 {
		bad("DriftConst", "must not be negative, got %v", l.DriftConst)
	}
	if l.ElapsedClock != proto.Wall && l.ElapsedClock != proto.Mono {
		bad("ElapsedClock", "must be wall or monotonic")
	}
	if l.Retries < 0 {
		bad("Retries", "must not be negative, got %d", l.Retries)
	}
	if l.RetryDelay < 0 || l.RetryJitter < 0 || l.RetryJitter > l.RetryDelay {
		bad("RetryDelay", "need 0 <= jitter <= delay, got delay %v jitter %v", l.RetryDelay, l.RetryJitter)
	}
	if l.Quorum < 0 {
		bad("Quorum", "must not be negative, got %d", l.Quorum)
	}
	if l.WaitReplicas < 0 {
		bad("WaitReplicas", "must not be negative, got %d", l.WaitReplicas)
	}
	if l.WaitReplicas > 0 && l.WaitTimeout <= 0 {
		bad("WaitTimeout", "must be positive when wait_replicas > 0")
	}
	if l.Extend && (l.ExtendAt <= 0 || l.ExtendAt >= 1) {
		bad("ExtendAt", "must be in (0, 1) when extend is on, got %v", l.ExtendAt)
	}
	if l.MaxExtensions < 0 {
		bad("MaxExtensions", "must not be negative")
	}
	switch {
	case l.Renewal >= maxRenewal:
		bad("Renewal", "must be one of %s", strings.Join(renewalNames, ", "))
	case l.Renewal != NoRenewal && l.Algorithm.KeepsAlive():
		bad("Renewal", "the lease lock renews its lease by keep-alives; %v is for the Redis locks (single, failover, redlock)", l.Renewal)
	case l.Renewal != NoRenewal && l.Extend:
		bad("Renewal", "%v and extend are two ways to keep the lock; choose one", l.Renewal)
	case l.Renewal == AutoExtend && (l.ExtendThreshold <= 0 || l.ExtendThreshold >= l.TTL):
		bad("ExtendThreshold", "must be positive and shorter than the ttl for auto-extend, got %v", l.ExtendThreshold)
	}
	if !l.Algorithm.AsksAll() {
		if l.FailFast {
			bad("FailFast", "only redlock asks several nodes; this lock's algorithm is %v", l.Algorithm)
		}
		if l.QuorumOfReached {
			bad("QuorumOfReached", "only redlock counts a quorum; this lock's algorithm is %v", l.Algorithm)
		}
	}
	if c := l.Algorithm.spec().check; c != nil {
		c(l, bad)
	}
	return errors.Join(errs...)
}

// WorkConfig is what a client does with the lock.
type WorkConfig struct {
	CriticalSection time.Duration // between reading and writing the resource
	Think           time.Duration // between releasing and the next acquire
	// CriticalSectionDist and ThinkDist, when their Kind is set, draw each
	// critical section and think time from a distribution (Jepsen's
	// workload waits uniformly 0–2 s), from the client's own random
	// stream; CriticalSection and Think then hold their means, for what
	// plans with one number.
	CriticalSectionDist network.Latency
	ThinkDist           network.Latency
	Iterations          int           // critical sections per client; 0 = until the run ends
	RecheckBeforeWrite  bool          // antirez's advice: check remaining validity right before writing
	RecheckMargin       time.Duration // the remaining validity the recheck demands
	RequestTimeout      time.Duration // for resource and token requests
	Tokens              TokenSource
	FenceNode           string // Redis node that hands out INCR tokens
	FenceKey            string
}

// Validate reports invalid parameters.
func (w WorkConfig) Validate() error {
	var errs []error
	bad := func(name, format string, a ...any) { errs = append(errs, field.Errorf(field.Of(name), format, a...)) }
	if w.CriticalSection < 0 {
		bad("CriticalSection", "must not be negative")
	}
	if w.Think < 0 {
		bad("Think", "must not be negative")
	}
	for _, d := range []struct {
		name string
		l    network.Latency
	}{{"CriticalSectionDist", w.CriticalSectionDist}, {"ThinkDist", w.ThinkDist}} {
		if d.l.Kind != 0 {
			for _, e := range field.List(field.Of(d.name), "", d.l.Validate()) {
				errs = append(errs, e)
			}
		}
	}
	if w.Iterations < 0 {
		bad("Iterations", "must not be negative")
	}
	if w.RecheckMargin < 0 {
		bad("RecheckMargin", "must not be negative")
	}
	if w.RequestTimeout <= 0 {
		bad("RequestTimeout", "must be positive, got %v", w.RequestTimeout)
	}
	if w.Tokens < NoToken || w.Tokens > RevisionToken {
		bad("Tokens", "must be one of %s", strings.Join(tokenNames[1:], ", "))
	}
	if w.Tokens == IncrToken && (w.FenceNode == "" || w.FenceKey == "") {
		bad("FenceNode", "incr tokens need a node and a key")
	}
	return errors.Join(errs...)
}

// Config is one client.
type Config struct {
	ID       int    // 1-based, unique in the world; makes values unique
	Name     string // "c1"
	StartIn  time.Duration
	Lock     LockConfig
	Work     WorkConfig
	Nodes    []string // Redis nodes: Redlock's N masters; for single/failover the initial master first
	Store    string   // consensus store, for the lease lock
	Resource string
}
