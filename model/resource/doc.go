// Package resource is the storage a lock protects: a set of unique elements
// that clients update by read-modify-write, as in Jepsen's lock workload. A
// client reads (proto.ResourceRead), computes, and writes back "what I read
// plus my element" (proto.ResourceWrite with Int = the version it read,
// Value = the element, Lock = its lock value, Token = its fencing token).
//
// It owns the resource's state and its admission rule (the Mode), and
// reports every write outcome as a proto.WriteDone observation. It does not
// judge safety: the checker does, from the observations and Final.
//
// Versions are persistent and never copied: version 0 is the empty set, and
// every accepted write creates a new version whose parent is the version the
// write was based on and which adds one element. The set at a version is the
// elements on its path to the root. The newest version is current; reads
// return it. A write based on an older version therefore silently drops the
// elements added since (a lost update), exactly as a real read-modify-write
// would. Its WriteDone observation says which: Dropped, the elements of the
// current set the new version lacks, and Restored, those of the base's set
// the current set lacked (both nil for a write based on the current
// version), so that a checker learns the final set's losses as they happen.
//
// The tree's nodes are kept for the last Window versions only, in a ring,
// and the current version's set is kept whole besides, as a bitmap of
// elements with a count for each element written more than once. A write
// is judged by walking from its base and from the current version up to
// their common ancestor, so any base whose paths stay within the window is
// exact. A write it cannot judge (a base older than the window, or whose
// branch parted from the current one before it) stops the run with a
// *WindowError rather than guessing. FinalLen and InFinal ask about the
// current set in O(1); Final and Set list a set, in O(set).
//
// Modes:
//   - Unprotected accepts every write.
//   - Fencing (Kleppmann) rejects a write whose token is lower than the
//     highest token the resource has seen, with proto.StaleToken and the
//     reason "token 33 < 34". Tokens seen on reads count too, unless
//     Config.FenceWritesOnly: otherwise a holder with token 33 that read
//     before a holder with token 34 could still write first, between 34's
//     read and 34's write, and have its element dropped by 34's write, so
//     fencing the writes alone does not protect a read-modify-write. Reads
//     are never rejected; a stale holder learns at its write, so every stale
//     attempt shows as a rejected write. Equal tokens are accepted (one
//     holder writing twice); token 0 is simply the lowest token.
//   - CompareAndSet (antirez's reply) lets a read claim the resource for the
//     reader's lock value (Lock of the read); a write is accepted only if
//     its Lock equals the current owner, else proto.NotOwner. The latest
//     reader wins the claim, stale or not: a paused holder that reads after
//     the new holder takes the claim back, and its write is then accepted,
//     though its lock is gone. That is the scheme, not a bug of the model.
//
// Invariants:
//   - The resource never crashes and never forgets an element of the
//     current set: Start does nothing. Its memory is bounded by the window
//     (16 bytes a version, 16 MB in all) and the current set (about a bit
//     per serial its clients drew), not by the number of writes.
//   - Requests are served one at a time in arrival order. With a positive
//     Config.ServiceTime each takes that long on the resource's monotonic
//     clock and takes effect when its service ends; with zero, at arrival.
//   - Every write, accepted or rejected, yields exactly one WriteDone
//     observation and one reply; every read yields one reply.
//   - Nothing in the resource depends on true time, map order or any
//     randomness; a read or a write based on the current version allocates
//     nothing in steady state (a write that drops or restores elements
//     lists them, a rejection builds its reason text, and tracing builds
//     its lines).
package resource
