package check

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// jev is one event fed to a Judge; deps are the indexes of the events
// that must come before it.
type jev struct {
	at   time.Duration
	key  int // random order among events of one instant
	deps []int
	feed func(j *Judge)
}

// judgeEvents turns a valid history into the events a simulator would feed
// a Judge, in true-time order, events of one instant in a drawn order that
// keeps only what causality needs (a hold starts before it is used; a drop
// comes before a restore of the same element).
func judgeEvents(t *rapid.T, h *History, lateTokens bool) (ev []jev, wantStarts []int) {
	addEv := func(at time.Duration, feed func(*Judge), deps ...int) int {
		ev = append(ev, jev{at: at, key: rapid.IntRange(0, 1<<20).Draw(t, "key"), deps: deps, feed: feed})
		return len(ev) - 1
	}
	startOf := map[int]int{}
	lastUse := map[int][]int{}
	firstUse := map[int]time.Duration{}
	use := func(id int, at time.Duration) {
		if f, ok := firstUse[id]; !ok || at < f {
			firstUse[id] = at
		}
	}
	for _, r := range h.Reads {
		if r.HoldID != 0 {
			use(r.HoldID, r.At)
		}
	}
	for _, w := range h.Writes {
		if w.HoldID != 0 {
			use(w.HoldID, w.At)
		}
	}
	for _, x := range h.Holds {
		start := x
		tokenAt := time.Duration(-1)
		if lateTokens && x.Token != 0 && rapid.Bool().Draw(t, "late-token") {
			// The token comes later, but no later than the hold's first
			// use of the resource.
			limit := h.End
			if f, ok := firstUse[x.ID]; ok {
				limit = f
			}
			tokenAt = x.Start + time.Duration(rapid.IntRange(0, int((limit-x.Start)/cell)).Draw(t, "token-at"))*cell
			start.Token = 0
		}
		s := addEv(x.Start, func(j *Judge) { j.HoldStart(start) })
		startOf[x.ID] = s
		if tokenAt >= 0 {
			id, tok := x.ID, x.Token
			i := addEv(tokenAt, func(j *Judge) { j.HoldToken(id, tok, tokenAt) }, s)
			lastUse[x.ID] = append(lastUse[x.ID], i)
		}
	}
	// addUse adds a use of the resource by hold id (0 for none) at at,
	// after that hold's start.
	addUse := func(id int, at time.Duration, feed func(*Judge)) int {
		var deps []int
		if id != 0 {
			deps = []int{startOf[id]}
		}
		i := addEv(at, feed, deps...)
		lastUse[id] = append(lastUse[id], i)
		return i
	}
	for _, r := range h.Reads {
		addUse(r.HoldID, r.At, func(j *Judge) { j.Read(r) })
	}
	writeEv := map[uint64]int{}
	for _, w := range h.Writes {
		writeEv[w.Element] = addUse(w.HoldID, w.At, func(j *Judge) { j.Write(w) })
	}
	for _, x := range h.Holds {
		e := addEv(x.End, func(j *Judge) { j.HoldEnd(x.ID, x.End) }, startOf[x.ID])
		// Retired once ended and used for the last time, if the run goes on.
		var last time.Duration
		for _, i := range lastUse[x.ID] {
			last = max(last, ev[i].at)
		}
		if at := max(x.End, last); at < h.End && rapid.Bool().Draw(t, "retire") {
			id := x.ID
			addEv(at, func(j *Judge) { j.Retire(id) }, append([]int{e}, lastUse[x.ID]...)...)
		}
	}
	for _, a := range h.Attempts {
		addEv(a.End, func(j *Judge) { j.Attempt(a) })
	}
	wants := h.Wants
	if wants == nil {
		wants = h.Attempts
	}
	handles := make([]int, len(wants))
	for i, w := range wants {
		s := addEv(w.Start, func(j *Judge) { handles[i] = j.WantStart(w.Client, w.Start) })
		wantStarts = append(wantStarts, s)
		addEv(w.End, func(j *Judge) { j.WantEnd(handles[i], w.End) }, s)
	}
	final := map[uint64]bool{}
	for _, e := range h.Final {
		final[e] = true
	}
	between := func(lo time.Duration, label string) time.Duration {
		return lo + time.Duration(rapid.IntRange(0, int((h.End-lo)/cell)).Draw(t, label))*cell
	}
	for _, w := range h.Writes {
		if !w.Accepted {
			continue
		}
		e := []uint64{w.Element}
		switch {
		case !final[w.Element]:
			d := between(w.At, "drop-at")
			addEv(d, func(j *Judge) { j.Dropped(d, e) }, writeEv[w.Element])
		case rapid.Bool().Draw(t, "drop-restore"):
			d := between(w.At, "drop-at")
			r := between(d, "restore-at")
			i := addEv(d, func(j *Judge) { j.Dropped(d, e) }, writeEv[w.Element])
			addEv(r, func(j *Judge) { j.Restored(r, e) }, i)
		}
	}
	return ev, wantStarts
}

// order sorts events by time, then by their drawn keys, and moves each
// event behind the ones it depends on.
func order(ev []jev) []int {
	idx := make([]int, len(ev))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(ev[a].at, ev[b].at), cmp.Compare(ev[a].key, ev[b].key), cmp.Compare(a, b))
	})
	done := make([]bool, len(ev))
	var out []int
	var held []int
	ready := func(i int) bool {
		for _, d := range ev[i].deps {
			if !done[d] {
				return false
			}
		}
		return true
	}
	emit := func(i int) {
		out = append(out, i)
		done[i] = true
		for again := true; again; {
			again = false
			for k, x := range held {
				if ready(x) {
					held = slices.Delete(held, k, k+1)
					out = append(out, x)
					done[x] = true
					again = true
					break
				}
			}
		}
	}
	for _, i := range idx {
		if ready(i) {
			emit(i)
		} else {
			held = append(held, i)
		}
	}
	if len(held) > 0 {
		panic("judge test: events wait for each other")
	}
	return out
}

func genJudged(t *rapid.T) History {
	h := genHistory(t)
	h.Log = nil // a Judge has no log: excerpts are empty
	if rapid.Bool().Draw(t, "wants") {
		n := rapid.IntRange(0, 10).Draw(t, "nwants")
		for range n {
			start := time.Duration(rapid.IntRange(0, horizon).Draw(t, "want-start")) * cell
			end := min(start+time.Duration(rapid.IntRange(0, 30).Draw(t, "want-len"))*cell, h.End)
			h.Wants = append(h.Wants, Attempt{Client: rapid.SampledFrom(clients).Draw(t, "want-client"), Start: start, End: end})
		}
	}
	return h
}

func TestJudgeMatchesCheck(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := genJudged(t)
		ev, wantStarts := judgeEvents(t, &h, true)
		healed := time.Duration(rapid.IntRange(0, horizon).Draw(t, "healed")) * cell
		limit := time.Duration(rapid.IntRange(0, 20).Draw(t, "limit")) * cell

		j := NewJudge(healed)
		seq := order(ev)
		for _, i := range seq {
			ev[i].feed(j)
		}
		got := j.Finish(h.End)
		want := Check(h)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("judge and check differ:\njudge %s\ncheck %s", dump(got), dump(want))
		}

		// Starved ties go to the want begun first, in the order the
		// Judge was told of them, which is the order a simulator lists
		// them in.
		ws := h.Wants
		if ws == nil {
			ws = h.Attempts
		}
		pos := make([]int, len(ev))
		for p, i := range seq {
			pos[i] = p
		}
		started := slices.Clone(ws)
		k := make([]int, len(ws))
		for i := range k {
			k[i] = i
		}
		slices.SortFunc(k, func(a, b int) int { return cmp.Compare(pos[wantStarts[a]], pos[wantStarts[b]]) })
		for i, x := range k {
			started[i] = ws[x]
		}
		hw := h
		hw.Wants = started
		gs, gb := j.Starved(limit)
		ws2, wb := Starved(hw, healed, limit)
		if gs != ws2 || gb != wb {
			t.Fatalf("starved: judge %+v %v, check %+v %v", gs, gb, ws2, wb)
		}
	})
}

func dump(r Report) string {
	s := fmt.Sprintf("%+v", Report{
		MutexViolations: r.MutexViolations, MutexOverlapTotal: r.MutexOverlapTotal, MutexOverlapMax: r.MutexOverlapMax,
		LostUpdates: r.LostUpdates, StaleWritesAccepted: r.StaleWritesAccepted, StaleWritesRejected: r.StaleWritesRejected,
		WritesAccepted: r.WritesAccepted, AcquireAttempts: r.AcquireAttempts, AcquireSuccesses: r.AcquireSuccesses,
		AcquireFailures: r.AcquireFailures, AcquireP50: r.AcquireP50, AcquireP99: r.AcquireP99,
		Unavailable: r.Unavailable, LongestOutage: r.LongestOutage, ViolationsOmitted: r.ViolationsOmitted,
	})
	for _, v := range r.Violations {
		s += fmt.Sprintf("\n  %v [%v,%v] A=%+v B=%+v e=%d", v.Kind, v.Start, v.End, v.A, v.B, v.Element)
		s += "\n    " + v.Summary
	}
	return s
}

// More violations than MaxViolations: the Judge details the first ones in
// Check's order and counts the rest.
func TestJudgeCapsViolations(t *testing.T) {
	h := History{End: time.Second}
	n := 120 // 120*120 overlapping pairs of c1 and c2
	for i := range 2 * n {
		c := clients[i%2]
		h.Holds = append(h.Holds, Hold{ID: i + 1, Client: c, Start: time.Duration(i) * time.Millisecond, End: time.Second})
	}
	j := NewJudge(0)
	for _, x := range h.Holds {
		j.HoldStart(x)
	}
	for _, x := range h.Holds {
		j.HoldEnd(x.ID, x.End)
	}
	got := j.Finish(h.End)
	want := Check(h)
	if len(want.Violations) <= MaxViolations {
		t.Fatalf("the test needs more than %d violations, has %d", MaxViolations, len(want.Violations))
	}
	if got.MutexViolations != want.MutexViolations || got.MutexOverlapTotal != want.MutexOverlapTotal {
		t.Fatalf("counts: judge %d %v, check %d %v", got.MutexViolations, got.MutexOverlapTotal, want.MutexViolations, want.MutexOverlapTotal)
	}
	if got.ViolationsOmitted != len(want.Violations)-MaxViolations {
		t.Fatalf("omitted %d, want %d", got.ViolationsOmitted, len(want.Violations)-MaxViolations)
	}
	if !reflect.DeepEqual(got.Violations, want.Violations[:MaxViolations]) {
		t.Fatalf("the kept violations are not Check's first %d", MaxViolations)
	}
}

// Every value lies in its bucket, whose lower bound is within
// LatencyError of it.
func TestLatencyBuckets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := time.Duration(rapid.Int64Range(0, 1<<62).Draw(t, "d"))
		if rapid.Bool().Draw(t, "small") {
			d = time.Duration(rapid.Int64Range(0, 1<<14).Draw(t, "d-small"))
		}
		b := bucket(d)
		if b < 0 || b >= histBuckets {
			t.Fatalf("bucket(%v) = %d outside [0, %d)", d, b, histBuckets)
		}
		lo := bucketLow(b)
		if lo > d || float64(d-lo) > LatencyError*float64(d) {
			t.Fatalf("bucket(%d) = %d starts at %d", d, b, lo)
		}
		if b+1 < histBuckets && bucketLow(b+1) <= d {
			t.Fatalf("bucket(%d) = %d, but bucket %d starts at %d", d, b, b+1, bucketLow(b+1))
		}
	})
}

// Beyond ExactLatencies successes the percentiles come from the
// histogram, within LatencyError of the exact ones.
func TestJudgeLatencyHistogram(t *testing.T) {
	if testing.Short() {
		t.Skip("feeds a million attempts")
	}
	var h History
	j := NewJudge(0)
	at := time.Duration(0)
	for i := range ExactLatencies + 1000 {
		d := time.Duration(1000+(i*7919)%5_000_000) * time.Nanosecond
		a := Attempt{Client: "c1", Start: at, End: at + d, OK: true}
		at += d
		j.Attempt(a)
		h.Attempts = append(h.Attempts, a)
	}
	h.End = at
	got, want := j.Finish(at), Check(h)
	for _, p := range [][2]time.Duration{{got.AcquireP50, want.AcquireP50}, {got.AcquireP99, want.AcquireP99}} {
		if p[0] > p[1] || float64(p[1]-p[0]) > LatencyError*float64(p[1]) {
			t.Fatalf("histogram percentile %v, exact %v", p[0], p[1])
		}
	}
	if got.AcquireP99 == want.AcquireP99 && got.AcquireP50 == want.AcquireP50 {
		t.Logf("histogram gave the exact percentiles")
	}
}

// A drop of an element older than the last DropWindow accepted writes
// cannot be told: the Judge stops with a *WindowError rather than guess;
// one within the window is a lost update.
func TestJudgeDropWindow(t *testing.T) {
	feed := func(dropped uint64) (r Report, err error) {
		defer func() {
			if v := recover(); v != nil {
				we, ok := v.(*WindowError)
				if !ok {
					panic(v)
				}
				err = we
			}
		}()
		j := NewJudge(0)
		for i := range DropWindow + 1 {
			j.Write(Write{Client: "c1", At: time.Duration(i), Element: uint64(i + 1), Accepted: true})
		}
		j.Dropped(DropWindow+1, []uint64{dropped})
		return j.Finish(DropWindow + 2), nil
	}
	r, err := feed(2) // the oldest kept
	if err != nil || r.LostUpdates != 1 {
		t.Fatalf("drop within the window: %d lost, %v", r.LostUpdates, err)
	}
	_, err = feed(1)
	var we *WindowError
	if !errors.As(err, &we) || we.Element != 1 {
		t.Fatalf("drop beyond the window: %v, want a *WindowError for element 1", err)
	}
}
