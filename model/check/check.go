package check

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"
)

// MaxExcerpt is the most log events a violation's excerpt keeps: the first
// and the last MaxExcerpt/2 of its window, with one event of Kind "elided"
// between them saying how many were skipped.
const MaxExcerpt = 40

// Check judges a history and returns its report. It is a pure function: it
// does not modify h, and equal histories give equal reports whatever the
// order of their Holds, Attempts and Writes. It panics if h.Validate fails.
func Check(h History) Report {
	if err := h.Validate(); err != nil {
		panic("check: invalid history: " + err.Error())
	}
	holds := slices.Clone(h.Holds)
	slices.SortFunc(holds, byStartID)

	var r Report
	r.Violations = checkMutex(&r, holds, h.Log)
	r.Violations = append(r.Violations, checkWrites(&r, holds, h)...)
	checkAvailability(&r, holds, h.Attempts, h.Wants)

	slices.SortStableFunc(r.Violations, func(a, b Violation) int {
		return cmp.Or(
			cmp.Compare(a.Start, b.Start),
			cmp.Compare(a.Kind, b.Kind),
			cmp.Compare(a.A.ID, b.A.ID),
			cmp.Compare(a.B.ID, b.B.ID),
			cmp.Compare(a.Element, b.Element),
		)
	})
	return r
}

func byStartID(a, b Hold) int {
	return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.ID, b.ID))
}

// checkMutex sweeps holds (sorted by start, then ID) keeping the active set.
// When hold h starts, every active hold that ended at or before h.Start is
// dropped (touching is not overlapping); each remaining active hold of
// another client overlaps h for min(a.End, h.End) - h.Start, which is
// positive. Cost: O(n + overlapping pairs, same-client pairs included):
// each step over the active set either drops a hold, once per hold, or
// meets a hold that overlaps h.
func checkMutex(r *Report, holds []Hold, log []Event) []Violation {
	var vs []Violation
	var active []int32
	for i, h := range holds {
		active = slices.DeleteFunc(active, func(j int32) bool { return holds[j].End <= h.Start })
		if h.End <= h.Start {
			continue // an instant of belief overlaps nothing
		}
		for _, j := range active {
			a := holds[j]
			if a.Client == h.Client {
				continue
			}
			end := min(a.End, h.End)
			overlap := end - h.Start
			r.MutexViolations++
			r.MutexOverlapTotal += overlap
			r.MutexOverlapMax = max(r.MutexOverlapMax, overlap)
			v := Violation{
				Kind:  MutexOverlap,
				Start: h.Start,
				End:   end,
				A:     a,
				B:     h,
				Summary: fmt.Sprintf("%s and %s both held the lock for %v (%s from %v, %s from %v)",
					a.Client, h.Client, overlap, a.Client, a.Start, h.Client, h.Start),
			}
			v.Excerpt = excerpt(log, v)
			vs = append(vs, v)
		}
		active = append(active, int32(i))
	}
	return vs
}

// otherAfter returns, for each i, the smallest k > i with
// client(k) != client(i), or n.
func otherAfter(n int, client func(int) string) []int32 {
	next := make([]int32, n)
	for i := n - 1; i >= 0; i-- {
		switch {
		case i == n-1:
			next[i] = int32(n)
		case client(i+1) != client(i):
			next[i] = int32(i + 1)
		default:
			next[i] = next[i+1]
		}
	}
	return next
}

// otherBefore returns, for each i, the largest k < i with
// client(k) != client(i), or -1.
func otherBefore(n int, client func(int) string) []int32 {
	prev := make([]int32, n)
	for i := range n {
		switch {
		case i == 0:
			prev[i] = -1
		case client(i-1) != client(i):
			prev[i] = int32(i - 1)
		default:
			prev[i] = prev[i-1]
		}
	}
	return prev
}

// checkWrites counts write outcomes and finds stale writes accepted and lost
// updates.
func checkWrites(r *Report, holds []Hold, h History) []Violation {
	pos := make(map[int]int, len(holds)) // hold ID -> index in holds
	for i, x := range holds {
		pos[x.ID] = i
	}
	holdOf := func(id int) Hold {
		if id == 0 {
			return Hold{}
		}
		return holds[pos[id]]
	}
	holdClient := func(i int) string { return holds[i].Client }
	prevOther := otherBefore(len(holds), holdClient)

	// When each hold first reached the resource (a read or a write): a
	// newer hold makes an older one's write stale only once the resource
	// has seen it, which is exactly what fencing can enforce.
	firstAccess := make(map[int]time.Duration)
	touch := func(id int, at time.Duration) {
		if id == 0 {
			return
		}
		if t, ok := firstAccess[id]; !ok || at < t {
			firstAccess[id] = at
		}
	}
	for _, x := range h.Reads {
		touch(x.HoldID, x.At)
	}
	for _, w := range h.Writes {
		touch(w.HoldID, w.At)
	}

	// Accepted writes in (At, Element, ...) order: the order the resource
	// applied them, independent of the order they were recorded in.
	var acc []Write
	for _, w := range h.Writes {
		if w.Accepted {
			acc = append(acc, w)
		} else {
			r.StaleWritesRejected++
		}
	}
	slices.SortFunc(acc, func(a, b Write) int {
		return cmp.Or(
			cmp.Compare(a.At, b.At),
			cmp.Compare(a.Element, b.Element),
			cmp.Compare(a.Client, b.Client),
			cmp.Compare(a.HoldID, b.HoldID),
		)
	})
	r.WritesAccepted = len(acc)

	var vs []Violation
	for _, w := range acc {
		if w.HoldID == 0 {
			// No hold at all: stale. B is the latest hold of another
			// client begun by the time of the write, if any.
			v := Violation{Kind: StaleWriteAccepted, Start: w.At, End: w.At, Element: w.Element}
			q := sort.Search(len(holds), func(k int) bool { return holds[k].Start > w.At }) - 1
			if q >= 0 && holds[q].Client == w.Client {
				q = int(prevOther[q])
			}
			v.Summary = fmt.Sprintf("%s's write of element %s at %v was accepted although %s held no lock",
				w.Client, ElementName(w.Element), w.At, w.Client)
			if q >= 0 {
				v.B = holds[q]
				v.Start = v.B.Start
				v.Summary += fmt.Sprintf(" (%s had acquired it: %s)", v.B.Client, describe(v.B))
			}
			v.Excerpt = excerpt(h.Log, v)
			r.StaleWritesAccepted++
			vs = append(vs, v)
			continue
		}
		a := holdOf(w.HoldID)
		p := sort.Search(len(holds), func(k int) bool { return holds[k].Start > a.Start })
		// Scan the holds begun in (a.Start, w.At] for one of another client
		// that supersedes a and had already reached the resource; few holds
		// begin inside one critical section.
		for p < len(holds) && holds[p].Start <= w.At {
			b := holds[p]
			if b.Client != w.Client && newer(b, a) {
				if at, ok := firstAccess[b.ID]; ok && at <= w.At {
					break
				}
			}
			p++
		}
		if p < len(holds) && holds[p].Start <= w.At {
			b := holds[p]
			r.StaleWritesAccepted++
			v := Violation{
				Kind:    StaleWriteAccepted,
				Start:   a.Start,
				End:     w.At,
				A:       a,
				B:       b,
				Element: w.Element,
				Summary: fmt.Sprintf("%s's write of element %s at %v was accepted under %s, but %s had since acquired the lock (%s)",
					w.Client, ElementName(w.Element), w.At, describe(a), b.Client, describe(b)),
			}
			v.Excerpt = excerpt(h.Log, v)
			vs = append(vs, v)
		}
	}

	final := make(map[uint64]struct{}, len(h.Final))
	for _, e := range h.Final {
		final[e] = struct{}{}
	}
	accNextOther := otherAfter(len(acc), func(i int) string { return acc[i].Client })
	for i, w := range acc {
		if _, ok := final[w.Element]; ok {
			continue
		}
		r.LostUpdates++
		a := holdOf(w.HoldID)
		v := Violation{Kind: LostUpdate, Start: w.At, End: w.At, A: a, Element: w.Element}
		if a.ID != 0 {
			v.Start = min(v.Start, a.Start)
		}
		v.Summary = fmt.Sprintf("%s's write of element %s at %v (%s) was acknowledged but is missing from the final set",
			w.Client, ElementName(w.Element), w.At, describeOrNone(a))
		if j := int(accNextOther[i]); j < len(acc) {
			o := acc[j]
			v.B = holdOf(o.HoldID)
			v.End = o.At
			if v.B.ID != 0 {
				v.Start = min(v.Start, v.B.Start)
			}
			v.Summary += fmt.Sprintf("; %s's write of element %s at %v (%s) overwrote it",
				o.Client, ElementName(o.Element), o.At, describeOrNone(v.B))
		} else {
			v.Summary += "; no later accepted write by another client is known"
		}
		v.Excerpt = excerpt(h.Log, v)
		vs = append(vs, v)
	}
	return vs
}

// newer reports whether hold b supersedes hold a: it began later and, when
// both carry fencing tokens, it carries the higher one. The token order is
// the lock service's own order of grants; a client that wakes from a pause
// and only then learns of an old grant begins to believe late, but its hold
// is not the newer one.
func newer(b, a Hold) bool {
	if b.Start <= a.Start {
		return false
	}
	return a.Token == 0 || b.Token == 0 || b.Token > a.Token
}

// ElementName prints an element the way the simulator builds them: the
// writing client's id in the bits above 40, its serial below, so element
// 1<<40|2 reads "c1#2". Smaller numbers print as themselves.
func ElementName(e uint64) string {
	if e < 1<<40 {
		return strconv.FormatUint(e, 10)
	}
	return fmt.Sprintf("c%d#%d", e>>40, e&(1<<40-1))
}

// describe names a hold in words: "hold 1, token 33, from 1s".
func describe(x Hold) string {
	if x.Token != 0 {
		return fmt.Sprintf("hold %d, token %d, from %v", x.ID, x.Token, x.Start)
	}
	return fmt.Sprintf("hold %d from %v", x.ID, x.Start)
}

func describeOrNone(x Hold) string {
	if x.ID == 0 {
		return "holding no lock"
	}
	return describe(x)
}

// excerpt returns the log events in v's Window, cut by an Excerpter. It
// never aliases log.
func excerpt(log []Event, v Violation) []Event {
	start, end := v.Window()
	lo := sort.Search(len(log), func(i int) bool { return log[i].At >= start })
	hi := sort.Search(len(log), func(i int) bool { return log[i].At > end })
	if hi <= lo {
		return nil
	}
	var x Excerpter
	for _, e := range log[lo:hi] {
		x.Add(e)
	}
	return x.Excerpt()
}

// span is a half-open interval of true time.
type span struct{ start, end time.Duration }

// union sorts s in place and merges it into disjoint, non-touching spans of
// positive length.
func union(s []span) []span {
	slices.SortFunc(s, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
	})
	out := s[:0]
	for _, x := range s {
		if x.end <= x.start {
			continue
		}
		if n := len(out); n > 0 && x.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

// minus returns a \ b for merged spans a and b. The result's spans never
// touch: between two of them lies a gap of a or a span of b, both of
// positive length.
func minus(a, b []span) []span {
	var out []span
	j := 0
	for _, x := range a {
		cur := x.start
		for j < len(b) && b[j].end <= cur {
			j++
		}
		for k := j; k < len(b) && b[k].start < x.end; k++ {
			if b[k].start > cur {
				out = append(out, span{cur, b[k].start})
			}
			cur = max(cur, b[k].end)
		}
		if cur < x.end {
			out = append(out, span{cur, x.end})
		}
	}
	return out
}

func checkAvailability(r *Report, holds []Hold, attempts, wants []Attempt) {
	var lat []time.Duration
	as := make([]span, 0, len(attempts)+len(wants))
	for _, a := range attempts {
		r.AcquireAttempts++
		if a.OK {
			r.AcquireSuccesses++
			lat = append(lat, a.End-a.Start)
		} else {
			r.AcquireFailures++
		}
		if wants == nil {
			as = append(as, span{a.Start, a.End})
		}
	}
	for _, a := range wants {
		as = append(as, span{a.Start, a.End})
	}
	slices.Sort(lat)
	r.AcquireP50 = nearestRank(lat, 50)
	r.AcquireP99 = nearestRank(lat, 99)

	hs := make([]span, 0, len(holds))
	for _, x := range holds {
		hs = append(hs, span{x.Start, x.End})
	}
	for _, x := range minus(union(as), union(hs)) {
		d := x.end - x.start
		r.Unavailable += d
		r.LongestOutage = max(r.LongestOutage, d)
	}
}

// nearestRank returns the p-th percentile of sorted by the nearest-rank
// method: the smallest value with at least p% of the values at or below it.
func nearestRank(sorted []time.Duration, p int) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := (p*n + 99) / 100 // ceil(p*n/100)
	return sorted[max(rank, 1)-1]
}
