package main

import (
	"cmp"
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/scenarios"
)

// timelineOf turns a narrated run's timeline into the plot's plain data.
func timelineOf(sc *scenarios.Scenario, res model.Result) plots.Timeline {
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

// drawTimeline draws the run's timeline to path; a positive to zooms into
// [from, to].
func drawTimeline(path string, sc *scenarios.Scenario, res model.Result, from, to time.Duration) error {
	t := timelineOf(sc, res)
	if from != 0 || to != 0 {
		t.From, t.To = from, cmp.Or(to, res.End)
	}
	p, err := plots.TimelinePlot(t)
	if err != nil {
		return fmt.Errorf("drawing the timeline: %w", err)
	}
	w, h := plots.TimelineSize(t)
	return saveFigure(p, path, w, h)
}
