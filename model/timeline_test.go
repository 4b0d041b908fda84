package model_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/sim"
)

// withMoreFaults is cfg with the faults the library does not use added:
// elections (two overlapping, one under a paused store, one past the end),
// slews, rate changes, steps back, power loss, crashes without restart,
// with an instant restart and past the end, an isolate partition.
func withMoreFaults(cfg model.Config) model.Config {
	cl := cfg.Clients[0].Name
	cfg.Faults = append(slices.Clone(cfg.Faults),
		model.Fault{At: 2100 * time.Millisecond, Kind: model.ClockRate, Target: cl, PPM: -300.5},
		model.Fault{At: 2200 * time.Millisecond, Kind: model.ClockStep, Target: cl, By: -700 * time.Millisecond},
	)
	if len(cfg.Nodes) > 0 {
		node := cfg.Nodes[0].Name
		last := cfg.Nodes[len(cfg.Nodes)-1].Name
		cfg.Faults = append(cfg.Faults,
			model.Fault{At: 1100 * time.Millisecond, Kind: model.ClockSlew, Target: node, By: 2 * time.Second, MaxPPM: 500},
			model.Fault{At: 3300 * time.Millisecond, Kind: model.PowerLoss, Target: node, For: time.Second},
			model.Fault{At: 5500 * time.Millisecond, Kind: model.Crash, Target: last, NoRestart: true},
			model.Fault{At: 6 * time.Second, Kind: model.Partition, Partition: network.PartitionIsolate, Target: node},
			model.Fault{At: 6 * time.Second, Kind: model.Heal},
			model.Fault{At: 7 * time.Second, Kind: model.Crash, Target: node, For: 0},
			model.Fault{At: cfg.Duration - time.Second, Kind: model.Crash, Target: node, For: 5 * time.Second},
		)
	}
	if cfg.Lock.Algorithm == client.Lease {
		cfg.Faults = append(cfg.Faults,
			model.Fault{At: 4 * time.Second, Kind: model.Pause, Target: "store", For: 2 * time.Second},
			model.Fault{At: 4500 * time.Millisecond, Kind: model.Election, For: 3 * time.Second},
			model.Fault{At: 5 * time.Second, Kind: model.Election, For: time.Second},
			model.Fault{At: cfg.Duration - time.Second, Kind: model.Election, For: 3 * time.Second},
		)
	}
	return cfg
}

// TestTimelineFromRecords: the timeline every library scenario draws from
// its records (and each with more faults, and several seeds) agrees with
// the history the checker judged and with the records it came from.
func TestTimelineFromRecords(t *testing.T) {
	for _, name := range scenarios.LibraryNames() {
		s, err := scenarios.LoadLibrary(name)
		require.NoError(t, err)
		more := withMoreFaults(s.Config)
		mp, err := model.Compile(&more)
		require.NoError(t, err, name)
		for _, p := range []*model.Plan{s.Plan, mp} {
			for _, seed := range []uint64{s.Seed, 2, 3} {
				r := p.RunTraced(seed)
				checkTimeline(t, fmt.Sprintf("%s seed %d (%d faults)", name, seed, len(p.Config().Faults)), r)
			}
		}
		fast := s.Plan.RunFast(s.Seed)
		assert.Empty(t, fast.Timeline.Spans, "%s: a run without narration has no records and no timeline", name)
		assert.Empty(t, fast.Timeline.Marks, name)
	}
}

func checkTimeline(t *testing.T, what string, r model.Result) {
	t.Helper()
	tl := r.Timeline
	require.NotEmpty(t, tl.Spans, what)
	require.True(t, slices.IsSortedFunc(tl.Spans, func(a, b model.Span) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Lane, b.Lane), cmp.Compare(a.Kind, b.Kind))
	}), "%s: spans out of order", what)
	require.True(t, slices.IsSortedFunc(tl.Marks, func(a, b model.Mark) int { return cmp.Compare(a.At, b.At) }), "%s: marks out of order", what)

	// Each hold span is a hold of the history, with its token when the
	// hold had one by its end.
	type hold struct {
		client     string
		start, end time.Duration
	}
	var want, got []hold
	tokens := map[hold]uint64{}
	for _, h := range r.History.Holds {
		k := hold{h.Client, h.Start, h.End}
		want = append(want, k)
		tokens[k] = h.Token
	}
	keyEnd := map[string]time.Duration{}
	count := map[model.SpanKind]int{}
	for _, s := range tl.Spans {
		require.True(t, 0 <= s.Start && s.Start <= s.End && s.End <= r.End, "%s: span %+v outside [0, %v]", what, s, r.End)
		count[s.Kind]++
		switch s.Kind {
		case model.SpanHold:
			k := hold{s.Lane, s.Start, s.End}
			got = append(got, k)
			if s.Label != "" {
				assert.Equal(t, fmt.Sprintf("token %d", tokens[k]), s.Label, "%s: hold %+v", what, s)
			}
		case model.SpanKey:
			// One lock key per node: a lane's key spans never overlap.
			require.GreaterOrEqual(t, s.Start, keyEnd[s.Lane], "%s: key spans overlap on %s at %v", what, s.Lane, s.Start)
			keyEnd[s.Lane] = s.End
			require.NotEmpty(t, s.Label, what)
		}
	}
	byStart := func(a, b hold) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.client, b.client), cmp.Compare(a.end, b.end))
	}
	slices.SortFunc(want, byStart)
	slices.SortFunc(got, byStart)
	require.Equal(t, want, got, "%s: hold spans against the history's holds", what)

	// Each write mark is a write of the history, accepted or rejected.
	type write struct {
		client string
		at     time.Duration
		ok     bool
	}
	var wantW, gotW []write
	for _, w := range r.History.Writes {
		wantW = append(wantW, write{w.Client, w.At, w.Accepted})
	}
	var clockMarks, netMarks int
	for _, m := range tl.Marks {
		require.True(t, 0 <= m.At && m.At <= r.End, "%s: mark %+v outside [0, %v]", what, m, r.End)
		switch m.Kind {
		case model.MarkWrite, model.MarkReject:
			gotW = append(gotW, write{m.Lane, m.At, m.Kind == model.MarkWrite})
		case model.MarkClock:
			clockMarks++
		case model.MarkPartition, model.MarkHeal:
			netMarks++
			require.Equal(t, "net", m.Lane, what)
		}
	}
	require.ElementsMatch(t, wantW, gotW, "%s: write marks against the history's writes", what)

	// Each pause, crash, election and clock or network fault record gives
	// its one span or mark.
	var pauses, downs, clocks, nets int
	for _, rec := range r.Trace {
		switch rec.Kind {
		case story.Pauses:
			pauses++
		case story.Crashes, story.LosesPower, story.Election:
			downs++
		case story.ClockStep, story.ClockSlew, story.ClockRate:
			clocks++
		case story.Partition, story.Heal:
			nets++
		}
	}
	assert.Equal(t, pauses, count[model.SpanPause], "%s: pause spans", what)
	assert.Equal(t, downs, count[model.SpanDown], "%s: down spans", what)
	assert.Equal(t, clocks, clockMarks, "%s: clock marks", what)
	assert.Equal(t, nets, netMarks, "%s: network marks", what)
}

// TestTimelineOfEnds pins what is open when the records end: a hold and
// the keys end at the run's end, keys in lane order; a crash with no
// restart and an election that outlasts the run end there too.
func TestTimelineOfEnds(t *testing.T) {
	sec := func(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }
	rec := func(at float64, actor, kind string, f ...sim.Field) sim.Record {
		return sim.Record{At: sec(at), Actor: actor, Kind: kind, Fields: f}
	}
	v1, v2 := uint64(1<<40|1), uint64(2<<40|1)
	recs := []sim.Record{
		rec(1, "c1", story.Acquires, sim.F("value", fmt.Sprintf("%#x", v1)), sim.F("token", 0)),
		rec(1, "n2", story.Sets, sim.F("key", "lock"), sim.F("value", v1)),
		rec(1, "n1", story.Sets, sim.F("key", "lock"), sim.F("value", v1)),
		rec(1.5, "c1", story.GetsToken, sim.F("token", 7)),
		rec(2, "n3", story.Sets, sim.F("key", "lock"), sim.F("value", v2)),
		rec(3, "n3", story.Crashes, sim.F("restart", "never")),
		rec(4, "store", story.Election, sim.F("for", sec(60))),
		rec(5, "n1", story.Overwrites, sim.F("key", "lock"), sim.F("value", v1)),
		rec(5, "n1", story.Sets, sim.F("key", "lock"), sim.F("value", v2)),
		rec(6, "n2", story.LosesPower, sim.F("restart-in", sec(1))),
		rec(7, "n2", story.Starts, sim.F("role", "master"), sim.F("keys", 1), sim.F("persistence", "aof-always"), sim.F("reloaded", v1)),
	}
	tl := model.TimelineOf(recs, sec(10))
	assert.Equal(t, []model.Span{
		{Lane: "c1", Kind: model.SpanHold, Start: sec(1), End: sec(10), Label: "token 7"},
		{Lane: "n1", Kind: model.SpanKey, Start: sec(1), End: sec(5), Label: check.ElementName(v1)},
		{Lane: "n2", Kind: model.SpanKey, Start: sec(1), End: sec(6), Label: check.ElementName(v1)},
		{Lane: "n3", Kind: model.SpanKey, Start: sec(2), End: sec(3), Label: check.ElementName(v2)},
		{Lane: "n3", Kind: model.SpanDown, Start: sec(3), End: sec(10), Label: "crashed"},
		{Lane: "store", Kind: model.SpanDown, Start: sec(4), End: sec(10), Label: "election"},
		{Lane: "n1", Kind: model.SpanKey, Start: sec(5), End: sec(10), Label: check.ElementName(v2)},
		{Lane: "n2", Kind: model.SpanDown, Start: sec(6), End: sec(7), Label: "power lost"},
		{Lane: "n2", Kind: model.SpanKey, Start: sec(7), End: sec(10), Label: check.ElementName(v1)},
	}, tl.Spans)
	assert.Empty(t, tl.Marks)
	assert.Empty(t, model.TimelineOf(nil, sec(10)).Spans)
}
