package check

import (
	"fmt"
	"time"
)

// Report is the checker's verdict on one run.
type Report struct {
	MutexViolations   int           // pairs of holds of different clients that overlap
	MutexOverlapTotal time.Duration // sum of the pairs' overlaps
	MutexOverlapMax   time.Duration // largest pair overlap

	LostUpdates         int // accepted writes whose element is missing from the final set
	StaleWritesAccepted int // accepted writes under a superseded hold, or under none
	StaleWritesRejected int // every rejected write
	WritesAccepted      int

	AcquireAttempts, AcquireSuccesses, AcquireFailures int
	// AcquireP50 and AcquireP99 are nearest-rank over the successful
	// attempts' End-Start, 0 if none. Check's are exact; a Judge's are
	// exact up to ExactLatencies successes, beyond which they are the
	// lower bound of a log-linear histogram bucket, at most LatencyError
	// (under 0.1%) below the exact value.
	AcquireP50, AcquireP99 time.Duration

	Unavailable   time.Duration // true time during which some client wanted the lock (History.Wants, else inside an attempt) and nobody held it
	LongestOutage time.Duration // longest contiguous such interval

	Violations []Violation // sorted by (Start, Kind, A.ID, B.ID, Element)
	// ViolationsOmitted is how many violations a Judge found beyond the
	// first MaxViolations, which alone it details; the counts above
	// include them. Check details every violation and leaves it 0.
	ViolationsOmitted int
}

// Safe reports whether the run kept mutual exclusion (no two clients ever
// believed they held the lock at once) and whether the resource stayed safe
// (no lost update and no stale write accepted).
func (r Report) Safe() (mutex, resource bool) {
	return r.MutexViolations == 0, r.LostUpdates == 0 && r.StaleWritesAccepted == 0
}

// ViolationKind says which property a Violation breaks. The zero value is
// invalid.
type ViolationKind int

// The kinds of violation, in the order Violations sorts them at equal Start.
const (
	MutexOverlap       ViolationKind = 1 + iota // two clients believed they held the lock at once
	StaleWriteAccepted                          // the resource accepted a write under a superseded hold
	LostUpdate                                  // an acknowledged write's element is missing from the final set
)

// String returns the kind's stable name: "mutex-overlap",
// "stale-write-accepted" or "lost-update".
func (k ViolationKind) String() string {
	switch k {
	case MutexOverlap:
		return "mutex-overlap"
	case StaleWriteAccepted:
		return "stale-write-accepted"
	case LostUpdate:
		return "lost-update"
	}
	return fmt.Sprintf("ViolationKind(%d)", int(k))
}

// Violation is one breach of safety, with what is needed to understand it.
type Violation struct {
	Kind ViolationKind
	// Start and End bound the overlap (mutex) or the window that explains
	// it (resource: from the earlier hold's start to the write that shows
	// the violation).
	Start, End time.Duration
	// A and B are the holds involved. Mutex: A started first (ties: lower
	// ID). Stale write: A is the writer's hold (zero if it wrote under
	// none), B the first newer hold of another client. Lost update: A is
	// the hold of the lost write, B the hold of the write that overwrote
	// it. A zero Hold (ID 0) means none or unknown.
	A, B Hold
	// Element is the write's element, for resource violations.
	Element uint64
	// Excerpt holds the log events with At from the earlier hold's start
	// (for resource violations, Start) to End inclusive: at most MaxExcerpt
	// of them, plus one "elided" event if some were skipped.
	Excerpt []Event
	// Summary is one line in plain words.
	Summary string
}

// String returns the violation's kind and summary on one line.
func (v Violation) String() string {
	return v.Kind.String() + ": " + v.Summary
}
