package check

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The generator draws small histories on a grid of 1ms cells, so that the
// discretized availability reference below is exact, with few clients, so
// that overlaps of the same and of different clients are both common.

const (
	cell    = time.Millisecond
	horizon = 60 // cells
)

var clients = []string{"c1", "c2", "c3"}

func genHistory(t *rapid.T) History {
	h := History{End: horizon * cell}
	at := func(label string) time.Duration {
		return time.Duration(rapid.IntRange(0, horizon).Draw(t, label)) * cell
	}
	interval := func(label string) (time.Duration, time.Duration) {
		start := at(label + "-start")
		length := time.Duration(rapid.IntRange(0, 20).Draw(t, label+"-len")) * cell
		return start, min(start+length, h.End)
	}

	nh := rapid.IntRange(0, 25).Draw(t, "holds")
	for i := range nh {
		start, end := interval("hold")
		h.Holds = append(h.Holds, Hold{
			ID:     i + 1,
			Client: rapid.SampledFrom(clients).Draw(t, "hold-client"),
			Start:  start, End: end,
			// Tokens in random order, sometimes absent, so that the
			// token rule of staleness is exercised both ways.
			Token: uint64(rapid.IntRange(0, 30).Draw(t, "token")),
			Lock:  uint64(i + 1),
		})
	}
	na := rapid.IntRange(0, 15).Draw(t, "attempts")
	for range na {
		start, end := interval("attempt")
		h.Attempts = append(h.Attempts, Attempt{
			Client: rapid.SampledFrom(clients).Draw(t, "attempt-client"),
			Start:  start, End: end,
			OK: rapid.Bool().Draw(t, "attempt-ok"),
		})
	}
	nw := rapid.IntRange(0, 15).Draw(t, "writes")
	for i := range nw {
		w := Write{
			Client:   rapid.SampledFrom(clients).Draw(t, "write-client"),
			At:       at("write-at"),
			Element:  uint64(100 + i),
			Accepted: rapid.Bool().Draw(t, "write-accepted"),
		}
		if len(h.Holds) > 0 && rapid.IntRange(0, 4).Draw(t, "write-has-hold") > 0 {
			x := h.Holds[rapid.IntRange(0, len(h.Holds)-1).Draw(t, "write-hold")]
			w.Client, w.HoldID = x.Client, x.ID
			w.At = max(w.At, x.Start) // no access under a hold before it begins
		}
		if !w.Accepted {
			w.Reason = "token too old"
		}
		if w.Accepted && rapid.Bool().Draw(t, "write-kept") {
			h.Final = append(h.Final, w.Element)
		}
		h.Writes = append(h.Writes, w)
	}
	nr := rapid.IntRange(0, 15).Draw(t, "reads")
	for range nr {
		r := Read{Client: rapid.SampledFrom(clients).Draw(t, "read-client"), At: at("read-at")}
		if len(h.Holds) > 0 && rapid.IntRange(0, 4).Draw(t, "read-has-hold") > 0 {
			x := h.Holds[rapid.IntRange(0, len(h.Holds)-1).Draw(t, "read-hold")]
			r.Client, r.HoldID, r.At = x.Client, x.ID, max(r.At, x.Start)
		}
		h.Reads = append(h.Reads, r)
	}
	nl := rapid.IntRange(0, 60).Draw(t, "log")
	for i := range nl {
		h.Log = append(h.Log, Event{At: at("log-at"), Actor: "a", Kind: "k", Text: fmt.Sprint(i)})
	}
	slices.SortStableFunc(h.Log, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	return h
}

// refMutex is the O(n²) definition: every pair of holds of different
// clients with positive overlap, A being the earlier by (Start, ID).
type refPair struct{ a, b int }

func refMutex(h History) (n int, total, maxOverlap time.Duration, pairs []refPair) {
	for i, x := range h.Holds {
		for _, y := range h.Holds[i+1:] {
			if x.Client == y.Client {
				continue
			}
			o := min(x.End, y.End) - max(x.Start, y.Start)
			if o <= 0 {
				continue
			}
			n++
			total += o
			maxOverlap = max(maxOverlap, o)
			if byStartID(y, x) < 0 {
				x, y := y, x
				pairs = append(pairs, refPair{x.ID, y.ID})
			} else {
				pairs = append(pairs, refPair{x.ID, y.ID})
			}
		}
	}
	slices.SortFunc(pairs, func(p, q refPair) int { return cmp.Or(cmp.Compare(p.a, q.a), cmp.Compare(p.b, q.b)) })
	return n, total, maxOverlap, pairs
}

// refAvailability walks the grid cell by cell.
func refAvailability(h History) (unavailable, longest time.Duration) {
	covers := func(start, end time.Duration, c time.Duration) bool { return start <= c && c+cell <= end }
	run := time.Duration(0)
	for c := time.Duration(0); c < h.End; c += cell {
		waiting, held := false, false
		for _, a := range h.Attempts {
			waiting = waiting || covers(a.Start, a.End, c)
		}
		for _, x := range h.Holds {
			held = held || covers(x.Start, x.End, c)
		}
		if waiting && !held {
			unavailable += cell
			run += cell
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return unavailable, longest
}

// refWrites applies the resource definitions write by write against every
// hold.
func refWrites(h History) (stale, rejected, accepted, lost int) {
	byID := map[int]Hold{}
	for _, x := range h.Holds {
		byID[x.ID] = x
	}
	for _, w := range h.Writes {
		if !w.Accepted {
			rejected++
			continue
		}
		accepted++
		if !slices.Contains(h.Final, w.Element) {
			lost++
		}
		if w.HoldID == 0 {
			stale++
			continue
		}
		a := byID[w.HoldID]
		// Stale: a newer hold of another client had reached the resource,
		// by a read or a write, at or before this write.
		reached := func(id int) bool {
			for _, r := range h.Reads {
				if r.HoldID == id && r.At <= w.At {
					return true
				}
			}
			for _, o := range h.Writes {
				if o.HoldID == id && o.At <= w.At {
					return true
				}
			}
			return false
		}
		for _, x := range h.Holds {
			tokensAgree := a.Token == 0 || x.Token == 0 || x.Token > a.Token
			if x.Client != w.Client && x.Start > a.Start && tokensAgree && reached(x.ID) {
				stale++
				break
			}
		}
	}
	return stale, rejected, accepted, lost
}

func refPercentile(h History, p float64) time.Duration {
	var lat []time.Duration
	for _, a := range h.Attempts {
		if a.OK {
			lat = append(lat, a.End-a.Start)
		}
	}
	if len(lat) == 0 {
		return 0
	}
	slices.Sort(lat)
	rank := int(math.Ceil(p / 100 * float64(len(lat))))
	return lat[max(rank, 1)-1]
}

func cloneHistory(h History) History {
	h.Holds = slices.Clone(h.Holds)
	h.Attempts = slices.Clone(h.Attempts)
	h.Writes = slices.Clone(h.Writes)
	h.Final = slices.Clone(h.Final)
	h.Log = slices.Clone(h.Log)
	return h
}

func TestCheckMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := genHistory(t)
		before := cloneHistory(h)
		r := Check(h)

		if !equalHistory(before, h) {
			t.Fatalf("Check mutated its history")
		}

		n, total, mx, pairs := refMutex(h)
		if r.MutexViolations != n || r.MutexOverlapTotal != total || r.MutexOverlapMax != mx {
			t.Fatalf("mutex: got (%d, %v, %v), want (%d, %v, %v)",
				r.MutexViolations, r.MutexOverlapTotal, r.MutexOverlapMax, n, total, mx)
		}
		var got []refPair
		for _, v := range r.Violations {
			if v.Kind == MutexOverlap {
				got = append(got, refPair{v.A.ID, v.B.ID})
				if o := v.End - v.Start; o != min(v.A.End, v.B.End)-max(v.A.Start, v.B.Start) || o <= 0 {
					t.Fatalf("violation %v..%v does not match holds %+v %+v", v.Start, v.End, v.A, v.B)
				}
			}
		}
		slices.SortFunc(got, func(p, q refPair) int { return cmp.Or(cmp.Compare(p.a, q.a), cmp.Compare(p.b, q.b)) })
		if !slices.Equal(got, pairs) {
			t.Fatalf("mutex pairs: got %v, want %v", got, pairs)
		}

		un, longest := refAvailability(h)
		if r.Unavailable != un || r.LongestOutage != longest {
			t.Fatalf("availability: got (%v, %v), want (%v, %v)", r.Unavailable, r.LongestOutage, un, longest)
		}
		if p50, p99 := refPercentile(h, 50), refPercentile(h, 99); r.AcquireP50 != p50 || r.AcquireP99 != p99 {
			t.Fatalf("percentiles: got (%v, %v), want (%v, %v)", r.AcquireP50, r.AcquireP99, p50, p99)
		}

		stale, rejected, accepted, lost := refWrites(h)
		if r.StaleWritesAccepted != stale || r.StaleWritesRejected != rejected || r.WritesAccepted != accepted || r.LostUpdates != lost {
			t.Fatalf("writes: got (stale %d, rejected %d, accepted %d, lost %d), want (%d, %d, %d, %d)",
				r.StaleWritesAccepted, r.StaleWritesRejected, r.WritesAccepted, r.LostUpdates, stale, rejected, accepted, lost)
		}
		if len(r.Violations) != n+stale+lost {
			t.Fatalf("got %d violations, want %d", len(r.Violations), n+stale+lost)
		}

		for i, v := range r.Violations {
			if i > 0 {
				u := r.Violations[i-1]
				if c := cmp.Or(cmp.Compare(u.Start, v.Start), cmp.Compare(u.Kind, v.Kind), cmp.Compare(u.A.ID, v.A.ID),
					cmp.Compare(u.B.ID, v.B.ID), cmp.Compare(u.Element, v.Element)); c >= 0 {
					t.Fatalf("violations %d and %d out of order: %v / %v", i-1, i, u, v)
				}
			}
			checkExcerpt(t, h.Log, v)
		}

		// The verdict does not depend on the order things were recorded in.
		p := cloneHistory(h)
		p.Holds = rapid.Permutation(p.Holds).Draw(t, "holds-perm")
		p.Attempts = rapid.Permutation(p.Attempts).Draw(t, "attempts-perm")
		p.Writes = rapid.Permutation(p.Writes).Draw(t, "writes-perm")
		p.Final = rapid.Permutation(p.Final).Draw(t, "final-perm")
		if rp := Check(p); !equalReport(r, rp) {
			t.Fatalf("report depends on input order:\n%+v\n%+v", r, rp)
		}
	})
}

// checkExcerpt checks v's excerpt against the log window it should cover.
func checkExcerpt(t *rapid.T, log []Event, v Violation) {
	from := v.Start
	if v.Kind == MutexOverlap {
		from = v.A.Start
	}
	var want []Event
	for _, e := range log {
		if e.At >= from && e.At <= v.End {
			want = append(want, e)
		}
	}
	if len(want) <= MaxExcerpt {
		if !slices.Equal(v.Excerpt, want) {
			t.Fatalf("excerpt of %v: got %v, want %v", v, v.Excerpt, want)
		}
		return
	}
	if len(v.Excerpt) != MaxExcerpt+1 || v.Excerpt[MaxExcerpt/2].Kind != "elided" ||
		!slices.Equal(v.Excerpt[:MaxExcerpt/2], want[:MaxExcerpt/2]) ||
		!slices.Equal(v.Excerpt[MaxExcerpt/2+1:], want[len(want)-MaxExcerpt/2:]) {
		t.Fatalf("capped excerpt of %v wrong: %v", v, v.Excerpt)
	}
}

func equalHistory(a, b History) bool {
	return a.End == b.End && slices.Equal(a.Holds, b.Holds) && slices.Equal(a.Attempts, b.Attempts) &&
		slices.Equal(a.Writes, b.Writes) && slices.Equal(a.Final, b.Final) && slices.Equal(a.Log, b.Log)
}

func equalReport(a, b Report) bool { return reflect.DeepEqual(a, b) }
