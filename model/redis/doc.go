// Package redis is a simulated Redis server: the part of Redis that the
// Redlock debate turns on, and nothing else.
//
// It owns one node's keyspace (a lock key holding an opaque value, and INCR
// counters such as a fencing counter), its single-threaded command loop,
// key expiry on the node's wall clock, AOF persistence across crashes, and
// asynchronous master-to-replica replication with WAIT and
// min-replicas-to-write. A Node is a proto.Actor: a synchronous state
// machine that acts only through proto.Env, in the style of etcd-io/raft's
// RawNode. Failure detection and promotion belong to package sentinel; when
// and how a node crashes belongs to the world.
//
// Commands (proto kinds; replies are proto.Reply with the request's Req):
//
//	SetNX         SET Key Value NX PX TTL      OK: stored (TTL 0: no expiry)
//	Get           GET Key                      OK: present; Value (Int for a counter)
//	Del           DEL Key                      Int: keys removed
//	CompareDel    the release script           Int 1 if Value matched and the key was deleted, else 0
//	CompareExtend the extend script            Int 1 if Value matched and the expiry became now+TTL, else 0
//	Incr          INCR Key                     Int: the new value (a missing key counts as 0)
//	Wait          WAIT Int TTL                 Int: replicas that acknowledged every earlier write
//
// Invariants and modelling decisions:
//   - Expiry is absolute on the node's wall clock: a key set with TTL at wall
//     reading w expires at w+TTL and is gone from the instant the wall clock
//     reads w+TTL (one nanosecond earlier it is present). This is checked on
//     every access, and a wall-clock timer at the expiry makes the node
//     notice it when it happens (observed as KeyGone with OK true). A
//     forward step of the wall clock therefore expires keys early.
//   - Commands are served one at a time in arrival order. Each occupies the
//     node for ServiceTime; it executes, and its reply leaves, at the end of
//     its service. PING, replication traffic and REPLICAOF bypass the queue.
//   - A replica refuses every write command, and WAIT, with ReadOnly. With
//     MinReplicasToWrite > 0 a master refuses every write command (the
//     scripts included, whether or not they would write) with NoReplicas
//     while fewer replicas than that acknowledged within MinReplicasMaxLag.
//   - Persistence. The AOF holds every write with absolute expiries. A
//     process crash keeps all of it (written AOF data is in the page cache);
//     a power loss keeps what was last fsynced: every write under
//     AOFAlways (the write is durable before its reply is sent), the state
//     at the last FsyncEvery tick under AOFEverySec. A tick fsyncs only
//     when the process wrote since the last one, and a restart neither
//     rewrites nor fsyncs the AOF: Redis 7.0 opens its last INCR file for
//     appending and counts the file as fsynced. So after a process crash
//     what the page cache kept is reloaded and served but is not durable
//     until the first tick after a write; a power loss before that keeps
//     what was fsynced before the crash. Under None nothing written
//     survives. Preloaded keys are an on-disk snapshot and survive
//     every crash as they stood at the first start. On restart, keys whose
//     expiry the wall clock has reached are dropped; timers, queued
//     commands, blocked WAITs and unshipped replication die with the
//     process. The role survives a crash (Sentinel rewrites redis.conf).
//   - Replication is asynchronous. A master numbers its writes (the
//     replication offset, one per write, expiries included) and ships each
//     to its replicas ReplicationDelay after it happened, in order. Replicas
//     apply writes in offset order, acknowledge each, and acknowledge every
//     AckEvery anyway; they read the master's absolute expiry against their
//     own wall clock (Redis 7). A replica announces itself with a
//     ReplicaAck of Int -1 (at start, after REPLICAOF, and after a gap in
//     the stream); the master answers with a full sync (its keyspace at its
//     current offset), after which the replica holds exactly the master's
//     keys. A master learns its replicas only from their announcements and
//     acknowledgements; an acknowledgement from an unknown replica (the
//     master restarted) also triggers a full sync.
//   - REPLICAOF with Int < 0 promotes a replica, which keeps its data and
//     continues the offset from what it applied; with Int = an endpoint the
//     node follows that master (a demoted master answers its blocked WAITs,
//     drops its unshipped writes and full-syncs from the new master).
//   - Observations: KeySet when a lock key appears with a value (set,
//     replicated, reloaded after a restart), KeyGone when it goes (OK true
//     when it expired, by the clock or on the master; OK false when deleted,
//     overwritten, dropped by a full sync or lost in a crash, the last
//     reported at restart). Counters are never observed. Extending a lock
//     is traced but not observed.
//   - Wire format of replication: a ReplicaWrite carries the operation in
//     Req (set lock value, set counter, delete, expire, full-sync start and
//     end), the offset in Int, and Key, Value and Expire (NoExpiry for none).
//   - Determinism: no maps, no goroutines, no reading of real time; the
//     keyspace is a slice of fixed slots scanned in order. In steady state
//     a command allocates nothing.
package redis
