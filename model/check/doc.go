// Package check judges a finished redlocksim run.
//
// It owns one thing: a pure function, [Check], from a recorded [History] to a
// [Report]. Like porcupine's CheckOperations it simulates nothing and reads no
// clock; it looks at what happened and says whether it was safe. The history
// is judged in true time (time.Duration since the run's start, as the kernel
// counts it), never in any process's belief of time: a client's belief that
// it holds the lock is itself an observation, recorded as a [Hold] whose
// interval is the true time during which the client believed it.
//
// Definitions (all intervals are half-open in spirit: two intervals that only
// touch at an endpoint do not overlap):
//
//   - Mutual-exclusion violation: a pair of holds of different clients whose
//     intervals overlap for a positive length of true time. Each such pair is
//     one violation; the report gives their count, the sum of their overlaps
//     and the largest overlap. Holds of the same client never violate mutual
//     exclusion with each other. Found by a sweep over the holds sorted by
//     start, in O(n log n + k) for n holds and k overlapping pairs (plus
//     overlapping pairs of the same client, which a history rarely has).
//   - Stale write accepted: an accepted write issued under a hold that was no
//     longer the newest at the resource when the resource applied it: some
//     hold of a different client that supersedes the writer's had already
//     reached the resource (a read or a write of it at or before the write).
//     A hold B supersedes A when B started strictly after A and, when both
//     carry fencing tokens, carries the higher token (the lock service's
//     order of grants: a client that learns of an old grant only after a
//     pause begins to believe late, but its hold is not the newer one). This
//     is the property fencing enforces; a newer holder that never reached the
//     resource cannot be seen there, and its overlap is counted as a mutual-
//     exclusion violation instead. An accepted write issued under no hold at
//     all (HoldID 0) is stale too. Every rejected write counts as a stale
//     write rejected (by fencing or compare-and-set).
//   - Lost update: an accepted write whose element is missing from the
//     resource's final set: it was acknowledged, then overwritten. The
//     violation names the next accepted write by another client as the one
//     that overwrote it, when there is one.
//   - Availability: the measure of true time during which at least one client
//     was inside an acquire attempt and no client held the lock (the union of
//     attempt intervals minus the union of hold intervals), and the longest
//     contiguous stretch of it. Acquisition latency percentiles are
//     nearest-rank over the successful attempts.
//
// Every violation names the holds involved, a one-line summary in plain
// words, and an excerpt of the run's log covering the window that explains
// it, capped at [MaxExcerpt] events (the first and last [MaxExcerpt]/2 kept,
// one "elided" event in between).
//
// [Judge] is the same checker working online, for runs too long to keep
// their history: fed the run's events in true-time order, it returns the
// report Check gives on the same history, its memory bounded by what is
// still open rather than by the run's length. Its limits ([ExactLatencies],
// [MaxViolations], [DropWindow]) are the only places where it may differ,
// and the report says so; its violations have no excerpts. Check stays the
// reference: a property test feeds random histories to both.
//
// [Recorder] turns observations, as they come, into a History or into a
// Judge's input ([NewJudged]), and closes what is still open at the run's
// end: the simulator's narrated and fast runs and the real harness
// (cmd/internal/real/harness) all record through it, so that every
// history, kept or judged on the fly, follows one set of rules.
//
// Invariants:
//   - Check does not mutate its argument and its output depends only on the
//     contents of the history, not on the order of Holds, Attempts or Writes
//     (Log order is part of its contents, and must be true-time order).
//   - Violations are sorted by (Start, Kind, A.ID, B.ID, Element).
//   - A history that breaks the simulator's contract (see
//     [History.Validate]) is API misuse: Check panics with the reason.
package check
