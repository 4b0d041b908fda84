// Package etcd runs the consensus lease lock of the reality check for
// real: a 3-member etcd cluster on loopback (Debian's etcd-server 3.4.23,
// the release line of Jepsen's etcd analysis), member pauses as Jepsen's
// nemesis makes them, and the lock client, which is etcd's own recipe.
//
// The cluster (Start) is children of a proc.Group: each member on two free
// loopback ports (client and peer), in its own temporary data directory,
// started together with one --initial-cluster. Start returns when every
// member serves its client port, reports a leader, and a write through the
// cluster has committed, or fails within its deadline naming the member and
// its last output. Pause and Resume send SIGSTOP and SIGCONT to a member's
// process group: a stopped member neither answers nor sends heartbeats, so
// a stopped leader is replaced after the election timeout, exactly the
// nemesis of the Jepsen analysis. Closing the Group kills every member and
// removes its data.
//
// The lock (Locker) is clientv3's concurrency recipe, unchanged:
// concurrency.NewSession(cli, concurrency.WithTTL(ttl)) keeps a lease alive
// every TTL/3 (the Locker grants the lease itself, with the same Grant call
// NewSession would make, and passes it WithLease, so that the caller's
// context bounds the grant while the keep-alives outlive it); concurrency.NewMutex(session, key).Lock puts
// the session's key under the lock's prefix and waits for every key created
// before it to go; the lock's Header().Revision is the fencing token.
// Release closes the session, which revokes the lease and so deletes the
// key, as model/client's lease lock does.
//
// How long a holder believes it holds the lock: clientv3 keeps, per lease,
// a deadline of "last keep-alive reply received + TTL", but it only notices
// that the deadline has passed on a one-second poll, when Session.Done
// closes. Hold.Lost closes at the earlier of Session.Done and that same
// deadline, watched with a timer, so the belief ends when the library's own
// reckoning says the lease is over, not up to a second later; a process
// frozen by SIGSTOP runs no timer, so its belief lasts through the pause,
// as in the simulator. (The simulator starts its deadline when the
// keep-alive is sent, the library when its reply arrives: one round trip
// apart.)
//
// clientv3 sends a keep-alive TTL/3 after the last reply, but from a loop
// that wakes every 500 ms, so keep-alives go out up to half a second later
// than the simulator's (0.67 s to 1.17 s apart with a 2 s TTL).
//
// One wait the caller cannot bound: when ctx ends while Mutex.Lock waits
// behind other holders, clientv3 deletes the waiting key on the client's
// own context, so with the whole store paused that delete, and Lock,
// return only when the store resumes or the Locker is closed.
//
// Limits of the real system that a scaled scenario meets:
//   - etcd lease TTLs are whole seconds (the client sends seconds), so a
//     scenario's TTL must scale to a whole number of seconds (ValidTTL).
//   - The server raises a TTL below its minimum, 1.5 election timeouts
//     rounded up to a second: 2 s with etcd's default 1 s election timeout.
//     Config.ElectionTimeout lowers it (MinTTL).
//   - The server expires leases on a 500 ms loop, so a lease outlives its
//     TTL by up to half a second.
//   - After a pause of the whole store (every member stopped, so no
//     election and no lessor.Promote), the leader revokes every lease that
//     expired meanwhile, one LeaseRevoke proposal per lease from goroutines
//     of its own, racing the requests that waited out the pause in the
//     members' sockets. A Put bound to an expired lease that is applied
//     before its revocation succeeds (the applier checks only that the
//     lease exists), so which way that race goes decides whether a client
//     whose lock request waited out the pause gets the lock for a moment.
//     It is scheduling, and varies from run to run
//     (docs/results/differential-search.md).
package etcd
