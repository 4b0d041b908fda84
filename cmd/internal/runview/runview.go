package runview

import (
	"fmt"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/plots/perfetto"
	"github.com/redlocksim/redlocksim/scenarios"
)

// Timeline is a narrated run's timeline as the plot's plain data: the
// lanes with something drawn on them, the spans, marks, messages and
// mutex overlaps.
func Timeline(sc *scenarios.Scenario, res model.Result) plots.Timeline {
	t := plots.Timeline{
		Title: fmt.Sprintf("%s (seed %d)", sc.Name, res.Seed),
		End:   res.End,
	}
	spanKinds := map[model.SpanKind]plots.SpanKind{
		model.SpanHold: plots.SpanHold, model.SpanKey: plots.SpanKey,
		model.SpanPause: plots.SpanPause, model.SpanDown: plots.SpanDown,
	}
	markKinds := map[model.MarkKind]plots.MarkKind{
		model.MarkClock: plots.MarkClock, model.MarkPartition: plots.MarkPartition, model.MarkHeal: plots.MarkHeal,
		model.MarkWrite: plots.MarkWrite, model.MarkReject: plots.MarkReject,
		model.MarkPromotion: plots.MarkPromotion, model.MarkElection: plots.MarkElection,
	}
	for _, s := range res.Timeline.Spans {
		t.Spans = append(t.Spans, plots.Span{Lane: s.Lane, Kind: spanKinds[s.Kind], Start: s.Start, End: s.End, Label: s.Label})
	}
	for _, m := range res.Timeline.Marks {
		t.Marks = append(t.Marks, plots.Mark{Lane: m.Lane, Kind: markKinds[m.Kind], At: m.At, Label: m.Label})
	}
	// Lanes with nothing drawn on them (the resource, usually) only take
	// room.
	used := map[string]bool{}
	for _, s := range t.Spans {
		used[s.Lane] = true
	}
	for _, m := range t.Marks {
		if m.Kind != plots.MarkPartition && m.Kind != plots.MarkHeal { // those cross every lane
			used[m.Lane] = true
		}
	}
	// The run's long messages (a delayed write, a reply held by a
	// partition) are arrows, so their lanes stay (the resource's, for a
	// delayed write); shorter ones are drawn only if a zoomed window makes
	// them long and their lanes are drawn anyway.
	for _, m := range res.Messages {
		t.Messages = append(t.Messages, plots.Message{From: m.From, To: m.To, Sent: m.Sent, At: m.At, Kind: m.Kind})
		if float64(m.At-m.Sent) >= plots.LongMessage*float64(res.End) {
			used[m.From], used[m.To] = true, true
		}
	}
	for _, l := range res.Lanes {
		if used[l] {
			t.Lanes = append(t.Lanes, l)
		}
	}
	for _, v := range res.Report.Violations {
		if v.Kind == check.MutexOverlap {
			t.Overlaps = append(t.Overlaps, plots.Overlap{Start: v.Start, End: v.End, A: v.A.Client, B: v.B.Client})
		}
	}
	return t
}

var spanCats = map[model.SpanKind]string{
	model.SpanHold: "hold", model.SpanKey: "key", model.SpanPause: "pause", model.SpanDown: "down",
}

var markCats = map[model.MarkKind]string{
	model.MarkClock: "clock", model.MarkPartition: "partition", model.MarkHeal: "heal",
	model.MarkWrite: "write", model.MarkReject: "reject",
	model.MarkPromotion: "promotion", model.MarkElection: "election",
}

// Perfetto is a narrated run as the Perfetto exporter's plain data.
func Perfetto(sc *scenarios.Scenario, res model.Result) perfetto.Trace {
	t := perfetto.Trace{Title: fmt.Sprintf("%s (seed %d)", sc.Name, res.Seed), Tracks: res.Lanes}
	for _, s := range res.Timeline.Spans {
		cat := spanCats[s.Kind]
		name := cat
		switch s.Kind {
		case model.SpanHold:
			name = "holds the lock (as believed)"
		case model.SpanKey:
			name = "key " + s.Label
		case model.SpanPause:
			name = "paused"
		case model.SpanDown:
			name = "down"
		}
		var args map[string]string
		if s.Label != "" {
			args = map[string]string{"label": s.Label}
		}
		t.Slices = append(t.Slices, perfetto.Slice{Track: s.Lane, Cat: cat, Name: name, Start: s.Start, End: s.End, Args: args})
	}
	for _, m := range res.Timeline.Marks {
		in := perfetto.Instant{Track: m.Lane, Cat: markCats[m.Kind], Name: m.Label, At: m.At}
		if m.Kind == model.MarkPartition || m.Kind == model.MarkHeal {
			in.Track = "" // they cut every lane
		}
		if in.Name == "" {
			in.Name = in.Cat
		}
		t.Instants = append(t.Instants, in)
	}
	for _, m := range res.Messages {
		t.Messages = append(t.Messages, perfetto.Message{From: m.From, To: m.To, Sent: m.Sent, At: m.At, Kind: m.Kind, Req: m.Req, Reply: m.Reply})
	}
	return t
}
