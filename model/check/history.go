package check

import (
	"fmt"
	"time"
)

// History is everything the checker needs from one run. The simulator fills
// it; all times are true times since the run's start.
type History struct {
	End      time.Duration // run end; holds and attempts still open are closed here by the simulator
	Holds    []Hold        // in any order
	Attempts []Attempt     // in any order
	// Wants are the intervals during which a client wanted the lock: from
	// the start of an attempt until it got the lock, spanning the pauses
	// between a failed attempt and the next. Availability is judged on them
	// (a client thinking before its next try still waits for the lock).
	// When nil, the Attempts stand in for them. OK is ignored.
	Wants  []Attempt
	Writes []Write  // resource write outcomes, in any order
	Reads  []Read   // reads the resource served, in any order
	Final  []uint64 // elements in the resource's final set
	Log    []Event  // notable observations in true-time order, for excerpts
}

// Hold is one interval during which a client believed it held the lock.
type Hold struct {
	ID     int           // unique, >0
	Client string        // who believed it
	Start  time.Duration // when the client began to believe it holds the lock (acquisition succeeded)
	End    time.Duration // when it stopped believing (released, noticed its validity ran out, or run end); a client frozen in a pause keeps believing, so End includes the pause
	Token  uint64        // fencing token (0 = none)
	Lock   uint64        // the lock's random value, which names the hold (ElementName formats it)
}

// Attempt is one whole acquire operation, including its retries.
type Attempt struct {
	Client string
	Start  time.Duration
	End    time.Duration // when it succeeded or gave up (or run end, with OK false)
	OK     bool
}

// Write is the outcome of one read-modify-write at the protected resource.
type Write struct {
	Client   string
	HoldID   int           // the hold under which the client issued the write (0 = none: the client wrote without believing it held the lock)
	At       time.Duration // when the resource applied or rejected it
	Element  uint64        // unique element this read-modify-write adds
	Accepted bool
	Reason   string // why it was rejected ("token 33 < 34", "value mismatch"); empty if accepted
}

// Read is a read the resource served: the start of a read-modify-write.
type Read struct {
	Client string
	HoldID int           // the hold under which the client read (0 = none)
	At     time.Duration // when the resource served it
}

// Event is one notable observation of the run, kept for excerpts.
type Event struct {
	At    time.Duration
	Actor string
	Kind  string
	Text  string
	// Repeats is how many more events, each the same as this one (actor,
	// kind and text) and each following the last, an excerpt's line
	// stands for (see Excerpter); Last is the time of the last of them.
	// A log's events have none.
	Repeats int
	Last    time.Duration
}

// Line is the event as an excerpt prints it: its text, and for a run of
// repeats their number and span ("c2 fails to acquire: ... [×25,
// 5.002s–9.84s]").
func (e Event) Line() string {
	if e.Repeats == 0 {
		return e.Text
	}
	return fmt.Sprintf("%s [×%d, %v–%v]", e.Text, e.Repeats+1, e.At.Round(time.Millisecond), e.Last.Round(time.Millisecond))
}

// end is the time of the last event e stands for.
func (e Event) end() time.Duration {
	if e.Repeats == 0 {
		return e.At
	}
	return e.Last
}

// repeats reports whether e is the same event as prev happening again:
// the same actor, kind and text.
func (e Event) repeats(prev Event) bool {
	return e.Actor == prev.Actor && e.Kind == prev.Kind && e.Text == prev.Text
}

// Validate reports the first way in which h breaks the simulator's contract,
// or nil. Check panics on a history that Validate rejects.
//
// The contract: every time lies in [0, End]; every interval has Start <= End;
// hold IDs are positive and unique; a write's HoldID is 0 or names a hold of
// the same client; the log is in true-time order.
func (h History) Validate() error {
	if h.End < 0 {
		return fmt.Errorf("history end %v is negative", h.End)
	}
	in := func(t time.Duration) bool { return t >= 0 && t <= h.End }
	byID := make(map[int]int, len(h.Holds))
	for i, x := range h.Holds {
		if x.ID <= 0 {
			return fmt.Errorf("hold %d (%s) has id %d, want > 0", i, x.Client, x.ID)
		}
		if j, dup := byID[x.ID]; dup {
			return fmt.Errorf("holds %d and %d share id %d", j, i, x.ID)
		}
		byID[x.ID] = i
		if x.Start > x.End || !in(x.Start) || !in(x.End) {
			return fmt.Errorf("hold %d (%s) spans [%v, %v], want 0 <= start <= end <= %v", x.ID, x.Client, x.Start, x.End, h.End)
		}
	}
	for i, a := range h.Attempts {
		if a.Start > a.End || !in(a.Start) || !in(a.End) {
			return fmt.Errorf("attempt %d (%s) spans [%v, %v], want 0 <= start <= end <= %v", i, a.Client, a.Start, a.End, h.End)
		}
	}
	for i, a := range h.Wants {
		if a.Start > a.End || !in(a.Start) || !in(a.End) {
			return fmt.Errorf("want %d (%s) spans [%v, %v], want 0 <= start <= end <= %v", i, a.Client, a.Start, a.End, h.End)
		}
	}
	for i, x := range h.Reads {
		if !in(x.At) {
			return fmt.Errorf("read %d (%s) at %v lies outside [0, %v]", i, x.Client, x.At, h.End)
		}
		if x.HoldID == 0 {
			continue
		}
		j, ok := byID[x.HoldID]
		if !ok {
			return fmt.Errorf("read %d (%s) names unknown hold %d", i, x.Client, x.HoldID)
		}
		if c := h.Holds[j].Client; c != x.Client {
			return fmt.Errorf("read %d by %s names hold %d of %s", i, x.Client, x.HoldID, c)
		}
		if x.At < h.Holds[j].Start {
			return fmt.Errorf("read %d by %s at %v comes before its hold %d began (%v)", i, x.Client, x.At, x.HoldID, h.Holds[j].Start)
		}
	}
	for i, w := range h.Writes {
		if !in(w.At) {
			return fmt.Errorf("write %d (%s, element %d) at %v lies outside [0, %v]", i, w.Client, w.Element, w.At, h.End)
		}
		if w.HoldID == 0 {
			continue
		}
		j, ok := byID[w.HoldID]
		if !ok {
			return fmt.Errorf("write %d (%s, element %d) names unknown hold %d", i, w.Client, w.Element, w.HoldID)
		}
		if c := h.Holds[j].Client; c != w.Client {
			return fmt.Errorf("write %d by %s (element %d) names hold %d of %s", i, w.Client, w.Element, w.HoldID, c)
		}
		if w.At < h.Holds[j].Start {
			return fmt.Errorf("write %d by %s at %v comes before its hold %d began (%v)", i, w.Client, w.At, w.HoldID, h.Holds[j].Start)
		}
	}
	for i := 1; i < len(h.Log); i++ {
		if h.Log[i].At < h.Log[i-1].At {
			return fmt.Errorf("log event %d at %v comes after event %d at %v", i, h.Log[i].At, i-1, h.Log[i-1].At)
		}
	}
	return nil
}
