// Package harness runs a scenario for real: it translates a model.Config
// into processes on this machine's loopback, applies the scenario's faults
// in wall time, records a history in model/check's own types and judges it
// with the simulator's checker.
//
// A run:
//   - one redis-server per node (proc supervises it), in a directory of its
//     own, with the node's persistence (none: no AOF, no RDB; everysec and
//     always: AOF with that fsync); a crash is SIGKILL and the restart
//     reuses the directory, so the AOF reloads; a node pause is SIGSTOP and
//     SIGCONT;
//   - one proxy link (package proxy) per client and server, which applies
//     the scenario's latency, spikes, cuts and partitions per direction;
//   - the resource server (package resource) in the scenario's mode;
//   - one OS process per client: the command re-runs itself as its hidden
//     real-client subcommand, which calls RunClient. A client pause is
//     SIGSTOP and SIGCONT of that whole process, timers and all.
//
// The client protocol: the harness writes the ClientSpec as one JSON line
// on the child's stdin; the child connects (and warms every connection),
// writes an EvReady event, and waits for a second line, T0. Every event it
// writes afterwards is a JSON line stamped with CLOCK_MONOTONIC - T0: all
// processes read the same monotonic clock, so a client's stamps and the
// harness's are on one time axis, the run's true time. Resource operations
// are stamped by the resource server when they take effect.
//
// The workload mirrors model/client's: wait for the start, acquire with
// the algorithm's retries, INCR the fencing counter (tokens = "incr"),
// read the resource, hold the critical section, write one new element,
// release, think. A hold ends when the client releases or when its own
// timer says the validity ran out; a frozen process cannot run that timer,
// so its belief lasts through a pause, as in the model.
//
// Renewal (renewal.go) runs in the client process too, on its own timers,
// so a SIGSTOP stalls it as it stalls Redisson's watchdog thread: the
// watchdog renews every TTL/3 and stops silently at its first failure
// (the holder, given no validity, believes until it unlocks);
// auto-extend extends when less than extend_threshold is left and aborts
// the work if that fails; lock.extend extends at extend_at, up to
// max_extensions times. Each round is redsync's Mutex.ExtendContext or,
// for the raw and single-instance clients, the Lua compare-and-PEXPIRE
// script on every node; a successful one moves the hold's validity as
// model/client's does, and the history tells it in the model's words
// (renews, renewal-stops, extends, extend-fails, aborts-work).
//
// Which lock client runs (ChooseDriver): redsync (v4.18.1, over go-redis
// v9) for Redlock as redsync implements it, the harness's raw client where
// the scenario needs what redsync lacks (no validity check, one-by-one
// requests, another quorum, wall-clock elapsed time), and the plain SET NX
// PX with the Lua release for the single-instance lock, the same on the
// Sentinel's master for the failover lock, and etcd's own recipe for the
// lease lock. lock.fail_fast is redsync's WithFailFast (the raw client
// decides at the first quorum of answers alike); the libraries' historic
// bugs (the presets redlock-py-drift-sign, redlock-py-connected-quorum,
// node-redlock-first-attempt-expiry) run on the raw client, which
// reproduces each as model/client does and names it in its Name.
//
// Each lock algorithm has a system (systems, a static table): what it
// refuses, the binaries and servers it starts beside the scenario's redis
// nodes (redis-sentinel, an etcd cluster), how a client reaches them, what
// a pause of a target of its own ("store") signals, and its lock driver.
// Each model fault kind has a rule (faultRules): refused, with the reason,
// or scheduled as actions in wall time; a kind without a rule is refused.
// A redis node's process is extensible through nodeSetups: an
// environment of its own (a clock library's LD_PRELOAD), a data directory
// a setup provides (a mount point), a power-loss action, and hooks at T0.
//
// Clocks (clock.go): every process's clock is the model's (processClock:
// its spec, its clock faults folded in, its rate spread drawn from the
// model's stream for the same seed). A node's redis-server reads it
// through the clock library of package clockshim (the nodeClock setup); the
// raw client reads its own through the same segments in its process
// (ownClock); a Go lock client's clock is Go's, with a note. Clock faults
// change nothing during the run: they are in the clocks from the start.
//
// Times are scaled (Scale) so that a library scenario runs in about
// TargetWall; a scale that would push the TTL or a timeout below what the
// machine resolves is refused. Refusals lists what cannot run for real at
// all, with the reason.
//
// Goroutines, wall time and child processes belong here; the simulation's
// determinism rules do not apply to this package.
package harness
