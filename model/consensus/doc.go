// Package consensus is an etcd-like lease-lock store: one logical,
// linearizable service standing for a whole consensus cluster, reached at
// one endpoint. It exists to model scenario 12 (Jepsen, etcd 3.4.3): locks
// built on leases are not mutual exclusion, and the lock key's revision is
// the fencing token that makes them safe at the resource.
//
// It owns leases, lock keys, the store revision and the FIFO of lock
// waiters. It does not model replication or elections inside the cluster:
// the world takes the leader away and gives it back with SetAvailable.
//
// Protocol (every reply is a proto.StoreReply echoing Req):
//   - LeaseGrant, TTL > 0: a new lease, ids 1, 2, 3, ... Reply Int = id,
//     TTL. It expires TTL after the grant on the store's monotonic clock.
//   - LeaseKeepAlive, Int = id: if alive, its expiry becomes now + TTL.
//     Reply OK, Int = id, TTL; else Err proto.NoLease. A lease whose
//     expiry the store's clock has passed but that is not yet revoked
//     (its expiry timer not yet handled after a pause of the store, or,
//     with Config.LeaseCheckEvery, the next look not yet come) is not
//     renewed: the keep-alive is refused at the revocation, as etcd's
//     lessor.Renew waits for it (at once without LeaseCheckEvery, where
//     the keep-alive ends the overdue lease itself). Only a keep-alive does
//     this: a lock request or read naming such a lease is served as if it
//     were alive, as etcd checks only that a lease exists until its
//     revocation is applied.
//   - LeaseRevoke, Int = id: delete the lease and the keys it holds; the
//     lease's waiting lock requests are answered Err NoLease. Reply OK, or
//     Err NoLease if it was not alive.
//   - LockCreate, Key, Int = lease id, Value = the client's lock value
//     (optional; reported in observations): if the key is free, create it
//     bound to the lease at revision ++revision and reply OK, Token = that
//     revision, Int = lease id, Key. If it is held by another lease, queue
//     the request behind earlier ones (etcd's lock waits for every key
//     created before its own to go) and reply when its turn comes. If the
//     key is held by the same lease, reply OK with the existing revision at
//     once (a retry); the same lease queued twice is answered twice with
//     one revision. A dead lease gets Err NoLease at once. An answer that
//     comes after a wait has Waited set (etcd's client learns of its turn
//     from a watch event, not from the answer to its request).
//   - proto.Get, Key, Int = lease id (etcd's Mutex.Lock reading its own key
//     after the wait, "make sure the session is not expired"): if the
//     lease holds the key, reply OK, Token = its revision, Int, Key;
//     otherwise Err NoLease (the key went with its lease).
//   - proto.Del, Key, Int = lease id (etcd's Mutex.Unlock, which deletes
//     the client's own key): if the lease holds the key, delete it and grant
//     the next waiter, reply OK, Int = 1; otherwise withdraw the lease's
//     waiting requests on the key, which get no answer (their client gave
//     up), and reply OK, Int = 0. Another lease's key is never touched.
//
// When a lease dies (expiry or revoke) its keys are deleted, each reported
// as a proto.KeyGone observation (OK = expired, Text says the cause), the
// next live waiter of each key is granted, and the lease's own waiters are
// answered Err NoLease right away. (etcd's client notices only when its turn
// comes; answering at once is the same outcome, earlier.) Each grant is a
// proto.KeySet observation with the revision as Token.
//
// Expiry: by default a lease's expiry is acted on exactly at it. With
// Config.LeaseCheckEvery = I > 0 the store looks for expired leases only at
// readings LeaseCheckPhase + n·I of its monotonic clock and expires, at a
// look, every lease whose expiry has come, earliest first. etcd's lessor
// does this: its runLoop (lease/lessor.go of 3.4) calls
// revokeExpiredLeases, then waits time.After(500 * time.Millisecond), and
// each revocation then goes through raft; a real run of etcd 3.4.23 gave
// the next client the lock 72–686 ms after the holder's deadline
// (docs/results/differential-search.md). The phase is the world's draw, once
// per run. Leader loss stops the looks, and a keep-alive waiting for a
// revocation joins the queue (etcd's lessor.Renew gives up with
// ErrNotPrimary and the client sends it again); the renewal at the loss's
// end arms the looks on the same grid.
//
// Sessions (Config.Sessions, with LeaseCheckEvery as the tick): the store
// stands for a ZooKeeper ensemble. A lease is a session and its lock keys
// are its ephemeral nodes; expiry is looked for at the ticks, as
// ZooKeeper's session tracker expires each bucket of sessions, and a
// keep-alive (a ping) that arrives after a session's expiry but before the
// look renews it (touchSession refuses only a session already closing).
// After a pause of the store, the session tracker runs first (Wake, which
// the world calls at the wake): every session whose bucket's tick passed
// during the pause expires, earliest first, before the requests that
// queued are served, so their pings are refused; a session whose deadline
// passed but whose tick has not come is renewed by its ping. ZooKeeper's
// SessionTrackerImpl sleeps until its next bucket and wakes with the
// process, and a real ensemble's leader expired the overdue sessions 10 ms
// before it read their queued connections (docs/results/reality.md,
// "Store pauses for real"). An etcd-like store has no such thread: the
// look that came due in the pause comes in its turn.
//
// Leader loss: SetAvailable(env, false) stops the service. Requests queue
// unanswered, a request in service starts again from scratch later, and no
// lease expires. SetAvailable(env, true) renews every live lease to now +
// TTL (etcd's new leader does the same), then serves the queue in arrival
// order.
//
// Invariants:
//   - Revisions count key creations (etcd also counts deletions; only the
//     order matters for fencing), so the tokens of successive holders of a
//     key strictly increase. A key's revision is taken when it is granted,
//     not when its request queued: etcd's recipe creates the key when it
//     queues, but its fencing token (Mutex.Header().Revision) is the
//     revision of its last read, after the wait, which orders successive
//     holders as the grant does.
//   - A key is held by at most one lease, which is alive; every queued
//     waiter's lease is alive; waiters of a key are granted in arrival
//     order.
//   - A live lease has exactly one pending expiry timer while the store is
//     available and none while it is not (with LeaseCheckEvery: none, and
//     one look is pending, at or before the first look at or after the
//     earliest expiry); its expiry is a reading of the store's monotonic
//     clock, never of true time or the wall clock.
//   - Requests are served one at a time, in arrival order, each taking
//     Config.ServiceTime on the monotonic clock (zero: at arrival).
//   - Lease ids and keys live in slices walked in order; the one map (key
//     name to index) is only looked up, never ranged over.
//   - A grant, lock, keep-alive or revoke allocates nothing in steady state
//     beyond the amortized growth of the lease table (tracing aside).
package consensus
