package check

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	ms = time.Millisecond
	s  = time.Second
)

// kleppmann is the history of §4's process-pause argument: client 1 takes
// the lock (token 33) at 1s and pauses; its lock expires on the nodes; client
// 2 takes it (token 34) from 11s to 13s and writes; client 1 wakes at 20s
// still believing it holds the lock and writes what it read before the pause.
// With fencing the resource rejects token 33 (fenced = true).
func kleppmann(fenced bool) History {
	c1 := Write{Client: "c1", HoldID: 1, At: 20*s + 100*ms, Element: 1, Accepted: true}
	final := []uint64{1} // c1's read-modify-write read {} before its pause
	if fenced {
		c1.Accepted, c1.Reason = false, "token 33 < 34"
		final = []uint64{2}
	}
	return History{
		End: 30 * s,
		Holds: []Hold{
			{ID: 2, Client: "c2", Start: 11 * s, End: 13 * s, Token: 34, Lock: 2},
			{ID: 1, Client: "c1", Start: 1 * s, End: 20 * s, Token: 33, Lock: 1},
		},
		Attempts: []Attempt{
			{Client: "c1", Start: 900 * ms, End: 1 * s, OK: true},
			{Client: "c2", Start: 3 * s, End: 11 * s, OK: true},
		},
		Writes: []Write{
			{Client: "c2", HoldID: 2, At: 12 * s, Element: 2, Accepted: true},
			c1,
		},
		Final: final,
		Log:   kleppmannLog(fenced),
	}
}

func kleppmannLog(fenced bool) []Event {
	last := Event{At: 20*s + 100*ms, Actor: "resource", Kind: "write-accepted", Text: "c1 element 1 token 33"}
	if fenced {
		last = Event{At: 20*s + 100*ms, Actor: "resource", Kind: "write-rejected", Text: "c1 element 1: token 33 < 34"}
	}
	return []Event{
		{At: 1 * s, Actor: "c1", Kind: "acquired", Text: "token 33 validity 9.9s"},
		{At: 2 * s, Actor: "c1", Kind: "paused", Text: "gc 18s"},
		{At: 3 * s, Actor: "c2", Kind: "attempt", Text: ""},
		{At: 11 * s, Actor: "n1", Kind: "expired", Text: "value v1"},
		{At: 11 * s, Actor: "c2", Kind: "acquired", Text: "token 34 validity 9.9s"},
		{At: 12 * s, Actor: "resource", Kind: "write-accepted", Text: "c2 element 2 token 34"},
		{At: 13 * s, Actor: "c2", Kind: "released", Text: ""},
		{At: 20 * s, Actor: "c1", Kind: "resumed", Text: ""},
		last,
	}
}

func TestKleppmannPauseUnfenced(t *testing.T) {
	h := kleppmann(false)
	r := Check(h)
	c1, c2 := h.Holds[1], h.Holds[0]
	log := h.Log

	want := Report{
		MutexViolations: 1, MutexOverlapTotal: 2 * s, MutexOverlapMax: 2 * s,
		LostUpdates: 1, StaleWritesAccepted: 1, StaleWritesRejected: 0, WritesAccepted: 2,
		AcquireAttempts: 2, AcquireSuccesses: 2, AcquireFailures: 0,
		AcquireP50: 100 * ms, AcquireP99: 8 * s,
		// c1 waits 0.9s..1s with nobody holding; c2 waits 3s..11s
		// inside c1's hold, which does not count.
		Unavailable: 100 * ms, LongestOutage: 100 * ms,
		Violations: []Violation{
			{
				Kind: StaleWriteAccepted, Start: 1 * s, End: 20*s + 100*ms,
				A: c1, B: c2, Element: 1, Excerpt: log,
				Summary: "c1's write of element 1 at 20.1s was accepted under hold 1, token 33, from 1s, but c2 had since acquired the lock (hold 2, token 34, from 11s)",
			},
			{
				Kind: LostUpdate, Start: 1 * s, End: 20*s + 100*ms,
				A: c2, B: c1, Element: 2, Excerpt: log,
				Summary: "c2's write of element 2 at 12s (hold 2, token 34, from 11s) was acknowledged but is missing from the final set; c1's write of element 1 at 20.1s (hold 1, token 33, from 1s) overwrote it",
			},
			{
				Kind: MutexOverlap, Start: 11 * s, End: 13 * s,
				A: c1, B: c2, Excerpt: log[:7],
				Summary: "c1 and c2 both held the lock for 2s (c1 from 1s, c2 from 11s)",
			},
		},
	}
	assert.Equal(t, want, r)

	mutex, resource := r.Safe()
	assert.False(t, mutex, "mutex safe")
	assert.False(t, resource, "resource safe")
}

func TestKleppmannPauseFenced(t *testing.T) {
	h := kleppmann(true)
	r := Check(h)

	assert.Equal(t, 1, r.MutexViolations, "fencing does not stop two clients believing they hold the lock")
	assert.Equal(t, 2*s, r.MutexOverlapTotal)
	assert.Equal(t, 0, r.StaleWritesAccepted)
	assert.Equal(t, 1, r.StaleWritesRejected)
	assert.Equal(t, 0, r.LostUpdates)
	assert.Equal(t, 1, r.WritesAccepted)
	require.Len(t, r.Violations, 1)
	assert.Equal(t, MutexOverlap, r.Violations[0].Kind)

	mutex, resource := r.Safe()
	assert.False(t, mutex, "mutex safe")
	assert.True(t, resource, "resource safe")
}

func TestTouchingHoldsDoNotOverlap(t *testing.T) {
	h := History{End: 10 * s, Holds: []Hold{
		{ID: 1, Client: "c1", Start: 1 * s, End: 5 * s},
		{ID: 2, Client: "c2", Start: 5 * s, End: 9 * s},
		{ID: 3, Client: "c3", Start: 9 * s, End: 9 * s}, // an instant, inside nothing
		{ID: 4, Client: "c1", Start: 7 * s, End: 7 * s}, // an instant inside c2's hold
	}}
	r := Check(h)
	assert.Equal(t, 0, r.MutexViolations)
	assert.Empty(t, r.Violations)
	mutex, resource := r.Safe()
	assert.True(t, mutex)
	assert.True(t, resource)
}

func TestSameClientOverlapIsNoViolation(t *testing.T) {
	h := History{End: 10 * s, Holds: []Hold{
		{ID: 1, Client: "c1", Start: 1 * s, End: 5 * s},
		{ID: 2, Client: "c1", Start: 3 * s, End: 7 * s},
		{ID: 3, Client: "c2", Start: 6 * s, End: 8 * s},
	}}
	r := Check(h)
	assert.Equal(t, 1, r.MutexViolations, "only c1's second hold overlaps c2")
	assert.Equal(t, 1*s, r.MutexOverlapTotal)
	require.Len(t, r.Violations, 1)
	v := r.Violations[0]
	assert.Equal(t, 2, v.A.ID)
	assert.Equal(t, 3, v.B.ID)
	assert.Equal(t, 6*s, v.Start)
	assert.Equal(t, 7*s, v.End)
}

func TestThreeWayOverlapCountsPairs(t *testing.T) {
	h := History{End: 10 * s, Holds: []Hold{
		{ID: 3, Client: "c3", Start: 4 * s, End: 8 * s},
		{ID: 1, Client: "c1", Start: 0, End: 10 * s},
		{ID: 2, Client: "c2", Start: 2 * s, End: 6 * s},
	}}
	r := Check(h)
	assert.Equal(t, 3, r.MutexViolations)
	assert.Equal(t, 4*s+4*s+2*s, r.MutexOverlapTotal)
	assert.Equal(t, 4*s, r.MutexOverlapMax)

	type pair struct {
		a, b       int
		start, end time.Duration
	}
	var got []pair
	for _, v := range r.Violations {
		got = append(got, pair{v.A.ID, v.B.ID, v.Start, v.End})
	}
	assert.Equal(t, []pair{{1, 2, 2 * s, 6 * s}, {1, 3, 4 * s, 8 * s}, {2, 3, 4 * s, 6 * s}}, got)
	assert.Equal(t, "c2 and c3 both held the lock for 2s (c2 from 2s, c3 from 4s)", r.Violations[2].Summary)
}

func TestEqualStartsOrderByID(t *testing.T) {
	h := History{End: 10 * s, Holds: []Hold{
		{ID: 9, Client: "c1", Start: 1 * s, End: 3 * s},
		{ID: 4, Client: "c2", Start: 1 * s, End: 2 * s},
	}}
	r := Check(h)
	require.Len(t, r.Violations, 1)
	assert.Equal(t, 4, r.Violations[0].A.ID, "A is the lower ID when both start together")
	assert.Equal(t, 9, r.Violations[0].B.ID)
	assert.Equal(t, 1*s, r.MutexOverlapTotal)
}

func TestAvailability(t *testing.T) {
	h := History{
		End: 20 * s,
		Holds: []Hold{
			{ID: 1, Client: "c1", Start: 2 * s, End: 5 * s},
			{ID: 2, Client: "c2", Start: 7 * s, End: 9 * s},
		},
		Attempts: []Attempt{
			{Client: "c1", Start: 0, End: 2 * s, OK: true},        // waits [0,2): nobody holds
			{Client: "c2", Start: 1 * s, End: 7 * s, OK: true},    // waits through c1's hold, then [5,7)
			{Client: "c3", Start: 3 * s, End: 4 * s},              // waits only while c1 holds: no outage
			{Client: "c3", Start: 10 * s, End: 14 * s},            // [10,14) and
			{Client: "c1", Start: 12 * s, End: 15 * s},            // [12,15) are one outage [10,15)
			{Client: "c2", Start: 17 * s, End: 17 * s, OK: false}, // an instant: no time
		},
	}
	r := Check(h)
	assert.Equal(t, 6, r.AcquireAttempts)
	assert.Equal(t, 2, r.AcquireSuccesses)
	assert.Equal(t, 4, r.AcquireFailures)
	assert.Equal(t, 2*s, r.AcquireP50, "nearest rank 1 of {2s, 6s}")
	assert.Equal(t, 6*s, r.AcquireP99, "nearest rank 2 of {2s, 6s}")
	assert.Equal(t, 2*s+2*s+5*s, r.Unavailable)
	assert.Equal(t, 5*s, r.LongestOutage)
}

func TestAvailabilityHoldBridgesWaits(t *testing.T) {
	// Two waits separated by a hold are two outages even though the
	// attempt spans both.
	h := History{
		End:      10 * s,
		Holds:    []Hold{{ID: 1, Client: "c1", Start: 3 * s, End: 4 * s}},
		Attempts: []Attempt{{Client: "c2", Start: 0, End: 10 * s}},
	}
	r := Check(h)
	assert.Equal(t, 9*s, r.Unavailable)
	assert.Equal(t, 6*s, r.LongestOutage)
}

func TestPercentilesNearestRank(t *testing.T) {
	var h History
	h.End = 200 * ms
	for i := 100; i >= 1; i-- { // 1ms..100ms, recorded in reverse
		h.Attempts = append(h.Attempts, Attempt{Client: "c", Start: 0, End: time.Duration(i) * ms, OK: true})
	}
	h.Attempts = append(h.Attempts, Attempt{Client: "c", Start: 0, End: 200 * ms}) // failures don't count
	r := Check(h)
	assert.Equal(t, 50*ms, r.AcquireP50)
	assert.Equal(t, 99*ms, r.AcquireP99)

	one := Check(History{End: s, Attempts: []Attempt{{Client: "c", Start: 10 * ms, End: 17 * ms, OK: true}}})
	assert.Equal(t, 7*ms, one.AcquireP50)
	assert.Equal(t, 7*ms, one.AcquireP99)

	none := Check(History{End: s, Attempts: []Attempt{{Client: "c", Start: 10 * ms, End: 17 * ms}}})
	assert.Equal(t, time.Duration(0), none.AcquireP50)
	assert.Equal(t, time.Duration(0), none.AcquireP99)
}

func TestWriteWithoutHoldIsStale(t *testing.T) {
	h := History{
		End: 10 * s,
		Holds: []Hold{
			{ID: 1, Client: "c2", Start: 1 * s, End: 2 * s, Token: 7},
			{ID: 2, Client: "c1", Start: 3 * s, End: 4 * s},
			{ID: 3, Client: "c1", Start: 5 * s, End: 6 * s},
		},
		Writes: []Write{{Client: "c1", At: 8 * s, Element: 5, Accepted: true}},
		Final:  []uint64{5},
	}
	r := Check(h)
	assert.Equal(t, 1, r.StaleWritesAccepted)
	assert.Equal(t, 0, r.LostUpdates)
	require.Len(t, r.Violations, 1)
	v := r.Violations[0]
	assert.Equal(t, StaleWriteAccepted, v.Kind)
	assert.Equal(t, 0, v.A.ID)
	assert.Equal(t, 1, v.B.ID, "B is the latest hold of another client, skipping c1's own")
	assert.Equal(t, 1*s, v.Start)
	assert.Equal(t, 8*s, v.End)
	assert.Equal(t, "c1's write of element 5 at 8s was accepted although c1 held no lock (c2 had acquired it: hold 1, token 7, from 1s)", v.Summary)

	alone := Check(History{End: 10 * s, Writes: []Write{{Client: "c1", At: 8 * s, Element: 5, Accepted: true}}, Final: []uint64{5}})
	require.Len(t, alone.Violations, 1)
	assert.Equal(t, 8*s, alone.Violations[0].Start)
	assert.Equal(t, "c1's write of element 5 at 8s was accepted although c1 held no lock", alone.Violations[0].Summary)
}

func TestStaleNeedsNewerHoldOfOtherClientByTheWrite(t *testing.T) {
	h := History{
		End: 20 * s,
		Holds: []Hold{
			{ID: 1, Client: "c1", Start: 1 * s, End: 3 * s},
			{ID: 2, Client: "c1", Start: 2 * s, End: 9 * s}, // own newer hold: not a reason
			{ID: 3, Client: "c2", Start: 10 * s, End: 11 * s},
		},
		Writes: []Write{
			{Client: "c1", HoldID: 1, At: 9 * s, Element: 1, Accepted: true},  // before c2: fresh
			{Client: "c1", HoldID: 1, At: 10 * s, Element: 2, Accepted: true}, // c2 started at 10s: stale
			{Client: "c1", HoldID: 2, At: 12 * s, Element: 3, Accepted: true}, // stale
			{Client: "c2", HoldID: 3, At: 13 * s, Element: 4, Accepted: true}, // newest: fresh
			{Client: "c1", HoldID: 2, At: 14 * s, Element: 5, Reason: "value mismatch"},
		},
		Reads: []Read{{Client: "c2", HoldID: 3, At: 10 * s}}, // c2 reaches the resource at 10s
		Final: []uint64{1, 2, 3, 4},
	}
	r := Check(h)
	assert.Equal(t, 2, r.StaleWritesAccepted)
	assert.Equal(t, 1, r.StaleWritesRejected)
	assert.Equal(t, 4, r.WritesAccepted)
	assert.Equal(t, 0, r.LostUpdates)
	var elems []uint64
	for _, v := range r.Violations {
		if v.Kind == StaleWriteAccepted {
			elems = append(elems, v.Element)
			assert.Equal(t, 3, v.B.ID)
		}
	}
	assert.Equal(t, []uint64{2, 3}, elems)
}

// A newer holder that never reached the resource cannot be seen there:
// the old holder's write is not stale (the overlap is a mutual-exclusion
// violation instead), and it becomes stale once the newer holder reads.
func TestStaleNeedsTheNewerHoldToHaveReachedTheResource(t *testing.T) {
	h := History{
		End: 20 * s,
		Holds: []Hold{
			{ID: 1, Client: "c1", Start: 1 * s, End: 12 * s, Token: 1},
			{ID: 2, Client: "c2", Start: 3 * s, End: 4 * s}, // gave up before touching the resource
		},
		Writes: []Write{{Client: "c1", HoldID: 1, At: 8 * s, Element: 1, Accepted: true}},
		Final:  []uint64{1},
	}
	r := Check(h)
	assert.Equal(t, 0, r.StaleWritesAccepted)
	assert.Equal(t, 1, r.MutexViolations)

	h.Reads = []Read{{Client: "c2", HoldID: 2, At: 3500 * time.Millisecond}}
	r = Check(h)
	assert.Equal(t, 1, r.StaleWritesAccepted)

	h.Reads[0].At = 8*s + 1 // after the write: too late to make it stale
	h.Holds[1].End = 9 * s
	r = Check(h)
	assert.Equal(t, 0, r.StaleWritesAccepted)
}

func TestLostUpdateWithoutKnownOverwriter(t *testing.T) {
	h := History{
		End:    10 * s,
		Holds:  []Hold{{ID: 1, Client: "c1", Start: 1 * s, End: 5 * s, Token: 3}},
		Writes: []Write{{Client: "c1", HoldID: 1, At: 2 * s, Element: 9, Accepted: true}},
		Log:    []Event{{At: 0, Kind: "start"}, {At: 1 * s, Kind: "acquired"}, {At: 2 * s, Kind: "write"}, {At: 3 * s, Kind: "later"}},
	}
	r := Check(h)
	assert.Equal(t, 1, r.LostUpdates)
	require.Len(t, r.Violations, 1)
	v := r.Violations[0]
	assert.Equal(t, LostUpdate, v.Kind)
	assert.Equal(t, 1, v.A.ID)
	assert.Equal(t, 0, v.B.ID)
	assert.Equal(t, 1*s, v.Start)
	assert.Equal(t, 2*s, v.End)
	assert.Equal(t, h.Log[1:3], v.Excerpt)
	assert.Equal(t, "c1's write of element 9 at 2s (hold 1, token 3, from 1s) was acknowledged but is missing from the final set; no later accepted write by another client is known", v.Summary)
}

func TestLostUpdateOverwriterSkipsSameClient(t *testing.T) {
	h := History{
		End: 10 * s,
		Holds: []Hold{
			{ID: 1, Client: "c1", Start: 1 * s, End: 5 * s},
			{ID: 2, Client: "c2", Start: 6 * s, End: 8 * s},
		},
		Writes: []Write{
			{Client: "c2", HoldID: 2, At: 7 * s, Element: 3, Accepted: true},
			{Client: "c1", HoldID: 1, At: 2 * s, Element: 1, Accepted: true},
			{Client: "c1", HoldID: 1, At: 3 * s, Element: 2, Accepted: true},
			{Client: "c2", HoldID: 0, At: 4 * s, Element: 4}, // rejected: not an overwriter
		},
		Final: []uint64{2, 3},
	}
	r := Check(h)
	assert.Equal(t, 1, r.LostUpdates)
	var v Violation
	for _, x := range r.Violations {
		if x.Kind == LostUpdate {
			v = x
		}
	}
	assert.Equal(t, uint64(1), v.Element)
	assert.Equal(t, 2, v.B.ID, "c1's own next write is not the overwriter")
	assert.Equal(t, 7*s, v.End)
	assert.Equal(t, 1*s, v.Start)
}

func TestExcerptCapping(t *testing.T) {
	var log []Event
	log = append(log, Event{At: 0, Actor: "x", Kind: "before"})
	for i := range 100 { // 100 events in [1s, 1.99s]
		log = append(log, Event{At: 1*s + time.Duration(i)*10*ms, Actor: "c1", Kind: "tick", Text: fmt.Sprint(i)})
	}
	log = append(log, Event{At: 5 * s, Actor: "x", Kind: "after"})
	h := History{
		End: 10 * s,
		Holds: []Hold{
			{ID: 1, Client: "c1", Start: 1 * s, End: 3 * s},
			{ID: 2, Client: "c2", Start: 1*s + 500*ms, End: 2 * s},
		},
		Log: log,
	}
	r := Check(h)
	require.Len(t, r.Violations, 1)
	ex := r.Violations[0].Excerpt
	require.Len(t, ex, MaxExcerpt+1)
	assert.Equal(t, log[1:21], ex[:20], "the first 20 of the window")
	assert.Equal(t, Event{At: 1*s + 200*ms, Kind: "elided", Text: "60 events elided, from 1.2s to 1.79s"}, ex[20])
	assert.Equal(t, log[81:101], ex[21:], "the last 20 of the window")

	// Exactly MaxExcerpt events in the window: none elided.
	h.Holds[0].End = 1*s + 390*ms
	h.Holds[1].Start = 1*s + 100*ms
	r = Check(h)
	require.Len(t, r.Violations, 1)
	assert.Equal(t, log[1:41], r.Violations[0].Excerpt)

	// One more: one elided.
	h.Holds[0].End = 1*s + 400*ms
	r = Check(h)
	require.Len(t, r.Violations, 1)
	ex = r.Violations[0].Excerpt
	require.Len(t, ex, MaxExcerpt+1)
	assert.Equal(t, "1 events elided, from 1.2s to 1.2s", ex[20].Text)
	assert.Equal(t, log[22:42], ex[21:])
}

func TestExcerptDoesNotAliasLog(t *testing.T) {
	h := kleppmann(false)
	r := Check(h)
	r.Violations[0].Excerpt[0].Text = "changed"
	assert.Equal(t, "token 33 validity 9.9s", h.Log[0].Text)
}

func TestCheckDoesNotMutate(t *testing.T) {
	h := kleppmann(false)
	before := kleppmann(false)
	Check(h)
	assert.Equal(t, before, h)
}

func TestValidate(t *testing.T) {
	ok := kleppmann(false)
	require.NoError(t, ok.Validate())

	tests := []struct {
		name   string
		modify func(*History)
		want   string
	}{
		{"zero id", func(h *History) { h.Holds[0].ID = 0 }, "has id 0, want > 0"},
		{"duplicate id", func(h *History) { h.Holds[0].ID = 1 }, "share id 1"},
		{"hold backwards", func(h *History) { h.Holds[0].End = 10 * s }, "spans [11s, 10s]"},
		{"hold past end", func(h *History) { h.Holds[0].End = 31 * s }, "<= 30s"},
		{"attempt backwards", func(h *History) { h.Attempts[0].Start = 2 * s }, "attempt 0 (c1) spans [2s, 1s]"},
		{"negative time", func(h *History) { h.Attempts[1].Start = -1 }, "attempt 1 (c2) spans [-1ns, 11s]"},
		{"write outside", func(h *History) { h.Writes[0].At = 40 * s }, "outside [0, 30s]"},
		{"unknown hold", func(h *History) { h.Writes[0].HoldID = 7 }, "names unknown hold 7"},
		{"other client's hold", func(h *History) { h.Writes[0].HoldID = 1 }, "write 0 by c2 (element 2) names hold 1 of c1"},
		{"log out of order", func(h *History) { h.Log[3].At = 0 }, "log event 3 at 0s comes after event 2 at 3s"},
		{"negative end", func(h *History) { h.End = -s }, "history end -1s is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := kleppmann(false)
			tt.modify(&h)
			err := h.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.PanicsWithValue(t, "check: invalid history: "+err.Error(), func() { Check(h) })
		})
	}
}

func TestViolationKindString(t *testing.T) {
	assert.Equal(t, "mutex-overlap", MutexOverlap.String())
	assert.Equal(t, "stale-write-accepted", StaleWriteAccepted.String())
	assert.Equal(t, "lost-update", LostUpdate.String())
	assert.Equal(t, "ViolationKind(0)", ViolationKind(0).String())
	assert.True(t, strings.HasPrefix(Violation{Kind: LostUpdate, Summary: "x"}.String(), "lost-update: x"))
}

func TestEmptyHistory(t *testing.T) {
	r := Check(History{})
	assert.Equal(t, Report{}, r)
	mutex, resource := r.Safe()
	assert.True(t, mutex)
	assert.True(t, resource)
}
