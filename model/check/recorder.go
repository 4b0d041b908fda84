package check

import (
	"cmp"
	"slices"
	"time"
)

// Recorder builds a History from a run's observations as they come, in
// true-time order: the one place where a client's want, attempt and hold
// open and close, where a hold is named by its lock value, and where what
// is still open when the run ends is closed at its end. The simulator's
// narrated run and the real harness both feed one; a fast run feeds a
// Judge instead, which keeps no history.
//
// The rules, which Check relies on:
//   - a want opens with a client's first attempt and closes (OK) when the
//     client begins to hold the lock, spanning the retries and the pauses
//     between failed attempts;
//   - a hold is numbered in the order holds begin, from 1, and is named by
//     its lock value (the last hold to begin under a value takes it);
//   - whatever is open at Finish ends at the run's end.
//
// The zero Recorder is ready to use. It is not safe for concurrent use.
type Recorder struct {
	h       History
	clients []recClient    // by ClientID-1
	byLock  map[uint64]int // lock value → index in h.Holds
	last    time.Duration  // the latest time recorded
}

// ClientID is a client's handle in a Recorder; 0 is none.
type ClientID int

// recClient is a client's open want, attempt and hold, as indexes into
// the history; -1 when none is open.
type recClient struct {
	name            string
	want, try, hold int
}

// Client registers a client and returns the handle the per-client methods
// take. Register each client once.
func (r *Recorder) Client(name string) ClientID {
	r.clients = append(r.clients, recClient{name: name, want: -1, try: -1, hold: -1})
	return ClientID(len(r.clients))
}

func (r *Recorder) saw(at time.Duration) {
	r.last = max(r.last, at)
}

// AttemptStart records that client c began an acquire operation at at.
func (r *Recorder) AttemptStart(c ClientID, at time.Duration) {
	r.saw(at)
	rc, h := &r.clients[c-1], &r.h
	if rc.want < 0 {
		rc.want = len(h.Wants)
		h.Wants = append(h.Wants, Attempt{Client: rc.name, Start: at, End: -1})
	}
	rc.try = len(h.Attempts)
	h.Attempts = append(h.Attempts, Attempt{Client: rc.name, Start: at, End: -1})
}

// AttemptEnd records that client c's open acquire operation ended at at,
// with the lock (ok) or without.
func (r *Recorder) AttemptEnd(c ClientID, at time.Duration, ok bool) {
	r.saw(at)
	rc := &r.clients[c-1]
	if i := rc.try; i >= 0 {
		r.h.Attempts[i].End, r.h.Attempts[i].OK = at, ok
		rc.try = -1
	}
}

// HoldStart records that client c began at at to believe it holds the
// lock under value lock (with fencing token token, 0 if none yet), and
// returns the hold's ID.
func (r *Recorder) HoldStart(c ClientID, at time.Duration, lock, token uint64) int {
	r.saw(at)
	rc, h := &r.clients[c-1], &r.h
	if i := rc.want; i >= 0 {
		h.Wants[i].End, h.Wants[i].OK = at, true
		rc.want = -1
	}
	if r.byLock == nil {
		r.byLock = make(map[uint64]int)
	}
	id := len(h.Holds) + 1
	r.byLock[lock] = len(h.Holds)
	rc.hold = len(h.Holds)
	h.Holds = append(h.Holds, Hold{ID: id, Client: rc.name, Start: at, End: -1, Token: token, Lock: lock})
	return id
}

// Token records the fencing token of the hold under lock value lock.
func (r *Recorder) Token(lock, token uint64) {
	if i, ok := r.byLock[lock]; ok {
		r.h.Holds[i].Token = token
	}
}

// HoldEnd records that client c stopped believing it holds the lock at at.
func (r *Recorder) HoldEnd(c ClientID, at time.Duration) {
	r.saw(at)
	rc := &r.clients[c-1]
	if i := rc.hold; i >= 0 {
		r.h.Holds[i].End = at
		rc.hold = -1
	}
}

// HoldID is the ID of client's hold under lock value lock, or 0 when the
// client held no such hold (a request under a value it never held, or
// another client's).
func (r *Recorder) HoldID(client string, lock uint64) int {
	if i, ok := r.byLock[lock]; ok && r.h.Holds[i].Client == client {
		return r.h.Holds[i].ID
	}
	return 0
}

// Write records a write the resource applied or rejected.
func (r *Recorder) Write(w Write) {
	r.saw(w.At)
	r.h.Writes = append(r.h.Writes, w)
}

// Read records a read the resource served.
func (r *Recorder) Read(x Read) {
	r.saw(x.At)
	r.h.Reads = append(r.h.Reads, x)
}

// Log records notable events for the excerpts, in any order: Finish puts
// the log in true-time order, keeping the order of events at one time.
func (r *Recorder) Log(es ...Event) {
	for _, e := range es {
		r.saw(e.At)
	}
	r.h.Log = append(r.h.Log, es...)
}

// Kept is the history so far, its slices shared with the Recorder's: for
// measuring what a run keeps, not for judging.
func (r *Recorder) Kept() *History { return &r.h }

// Finish returns the history of a run that ended at end (or at the latest
// time recorded, if later: a real run's processes may report past its
// planned end), with every want, attempt and hold still open closed there
// and final as the resource's final set.
func (r *Recorder) Finish(end time.Duration, final []uint64) History {
	h := r.h
	h.End = max(end, r.last)
	closeAt := func(t *time.Duration) {
		if *t < 0 {
			*t = h.End
		}
	}
	for i := range h.Holds {
		closeAt(&h.Holds[i].End)
	}
	for i := range h.Attempts {
		closeAt(&h.Attempts[i].End)
	}
	for i := range h.Wants {
		closeAt(&h.Wants[i].End)
	}
	byTime := func(a, b Event) int { return cmp.Compare(a.At, b.At) }
	if !slices.IsSortedFunc(h.Log, byTime) {
		slices.SortStableFunc(h.Log, byTime)
	}
	h.Final = final
	return h
}
