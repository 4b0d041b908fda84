package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/proto"
)

// system is the lock service of a real run, as the scenario's lock
// algorithm has the model's world build it: the servers it starts beside
// the scenario's redis nodes (which every system has: they are cfg.Nodes,
// the fence node included), how a client process reaches them, how a fault
// reaches a target that is neither a node nor a client, and which lock
// client the client processes run. systems picks one per algorithm.
//
// The redis nodes themselves (start, signal, crash, power loss, restart)
// are redisNode's, the same in every system; their extension points (an
// environment, a data directory, a power-loss action) are nodeSetup's.
type system interface {
	// binaries are the programs the system runs, looked up (with the
	// Debian package to name when one is missing) before anything starts.
	binaries() []binary
	// refusals lists what of cfg this system cannot run for real.
	refusals(cfg *model.Config) []*RefusedError
	// fitScale is the largest scale at most s that the system can run cfg
	// at; scaleError says why scale f cannot, or nil. minimums lists the
	// system's own times that a scale must keep resolvable.
	fitScale(cfg *model.Config, s float64) float64
	scaleError(cfg *model.Config, f float64) error
	minimums(cfg *model.Config) []minimum
	// start starts the system's own servers, once the nodes answer and
	// before the proxies and the clients start; their processes go in
	// r.g, which the run closes.
	start(ctx context.Context, r *run) error
	// connect completes client c's spec with the system's own servers,
	// through proxy links of c's own where the scenario's network
	// reaches them.
	connect(r *run, c string, spec *ClientSpec) error
	// target is the process a pause of name stops, when the system owns
	// one by that name ("store"), or nil.
	target(r *run, name string) signaller
	// driver names the lock client the client processes run (a key of
	// drivers).
	driver(l client.LockConfig) string
}

// noter is a system with notes of its own on what a real run of cfg does
// differently from the model (Refusals adds them to its notes).
type noter interface {
	notes(cfg *model.Config) []string
}

// scaleNoter is a system with notes that depend on the scale a real run
// of cfg runs at (Run adds them once it has chosen the scale).
type scaleNoter interface {
	scaleNotes(cfg *model.Config, f float64) []string
}

// binary is a program and the Debian package it comes in. An absolute
// name is a file that must be there (ZooKeeper's jar), not a program on
// PATH.
type binary struct{ name, pkg string }

// find is b's path, or a *proc.MissingError naming its package.
func (b binary) find() (string, error) {
	if filepath.IsAbs(b.name) {
		if _, err := os.Stat(b.name); err != nil {
			return "", &proc.MissingError{Binary: b.name, Package: b.pkg}
		}
		return b.name, nil
	}
	return proc.LookPath(b.name, b.pkg)
}

// minimum is a time of the scenario that a scale must not bring below
// floor: what names it in a refusal.
type minimum struct {
	what     string
	d, floor time.Duration
}

// signaller is a process, or a group of them, that a pause stops and
// resumes.
type signaller interface {
	signal(sig syscall.Signal) error
}

// systems is the lock service of each algorithm. Every algorithm has one
// (TestEveryAlgorithmHasASystem); systemOf refuses one without.
var systems = map[client.Algorithm]system{
	client.Single:    redisSystem{},
	client.Redlock:   redisSystem{},
	client.Failover:  sentinelSystem{},
	client.Lease:     etcdSystem{},
	client.ZooKeeper: zkSystem{},
}

// noServer says, for each algorithm the model has but this machine runs
// no server for, why not: a real run of it is refused with that reason.
var noServer = map[client.Algorithm]string{
	client.K8sLease: "there is no Kubernetes API server here (its Lease lives in an API server backed by etcd, which the harness does not run)",
	client.DynamoDB: "there is no DynamoDB here (a hosted AWS service; no local server is packaged)",
	client.Consul:   "there is no Consul server here (Debian no longer packages consul)",
}

// systemOf is the system of cfg's algorithm, or a refusal naming the
// algorithm when it has none.
func systemOf(cfg *model.Config) (system, *RefusedError) {
	if why, ok := noServer[cfg.Lock.Algorithm]; ok {
		return nil, &RefusedError{What: fmt.Sprintf("lock.algorithm = %q", cfg.Lock.Algorithm), Reason: why}
	}
	s, ok := systems[cfg.Lock.Algorithm]
	if !ok {
		return nil, &RefusedError{What: fmt.Sprintf("lock.algorithm = %q", cfg.Lock.Algorithm),
			Reason: "the real harness has no system for this algorithm (harness.systems)"}
	}
	return s, nil
}

// systemOr is algorithm a's system for what must answer before the
// refusals are looked at (the scale, the driver's name): an algorithm
// without a system, which Refusals refuses so that it never runs, answers
// as plain redis nodes do.
func systemOr(a client.Algorithm) system {
	if s, ok := systems[a]; ok {
		return s
	}
	return redisSystem{}
}

// redisSystem is the lock on the scenario's independent redis nodes alone:
// the single-instance lock and Redlock. The other systems embed it for
// what they do the same.
type redisSystem struct{}

func (redisSystem) binaries() []binary { return []binary{{"redis-server", "redis-server"}} }

// refusals: replication is the failover lock's; a plain redis node runs
// no replica.
func (redisSystem) refusals(cfg *model.Config) []*RefusedError {
	var out []*RefusedError
	for _, n := range cfg.Nodes {
		if n.Redis.ReplicaOf != "" || n.Redis.ReplicationDelay > 0 {
			out = append(out, &RefusedError{What: "nodes." + n.Name + " replication", Reason: "replication runs for real only with the failover lock"})
		}
	}
	return out
}

func (redisSystem) fitScale(_ *model.Config, s float64) float64 { return s }
func (redisSystem) scaleError(*model.Config, float64) error     { return nil }
func (redisSystem) minimums(*model.Config) []minimum            { return nil }
func (redisSystem) start(context.Context, *run) error           { return nil }
func (redisSystem) connect(*run, string, *ClientSpec) error     { return nil }
func (redisSystem) target(*run, string) signaller               { return nil }

// driver is the raw single-instance lock for a lock that asks one node,
// and for Redlock redsync where it implements the scenario's Redlock as
// configured, the harness's raw client where the scenario needs what
// redsync does not offer.
func (redisSystem) driver(l client.LockConfig) string {
	if !l.Algorithm.AsksAll() {
		return DriverRawSingle
	}
	// redsync measures elapsed time on Go's monotonic clock, asks every
	// node in parallel, needs N/2+1 and always checks the validity; the
	// libraries' historic bugs are the raw client's to reproduce.
	bug := l.DriftAdded || l.QuorumOfReached || l.ExpiryFromFirstTry
	if l.ValidityCheck && !l.Sequential && l.Quorum == 0 && l.ElapsedClock == proto.Mono && !bug {
		return DriverRedsync
	}
	return DriverRawRedlock
}
