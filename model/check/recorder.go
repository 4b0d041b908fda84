package check

import (
	"cmp"
	"slices"
	"time"
)

// Recorder turns a run's observations, fed as they come in true-time
// order, into the checker's input: the one place where a client's want,
// attempt and hold open and close, where holds are numbered, and where what
// is still open when the run ends is closed at its end. Its sink is chosen
// once, when it is made: a History (the zero Recorder; the simulator's
// narrated run and the real harness), or a Judge (NewJudged; the
// simulator's fast run, which keeps no history and so judges as it goes).
//
// The rules, which Check and the Judge rely on:
//   - a want opens with a client's first attempt and closes (OK) when the
//     client begins to hold the lock, spanning the retries and the pauses
//     between failed attempts;
//   - an attempt that begins while one is open replaces it;
//   - holds are numbered in the order they begin, from 1; a History names
//     a hold by its lock value too (HoldOf, HoldID: the last hold to begin
//     under a value takes it), which a Judge leaves to its feeder, since a
//     name kept for ever would grow with the run;
//   - whatever is open at the end ends at the run's end.
//
// It is not safe for concurrent use.
type Recorder struct {
	judge   *Judge // the sink, when not a History
	h       History
	clients []recClient    // by ClientID-1
	byLock  map[uint64]int // a History's: lock value → index in h.Holds
	holds   int            // holds begun
	last    time.Duration  // the latest time recorded
}

// NewJudged returns a Recorder that feeds j instead of keeping a History.
func NewJudged(j *Judge) *Recorder { return &Recorder{judge: j} }

// ClientID is a client's handle in a Recorder; 0 is none.
type ClientID int

// recClient is a client's open want, attempt and hold: a History's
// indexes (a Judge's want handle, and the hold's ID), -1 when none is
// open; tryStart is the open attempt's start, for a Judge.
type recClient struct {
	name            string
	want, try, hold int
	tryStart        time.Duration
}

// Client registers a client and returns the handle the per-client methods
// take. Register each client once; a Judge's run closes the attempts
// still open at its end in the order the clients were registered.
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
	if r.judge != nil {
		if rc.want < 0 {
			rc.want = r.judge.WantStart(rc.name, at)
		}
		rc.try, rc.tryStart = 0, at
		return
	}
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
	r.endAttempt(&r.clients[c-1], at, ok)
}

// endAttempt closes rc's open attempt, if any, at at.
func (r *Recorder) endAttempt(rc *recClient, at time.Duration, ok bool) {
	i := take(&rc.try)
	switch {
	case i < 0:
	case r.judge != nil:
		r.judge.Attempt(Attempt{Client: rc.name, Start: rc.tryStart, End: at, OK: ok})
	default:
		r.h.Attempts[i].End, r.h.Attempts[i].OK = at, ok
	}
}

// take empties a client's open slot (its try or hold) and returns
// what it held: -1 when nothing was open.
func take(open *int) int {
	i := *open
	*open = -1
	return i
}

// HoldStart records that client c began at at to believe it holds the
// lock under value lock (with fencing token token, 0 if none yet), and
// returns the hold's ID.
func (r *Recorder) HoldStart(c ClientID, at time.Duration, lock, token uint64) int {
	r.saw(at)
	rc, h := &r.clients[c-1], &r.h
	r.holds++
	id := r.holds
	if r.judge != nil {
		if rc.want >= 0 {
			r.judge.WantEnd(rc.want, at)
			rc.want = -1
		}
		rc.hold = id
		r.judge.HoldStart(Hold{ID: id, Client: rc.name, Start: at, Token: token, Lock: lock})
		return id
	}
	if i := rc.want; i >= 0 {
		h.Wants[i].End, h.Wants[i].OK = at, true
		rc.want = -1
	}
	if r.byLock == nil {
		r.byLock = make(map[uint64]int)
	}
	r.byLock[lock] = len(h.Holds)
	rc.hold = len(h.Holds)
	h.Holds = append(h.Holds, Hold{ID: id, Client: rc.name, Start: at, End: -1, Token: token, Lock: lock})
	return id
}

// Token records at at the fencing token of hold id (0: none, ignored).
func (r *Recorder) Token(id int, token uint64, at time.Duration) {
	switch {
	case id <= 0:
	case r.judge != nil:
		r.judge.HoldToken(id, token, at)
	default:
		r.h.Holds[id-1].Token = token
	}
}

// HoldEnd records that client c stopped believing it holds the lock at at.
func (r *Recorder) HoldEnd(c ClientID, at time.Duration) {
	r.saw(at)
	switch i := take(&r.clients[c-1].hold); {
	case i < 0:
	case r.judge != nil:
		r.judge.HoldEnd(i, at)
	default:
		r.h.Holds[i].End = at
	}
}

// HoldOf is the ID of the last hold to begin under lock value lock, or 0
// (always 0 for a Judge: see the rules).
func (r *Recorder) HoldOf(lock uint64) int {
	if i, ok := r.byLock[lock]; ok {
		return r.h.Holds[i].ID
	}
	return 0
}

// HoldID is the ID of client's hold under lock value lock, or 0 when the
// client held no such hold (a request under a value it never held, or
// another client's); always 0 for a Judge.
func (r *Recorder) HoldID(client string, lock uint64) int {
	if i, ok := r.byLock[lock]; ok && r.h.Holds[i].Client == client {
		return r.h.Holds[i].ID
	}
	return 0
}

// Write records a write the resource applied or rejected.
func (r *Recorder) Write(w Write) {
	r.saw(w.At)
	if r.judge != nil {
		r.judge.Write(w)
		return
	}
	r.h.Writes = append(r.h.Writes, w)
}

// Read records a read the resource served.
func (r *Recorder) Read(x Read) {
	r.saw(x.At)
	if r.judge != nil {
		r.judge.Read(x)
		return
	}
	r.h.Reads = append(r.h.Reads, x)
}

// Log records notable events for a History's excerpts, in any order:
// Finish puts the log in true-time order, keeping the order of events at
// one time. A Judge keeps no log.
func (r *Recorder) Log(es ...Event) {
	if r.judge != nil {
		return
	}
	for _, e := range es {
		r.saw(e.At)
	}
	r.h.Log = append(r.h.Log, es...)
}

// Judged closes, for a Judge, the attempts still open at the run's end
// and returns the Judge's report.
func (r *Recorder) Judged(end time.Duration) Report {
	for i := range r.clients {
		r.endAttempt(&r.clients[i], end, false)
	}
	return r.judge.Finish(end)
}

// Kept is the history so far, its slices shared with the Recorder's: for
// measuring what a run keeps, not for judging.
func (r *Recorder) Kept() *History { return &r.h }

// Finish returns, for a History, the history of a run that ended at end (or at the latest
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
