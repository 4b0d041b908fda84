package check

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Recorder's rules: a want spans the retries up to the hold, a hold is
// named by its lock value, and what is open at the end closes there.
func TestRecorderBuildsTheHistory(t *testing.T) {
	const ms = time.Millisecond
	var r Recorder
	c1, c2 := r.Client("c1"), r.Client("c2")
	r.AttemptStart(c1, 0)
	r.AttemptEnd(c1, 10*ms, false)
	r.AttemptStart(c1, 20*ms)
	r.AttemptEnd(c1, 30*ms, true)
	id := r.HoldStart(c1, 30*ms, 0xa, 0)
	r.Token(r.HoldOf(0xa), 7, 35*ms)
	r.AttemptStart(c2, 40*ms) // never gets it: open at the end
	r.Read(Read{Client: "c1", HoldID: r.HoldID("c1", 0xa), At: 50 * ms})
	r.Write(Write{Client: "c2", HoldID: r.HoldID("c2", 0xa), At: 60 * ms, Element: 1, Accepted: true})
	r.Log(Event{At: 70 * ms, Kind: "b"}, Event{At: 5 * ms, Kind: "a"}, Event{At: 70 * ms, Kind: "c"})
	r.HoldEnd(c1, 80*ms)
	r.HoldEnd(c1, 90*ms) // nothing open: ignored
	h := r.Finish(100*ms, []uint64{1})

	require.NoError(t, h.Validate())
	assert.Equal(t, 1, id)
	assert.Equal(t, 100*ms, h.End)
	assert.Equal(t, []Hold{{ID: 1, Client: "c1", Start: 30 * ms, End: 80 * ms, Token: 7, Lock: 0xa}}, h.Holds)
	assert.Equal(t, []Attempt{
		{Client: "c1", Start: 0, End: 10 * ms},
		{Client: "c1", Start: 20 * ms, End: 30 * ms, OK: true},
		{Client: "c2", Start: 40 * ms, End: 100 * ms},
	}, h.Attempts)
	assert.Equal(t, []Attempt{
		{Client: "c1", Start: 0, End: 30 * ms, OK: true},
		{Client: "c2", Start: 40 * ms, End: 100 * ms},
	}, h.Wants)
	assert.Equal(t, 1, h.Reads[0].HoldID)
	assert.Zero(t, h.Writes[0].HoldID, "c2 never held c1's lock value")
	assert.Equal(t, []string{"a", "b", "c"}, []string{h.Log[0].Kind, h.Log[1].Kind, h.Log[2].Kind}, "sorted by time, stable at one time")
	assert.Equal(t, []uint64{1}, h.Final)
}

// A real run's processes may report past its planned end: the history
// then ends at the latest time recorded.
func TestRecorderEndsAtTheLatestTime(t *testing.T) {
	var r Recorder
	c := r.Client("c1")
	r.HoldStart(c, 2*time.Second, 1, 0)
	h := r.Finish(time.Second, nil)
	assert.Equal(t, 2*time.Second, h.End)
	assert.Equal(t, 2*time.Second, h.Holds[0].End)
	require.NoError(t, h.Validate())
}

// One feed, both sinks: the same observations through a History Recorder
// (then Check) and through a Judge-fed one give the same counts, an open
// attempt closed at the end included.
func TestRecorderSinksAgree(t *testing.T) {
	const ms = time.Millisecond
	feed := func(r *Recorder, lost func()) {
		c1, c2 := r.Client("c1"), r.Client("c2")
		r.AttemptStart(c1, 0)
		r.AttemptEnd(c1, 5*ms, true)
		h1 := r.HoldStart(c1, 5*ms, 0xa, 0)
		r.Token(h1, 33, 6*ms)
		r.Read(Read{Client: "c1", HoldID: h1, At: 7 * ms})
		r.AttemptStart(c2, 10*ms)
		r.AttemptEnd(c2, 20*ms, true)
		h2 := r.HoldStart(c2, 20*ms, 0xb, 34) // overlaps c1's
		r.Read(Read{Client: "c2", HoldID: h2, At: 21 * ms})
		r.Write(Write{Client: "c2", HoldID: h2, At: 25 * ms, Element: 2, Accepted: true})
		r.HoldEnd(c2, 26*ms)
		r.Write(Write{Client: "c1", HoldID: h1, At: 30 * ms, Element: 1, Accepted: true}) // stale
		lost()                                                                            // it overwrote c2's element 2
		r.HoldEnd(c1, 31*ms)
		r.AttemptStart(c2, 40*ms) // still open at the end
	}
	var kept Recorder
	feed(&kept, func() {})
	want := Check(kept.Finish(50*ms, []uint64{1}))
	judged := NewJudged(NewJudge(0))
	// The Judge learns the loss from the resource; a History from Final.
	feed(judged, func() { judged.judge.Dropped(30*ms, []uint64{2}) })
	got := judged.Judged(50 * ms)
	counts := func(r Report) []any {
		return []any{r.MutexViolations, r.MutexOverlapTotal, r.LostUpdates, r.StaleWritesAccepted, r.WritesAccepted,
			r.AcquireAttempts, r.AcquireSuccesses, r.AcquireFailures, r.AcquireP50, r.Unavailable, r.LongestOutage}
	}
	assert.Equal(t, counts(want), counts(got))
	assert.Equal(t, 1, want.MutexViolations)
	assert.Equal(t, 1, want.LostUpdates)
	assert.Equal(t, 3, want.AcquireAttempts)
	assert.Zero(t, judged.HoldOf(0xa), "a Judge-fed Recorder names no hold by its value")
}
