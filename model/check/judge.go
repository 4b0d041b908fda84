package check

import (
	"cmp"
	"container/heap"
	"fmt"
	"math/bits"
	"slices"
	"sort"
	"time"
)

// Limits of the online Judge. They bound its memory; below them its report
// is exactly Check's.
const (
	// ExactLatencies is how many successful acquisitions' latencies the
	// Judge keeps to take AcquireP50 and AcquireP99 exactly. Beyond it they
	// come from a log-linear histogram whose bucket lower bound is within
	// LatencyError of every value in the bucket.
	ExactLatencies = 1 << 20
	// LatencyError is the histogram's relative error: 2^-10, under 0.1%.
	LatencyError = 1.0 / 1024
	// MaxViolations is how many violations a Judge's report details: the
	// first in the order of Report.Violations. The counts stay exact;
	// Report.ViolationsOmitted says how many were left out.
	MaxViolations = 10000
	// DropWindow is how many of the most recent accepted writes the Judge
	// remembers, so that an element the resource drops later can be told
	// as a lost update: about six hours of the baseline scenario's
	// writes. A drop must name an element among the last DropWindow
	// accepted writes or one already missing (a read-modify-write based
	// on a version that old is beyond what the simulator models); the
	// Judge panics with the reason otherwise.
	DropWindow = 1 << 17
)

// WindowError is a drop the Judge cannot tell as a lost update: the element
// is not among the last DropWindow accepted writes (or was never accepted).
// The Judge panics with it, as the resource does with its own window, and
// a budgeted run returns it as the run's error rather than guess.
type WindowError struct {
	Element uint64
	Window  int
}

func (e *WindowError) Error() string {
	return fmt.Sprintf("check: a write dropped element %s, which is not among the last %d accepted writes the online judge keeps (check.DropWindow), "+
		"so that its memory does not grow with the run: it cannot tell that lost update. A read-modify-write this stale is beyond what the simulator models; shorten the run or the pause that makes it",
		ElementName(e.Element), e.Window)
}

// Judge is the checker working online: it is fed a run's events in true-time
// order, as they happen, and Finish returns the Report that Check would give
// on the same history, with the limits above. Its memory does not grow with
// the length of a healthy run: it keeps the open holds, attempts and wants,
// the holds that can still make a write stale, the events of the current
// instant, the last DropWindow accepted writes and the elements missing from
// the resource's set.
//
// Events of one instant may come in any order, except that drops and
// restores apply in the order given. The caller's contract, besides
// History.Validate's: a hold's token does not change after its first read or
// write (a newer hold's token decides staleness when the write is judged,
// once time has moved past it); Retire(id) is called only after the hold
// ended and once no read, write or token can name it any more; the excerpts
// of violations are empty (there is no log).
type Judge struct {
	healed time.Duration
	now    time.Duration
	done   bool

	clients map[string]int32
	names   []string

	live   map[int]*jhold // holds not retired, by ID
	order  []*jhold       // holds by (Start, ID), a prefix of retired ones trimmed
	latest []*jhold       // by client: its latest hold by (Start, ID) begun by now
	active []*jhold       // holds not ended, or ended at now

	// Writes of the current instant, judged once time moves past it, and
	// the drops and restores of the instant, applied after its writes.
	pending []pwrite
	changes []change

	// Accepted writes in (At, Element, Client, HoldID) order: the last
	// DropWindow of them in a ring, with an index by element.
	ring     []accRec
	accepted int // accepted writes ever
	byElem   map[uint64]int
	missing  map[uint64]*lostRec
	waiting  []*lostRec // missing, no later write of another client known yet

	// Availability: the open wants and holds, and the outage in progress.
	wants, holding int
	run            time.Duration
	openWants      map[int]want
	nextWant       int
	worst          Starvation
	worstSeq       int

	lat  []time.Duration
	hist []uint64 // nil until len(lat) would exceed ExactLatencies

	vs      vheap
	omitted int
	r       Report
}

type jhold struct {
	Hold
	ended    bool
	retired  bool
	accessed bool
	first    time.Duration // first read or write
	pairs    []*pair
}

type pair struct {
	a, b *jhold // a first by (Start, ID)
	done bool
}

type pwrite struct {
	w    Write
	hold *jhold
}

type change struct {
	restore bool
	elems   []uint64
}

type accRec struct {
	at     time.Duration
	elem   uint64
	hold   *jhold
	client int32
}

type lostRec struct {
	w     accRec
	seq   int // its index among accepted writes
	other *accRec
}

type want struct {
	client string
	start  time.Duration
}

// pv is a violation whose holds are bound late: its summary is written,
// and its holds copied, when the report is made.
type pv struct {
	kind       ViolationKind
	start, end time.Duration
	a, b       *jhold
	elem       uint64
	aID, bID   int
	w          accRec // the write, for resource violations
	o          *accRec
	overlap    time.Duration
}

func (v *pv) less(u *pv) bool {
	return cmp.Or(
		cmp.Compare(v.start, u.start),
		cmp.Compare(v.kind, u.kind),
		cmp.Compare(v.aID, u.aID),
		cmp.Compare(v.bID, u.bID),
		cmp.Compare(v.elem, u.elem),
	) < 0
}

// vheap is a max-heap: its root is the violation that goes first when
// more than MaxViolations are found.
type vheap []*pv

func (h vheap) Len() int           { return len(h) }
func (h vheap) Less(i, j int) bool { return h[j].less(h[i]) }
func (h vheap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *vheap) Push(x any)        { *h = append(*h, x.(*pv)) }
func (h *vheap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// NewJudge returns a Judge for a run starting at true time 0. Healed is
// the time the faults healed, from which Starved counts waits.
func NewJudge(healed time.Duration) *Judge {
	return &Judge{
		healed:    healed,
		clients:   map[string]int32{},
		live:      map[int]*jhold{},
		byElem:    map[uint64]int{},
		missing:   map[uint64]*lostRec{},
		openWants: map[int]want{},
		worst:     Starvation{Healed: healed},
		worstSeq:  -1,
	}
}

func (j *Judge) client(name string) int32 {
	if i, ok := j.clients[name]; ok {
		return i
	}
	i := int32(len(j.names))
	j.clients[name] = i
	j.names = append(j.names, name)
	j.latest = append(j.latest, nil)
	return i
}

// advance moves the Judge's clock to at: the instant now is over.
func (j *Judge) advance(at time.Duration) {
	if j.done {
		panic("check: judge fed after Finish")
	}
	if at < j.now {
		panic(fmt.Sprintf("check: judge fed an event at %v after one at %v", at, j.now))
	}
	if at == j.now {
		return
	}
	j.flush()
	// The state after every event of the instant holds until the next.
	if j.wants > 0 && j.holding == 0 {
		j.run += at - j.now
		j.r.Unavailable += at - j.now
		j.r.LongestOutage = max(j.r.LongestOutage, j.run)
	} else {
		j.run = 0
	}
	j.now = at
	j.active = slices.DeleteFunc(j.active, func(x *jhold) bool { return x.ended && x.End < at })
}

// HoldStart records that h.Client began to believe it holds the lock at
// h.Start (h.End is ignored).
func (j *Judge) HoldStart(h Hold) {
	j.advance(h.Start)
	if h.ID <= 0 {
		panic(fmt.Sprintf("check: hold id %d, want > 0", h.ID))
	}
	if _, dup := j.live[h.ID]; dup {
		panic(fmt.Sprintf("check: hold %d started twice", h.ID))
	}
	x := &jhold{Hold: h}
	x.End = -1
	j.live[h.ID] = x
	c := j.client(h.Client)
	if l := j.latest[c]; l == nil || byStartID(l.Hold, h) < 0 {
		j.latest[c] = x
	}
	i := len(j.order)
	for i > 0 && byStartID(j.order[i-1].Hold, h) > 0 {
		i--
	}
	j.order = slices.Insert(j.order, i, x)
	for _, a := range j.active {
		if a.Client == h.Client {
			continue
		}
		p := &pair{a: a, b: x}
		if byStartID(x.Hold, a.Hold) < 0 {
			p.a, p.b = x, a
		}
		a.pairs = append(a.pairs, p)
		x.pairs = append(x.pairs, p)
	}
	j.active = append(j.active, x)
	j.holding++
}

func (j *Judge) hold(id int) *jhold {
	x, ok := j.live[id]
	if !ok {
		panic(fmt.Sprintf("check: judge fed unknown or retired hold %d", id))
	}
	return x
}

// HoldToken records that hold id learned its fencing token at at.
func (j *Judge) HoldToken(id int, token uint64, at time.Duration) {
	j.advance(at)
	j.hold(id).Token = token
}

// HoldEnd records that hold id ended at at.
func (j *Judge) HoldEnd(id int, at time.Duration) {
	j.advance(at)
	x := j.hold(id)
	if x.ended {
		panic(fmt.Sprintf("check: hold %d ended twice", id))
	}
	x.ended, x.End = true, at
	j.holding--
	j.settle(x)
}

// settle judges x's pairs whose holds have both ended.
func (j *Judge) settle(x *jhold) {
	for _, p := range x.pairs {
		if p.done || !p.a.ended || !p.b.ended {
			continue
		}
		p.done = true
		a, b := p.a, p.b
		end := min(a.End, b.End)
		if end <= b.Start {
			continue
		}
		o := end - b.Start
		j.r.MutexViolations++
		j.r.MutexOverlapTotal += o
		j.r.MutexOverlapMax = max(j.r.MutexOverlapMax, o)
		j.add(&pv{kind: MutexOverlap, start: b.Start, end: end, a: a, b: b, aID: a.ID, bID: b.ID, overlap: o})
	}
	x.pairs = slices.DeleteFunc(x.pairs, func(p *pair) bool { return p.done })
	if len(x.pairs) == 0 {
		x.pairs = nil
	}
}

// Retire promises that no read, write or token names hold id any more; the
// hold must have ended. The Judge forgets it once no write can need it.
func (j *Judge) Retire(id int) {
	x := j.hold(id)
	if !x.ended {
		panic(fmt.Sprintf("check: hold %d retired before it ended", id))
	}
	x.retired = true
	delete(j.live, id)
}

// Retained is how many holds the Judge keeps to judge later writes by:
// what a long run's memory must not grow with (a hold never retired pins
// every later one).
func (j *Judge) Retained() int { return len(j.order) }

// Attempt records one acquire operation at its end.
func (j *Judge) Attempt(a Attempt) {
	j.advance(a.End)
	j.r.AcquireAttempts++
	if !a.OK {
		j.r.AcquireFailures++
		return
	}
	j.r.AcquireSuccesses++
	d := a.End - a.Start
	if j.hist == nil && len(j.lat) < ExactLatencies {
		j.lat = append(j.lat, d)
		return
	}
	if j.hist == nil {
		j.hist = make([]uint64, histBuckets)
		for _, x := range j.lat {
			j.hist[bucket(x)]++
		}
		j.lat = nil
	}
	j.hist[bucket(d)]++
}

// WantStart records that client began to want the lock at at; it returns
// the handle WantEnd takes. Wants are handed out in the order History.Wants
// would list them.
func (j *Judge) WantStart(client string, at time.Duration) int {
	j.advance(at)
	j.wants++
	j.nextWant++
	j.openWants[j.nextWant] = want{client, at}
	return j.nextWant
}

// WantEnd records that the want w ended at at.
func (j *Judge) WantEnd(w int, at time.Duration) {
	j.advance(at)
	x, ok := j.openWants[w]
	if !ok {
		panic(fmt.Sprintf("check: judge fed unknown want %d", w))
	}
	delete(j.openWants, w)
	j.wants--
	j.waited(w, x, at)
}

func (j *Judge) waited(seq int, x want, end time.Duration) {
	from := max(x.start, j.healed)
	if end <= from {
		return
	}
	d := end - from
	if d > j.worst.Wait || d == j.worst.Wait && seq < j.worstSeq {
		j.worst.Client, j.worst.From, j.worst.Wait = x.client, from, d
		j.worstSeq = seq
	}
}

func (j *Judge) access(x *jhold, at time.Duration) {
	if x != nil && !x.accessed {
		x.accessed, x.first = true, at
	}
}

// Read records a read the resource served.
func (j *Judge) Read(r Read) {
	j.advance(r.At)
	if r.HoldID != 0 {
		j.access(j.hold(r.HoldID), r.At)
	}
}

// Write records a write's outcome at the resource.
func (j *Judge) Write(w Write) {
	j.advance(w.At)
	var x *jhold
	if w.HoldID != 0 {
		x = j.hold(w.HoldID)
		j.access(x, w.At)
	}
	if !w.Accepted {
		j.r.StaleWritesRejected++
		return
	}
	j.pending = append(j.pending, pwrite{w, x})
}

// Dropped records that an accepted write at at dropped elems from the
// resource's current set; Restored that it restored them.
func (j *Judge) Dropped(at time.Duration, elems []uint64) {
	j.advance(at)
	j.changes = append(j.changes, change{elems: slices.Clone(elems)})
}

// Restored: see Dropped.
func (j *Judge) Restored(at time.Duration, elems []uint64) {
	j.advance(at)
	j.changes = append(j.changes, change{restore: true, elems: slices.Clone(elems)})
}

// flush judges the current instant's writes, now that every event of it
// is known.
func (j *Judge) flush() {
	if len(j.pending) > 0 {
		slices.SortFunc(j.pending, func(a, b pwrite) int {
			return cmp.Or(
				cmp.Compare(a.w.Element, b.w.Element),
				cmp.Compare(a.w.Client, b.w.Client),
				cmp.Compare(a.w.HoldID, b.w.HoldID),
			)
		})
		for _, p := range j.pending {
			j.judgeWrite(p)
		}
		clear(j.pending)
		j.pending = j.pending[:0]
	}
	for _, c := range j.changes {
		for _, e := range c.elems {
			if c.restore {
				j.restore(e)
			} else {
				j.drop(e)
			}
		}
	}
	clear(j.changes)
	j.changes = j.changes[:0]
	// Holds at the front that are retired can make no write stale: every
	// hold that can still write began no earlier.
	n := 0
	for n < len(j.order) && j.order[n].retired {
		n++
	}
	if n > 0 {
		clear(j.order[:n])
		j.order = j.order[n:]
		if cap(j.order) > 64 && len(j.order) < cap(j.order)/4 {
			j.order = slices.Clone(j.order)
		}
	}
}

func (j *Judge) judgeWrite(p pwrite) {
	w := p.w
	j.r.WritesAccepted++
	c := j.client(w.Client)
	rec := accRec{at: w.At, elem: w.Element, hold: p.hold, client: c}
	j.remember(rec)
	if p.hold == nil {
		// The latest hold of another client begun by now, by (Start, ID).
		var b *jhold
		for i, l := range j.latest {
			if int32(i) != c && l != nil && (b == nil || byStartID(b.Hold, l.Hold) < 0) {
				b = l
			}
		}
		v := &pv{kind: StaleWriteAccepted, start: w.At, end: w.At, b: b, elem: w.Element, w: rec}
		if b != nil {
			v.start, v.bID = b.Start, b.ID
		}
		j.r.StaleWritesAccepted++
		j.add(v)
		return
	}
	a := p.hold
	i := sort.Search(len(j.order), func(k int) bool { return j.order[k].Start > a.Start })
	for ; i < len(j.order) && j.order[i].Start <= w.At; i++ {
		b := j.order[i]
		if b.Client != w.Client && newer(b.Hold, a.Hold) && b.accessed && b.first <= w.At {
			j.r.StaleWritesAccepted++
			j.add(&pv{kind: StaleWriteAccepted, start: a.Start, end: w.At, a: a, b: b, aID: a.ID, bID: b.ID, elem: w.Element, w: rec})
			return
		}
	}
}

// remember appends an accepted write, in order, to the ring.
func (j *Judge) remember(rec accRec) {
	seq := j.accepted
	j.accepted++
	if len(j.ring) < DropWindow {
		j.ring = append(j.ring, rec)
	} else {
		old := &j.ring[seq%DropWindow]
		if k, ok := j.byElem[old.elem]; ok && k == seq-DropWindow {
			delete(j.byElem, old.elem)
		}
		*old = rec
	}
	j.byElem[rec.elem] = seq
	// The write is the next of another client for every missing one
	// still waiting for it.
	if len(j.waiting) > 0 {
		j.waiting = slices.DeleteFunc(j.waiting, func(l *lostRec) bool {
			if l.w.client == rec.client {
				return false
			}
			o := rec
			l.other = &o
			return true
		})
	}
}

func (j *Judge) drop(e uint64) {
	if _, ok := j.missing[e]; ok {
		return
	}
	seq, ok := j.byElem[e]
	if !ok {
		panic(&WindowError{Element: e, Window: DropWindow})
	}
	l := &lostRec{w: j.ring[seq%DropWindow], seq: seq}
	for k := seq + 1; k < j.accepted; k++ {
		if o := j.ring[k%DropWindow]; o.client != l.w.client {
			l.other = &o
			break
		}
	}
	if l.other == nil {
		j.waiting = append(j.waiting, l)
	}
	j.missing[e] = l
}

func (j *Judge) restore(e uint64) {
	l, ok := j.missing[e]
	if !ok {
		return
	}
	delete(j.missing, e)
	if l.other == nil {
		j.waiting = slices.DeleteFunc(j.waiting, func(x *lostRec) bool { return x == l })
	}
}

// add keeps v if it is among the first MaxViolations.
func (j *Judge) add(v *pv) {
	if len(j.vs) < MaxViolations {
		heap.Push(&j.vs, v)
		return
	}
	j.omitted++
	if v.less(j.vs[0]) {
		j.vs[0] = v
		heap.Fix(&j.vs, 0)
	}
}

// Finish closes the run at end: holds, wants and attempts still open end
// there (the caller records open attempts with Attempt first). It returns
// the report; the Judge takes no more events.
func (j *Judge) Finish(end time.Duration) Report {
	j.advance(end)
	j.flush()
	// Close the open holds and wants at end, in a deterministic order.
	open := make([]*jhold, 0, len(j.live))
	for _, x := range j.live {
		if !x.ended {
			open = append(open, x)
		}
	}
	slices.SortFunc(open, func(a, b *jhold) int { return cmp.Compare(a.ID, b.ID) })
	for _, x := range open {
		x.ended, x.End = true, end
	}
	for _, x := range open {
		j.settle(x)
	}
	ws := make([]int, 0, len(j.openWants))
	for k := range j.openWants {
		ws = append(ws, k)
	}
	slices.Sort(ws)
	for _, k := range ws {
		j.waited(k, j.openWants[k], end)
	}
	j.done = true

	lost := make([]*lostRec, 0, len(j.missing))
	for _, l := range j.missing {
		lost = append(lost, l)
	}
	slices.SortFunc(lost, func(a, b *lostRec) int { return cmp.Compare(a.seq, b.seq) })
	for _, l := range lost {
		j.r.LostUpdates++
		v := &pv{kind: LostUpdate, start: l.w.at, end: l.w.at, a: l.w.hold, elem: l.w.elem, w: l.w, o: l.other}
		if a := l.w.hold; a != nil {
			v.aID = a.ID
			v.start = min(v.start, a.Start)
		}
		if o := l.other; o != nil {
			v.end = o.at
			if b := o.hold; b != nil {
				v.b, v.bID = b, b.ID
				v.start = min(v.start, b.Start)
			}
		}
		j.add(v)
	}

	j.r.AcquireP50 = j.percentile(50)
	j.r.AcquireP99 = j.percentile(99)

	vs := []*pv(j.vs)
	slices.SortFunc(vs, func(a, b *pv) int {
		if a.less(b) {
			return -1
		}
		if b.less(a) {
			return 1
		}
		return 0
	})
	r := j.r
	r.ViolationsOmitted = j.omitted
	if len(vs) > 0 {
		r.Violations = make([]Violation, len(vs))
		for i, v := range vs {
			r.Violations[i] = j.violation(v)
		}
	}
	j.vs = nil
	return r
}

// Starved judges liveness as Starved does on the history: the longest
// wait counted from the heal given to NewJudge. Call it after Finish.
func (j *Judge) Starved(limit time.Duration) (Starvation, bool) {
	w := j.worst
	w.Limit = limit
	return w, w.Wait > limit
}

func hold(x *jhold) Hold {
	if x == nil {
		return Hold{}
	}
	return x.Hold
}

func (j *Judge) violation(v *pv) Violation {
	out := Violation{Kind: v.kind, Start: v.start, End: v.end, A: hold(v.a), B: hold(v.b), Element: v.elem}
	w := v.w
	client := ""
	if v.kind != MutexOverlap {
		client = j.names[w.client]
	}
	switch v.kind {
	case MutexOverlap:
		a, b := out.A, out.B
		out.Summary = fmt.Sprintf("%s and %s both held the lock for %v (%s from %v, %s from %v)",
			a.Client, b.Client, v.overlap, a.Client, a.Start, b.Client, b.Start)
	case StaleWriteAccepted:
		if v.a == nil {
			out.Summary = fmt.Sprintf("%s's write of element %s at %v was accepted although %s held no lock",
				client, ElementName(w.elem), w.at, client)
			if v.b != nil {
				out.Summary += fmt.Sprintf(" (%s had acquired it: %s)", out.B.Client, describe(out.B))
			}
			break
		}
		out.Summary = fmt.Sprintf("%s's write of element %s at %v was accepted under %s, but %s had since acquired the lock (%s)",
			client, ElementName(w.elem), w.at, describe(out.A), out.B.Client, describe(out.B))
	case LostUpdate:
		out.Summary = fmt.Sprintf("%s's write of element %s at %v (%s) was acknowledged but is missing from the final set",
			client, ElementName(w.elem), w.at, describeOrNone(out.A))
		if o := v.o; o != nil {
			out.Summary += fmt.Sprintf("; %s's write of element %s at %v (%s) overwrote it",
				j.names[o.client], ElementName(o.elem), o.at, describeOrNone(out.B))
		} else {
			out.Summary += "; no later accepted write by another client is known"
		}
	}
	return out
}

// The latency histogram: values below 2^11 ns have a bucket each; above,
// each power of two is cut into 1024 buckets, so that a bucket's lower
// bound is within 2^-10 of its values.
const (
	subBits     = 10
	histBuckets = 2<<subBits + (63-subBits)*(1<<subBits)
)

func bucket(d time.Duration) int {
	v := uint64(max(d, 0))
	if v < 2<<subBits {
		return int(v)
	}
	e := 63 - bits.LeadingZeros64(v) // v's top bit, > subBits
	shift := e - subBits
	return 2<<subBits + (e-subBits-1)*(1<<subBits) + int(v>>shift) - 1<<subBits
}

func bucketLow(i int) time.Duration {
	if i < 2<<subBits {
		return time.Duration(i)
	}
	i -= 2 << subBits
	e := i>>subBits + subBits + 1
	m := uint64(i&(1<<subBits-1)) + 1<<subBits
	return time.Duration(m << (e - subBits))
}

func (j *Judge) percentile(p int) time.Duration {
	if j.hist == nil {
		slices.Sort(j.lat)
		return nearestRank(j.lat, p)
	}
	n := uint64(j.r.AcquireSuccesses)
	rank := max((uint64(p)*n+99)/100, 1)
	var seen uint64
	for i, c := range j.hist {
		seen += c
		if seen >= rank {
			return bucketLow(i)
		}
	}
	return 0
}
