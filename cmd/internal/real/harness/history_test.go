package harness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/resource"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	simres "github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/model/story"
)

// A real run's history comes out of the same check.Recorder as the
// simulator's, and its log speaks model/story's words: every kind is one
// story tells, and every line is its sentence.
func TestHistorySpeaksTheStorysWords(t *testing.T) {
	const ms = time.Millisecond
	res, err := resource.Listen(simres.Config{Mode: simres.Unprotected}, "127.0.0.1:0", time.Now())
	require.NoError(t, err)
	defer res.Close()
	cfg := model.Config{Duration: time.Second}
	r := &run{cfg: &cfg, res: res, clients: []*clientProc{
		{name: "c1", evs: []Event{
			{At: 10 * ms, Kind: EvAttempt},
			{At: 20 * ms, Kind: EvAttemptEnd, OK: true, Lock: 1<<40 | 1},
			{At: 20 * ms, Kind: EvHold, Lock: 1<<40 | 1, Until: 520 * ms, Text: "n1,n2"},
			{At: 30 * ms, Kind: EvNote, Text: "freezes itself (SIGSTOP) with its lock requests on the wire"},
			{At: 600 * ms, Kind: EvHoldEnd, Lock: 1<<40 | 1, Text: "validity ran out"},
		}},
		{name: "c2", evs: []Event{
			{At: 15 * ms, Kind: EvAttempt},
			{At: 40 * ms, Kind: EvAttemptEnd, Text: "1 of 3 nodes said OK, need 2"},
			{At: 1200 * ms, Kind: EvAttempt}, // reported after the planned end
		}},
	}}
	r.t0 = time.Now().Add(-50 * ms)
	r.tell("c1", story.Pause{Why: "GC, SIGSTOP", For: story.Text(200 * ms)})
	r.tell("n3", story.Crash{})

	h := r.history()
	require.NoError(t, h.Validate())
	assert.Equal(t, 1200*ms, h.End, "the latest report ends the history")
	require.Len(t, h.Holds, 1)
	assert.Equal(t, 20*ms, h.Holds[0].Start)
	assert.Equal(t, 600*ms, h.Holds[0].End)
	assert.Len(t, h.Attempts, 3)
	assert.Equal(t, h.End, h.Attempts[2].End, "the open attempt closes at the end")
	var kinds []string
	for _, e := range h.Log {
		assert.True(t, story.Told(e.Kind), "kind %q has no sentence in model/story", e.Kind)
		kinds = append(kinds, e.Kind)
	}
	assert.Equal(t, []string{story.Acquires, story.Note, story.TryFails, story.Pauses, story.Crashes, story.LetsGo}, kinds)
	texts := map[string]string{}
	for _, e := range h.Log {
		texts[e.Kind] = e.Text
	}
	assert.Equal(t, "c1 acquires the lock on n1,n2 (validity 500ms, value c1#1)", texts[story.Acquires])
	assert.Equal(t, "c2 fails to acquire: 1 of 3 nodes said OK, need 2", texts[story.TryFails])
	assert.Equal(t, "c1 stops believing it holds the lock: validity ran out", texts[story.LetsGo])
	assert.Equal(t, "c1 pauses (GC, SIGSTOP) for 200ms", texts[story.Pauses])
	assert.Equal(t, "n3 crashes", texts[story.Crashes])
}

// A renewal round's event is told as the model tells the same round:
// the watchdog renews or stops silently, auto-extend extends or aborts.
func TestHistoryTellsRenewalsInTheModelsWords(t *testing.T) {
	const ms = time.Millisecond
	res, err := resource.Listen(simres.Config{Mode: simres.Unprotected}, "127.0.0.1:0", time.Now())
	require.NoError(t, err)
	defer res.Close()
	lock := uint64(1<<40 | 1)
	for _, tc := range []struct {
		renewal client.Renewal
		evs     []Event
		want    []string
	}{
		{client.Watchdog, []Event{
			{At: 20 * ms, Kind: EvHold, Lock: lock, Until: -1, Text: "n1"},
			{At: 353 * ms, Kind: EvExtend, OK: true, Lock: lock, N: 1, Until: -1, Text: "1"},
			{At: 686 * ms, Kind: EvExtend, Lock: lock, N: 2, Until: -1, Text: "0"},
		}, []string{
			"c1 acquires the lock on n1 (validity until it unlocks, value c1#1)",
			"c1 renews the lock to its full TTL of 1s (the watchdog)",
			"c1 stops renewing the lock: the renewal failed (0 nodes agreed), and nothing tells the application",
		}},
		{client.AutoExtend, []Event{
			{At: 20 * ms, Kind: EvHold, Lock: lock, Until: 1020 * ms, Text: "n1"},
			{At: 920 * ms, Kind: EvExtend, OK: true, Lock: lock, N: 1, Until: 1920 * ms, Text: "1"},
			{At: 1830 * ms, Kind: EvAbort, Lock: lock, Text: "extension failed (0 nodes agreed)"},
		}, []string{
			"c1 acquires the lock on n1 (validity 1s, value c1#1)",
			"c1 extends the lock (extension 1, validity 1s)",
			"c1 aborts its work: extension failed (0 nodes agreed)",
		}},
	} {
		cfg := model.Config{Duration: 3 * time.Second}
		cfg.Lock.TTL, cfg.Lock.Renewal = time.Second, tc.renewal
		r := &run{cfg: &cfg, res: res, clients: []*clientProc{{name: "c1", evs: tc.evs}}}
		var got []string
		for _, e := range r.history().Log {
			assert.True(t, story.Told(e.Kind), "kind %q has no sentence in model/story", e.Kind)
			got = append(got, e.Text)
		}
		assert.Equal(t, tc.want, got, tc.renewal.String())
	}
}
