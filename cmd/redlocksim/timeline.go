package main

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
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

// drawTimeline draws the run's timeline to path; a positive to zooms into
// [from, to].
func drawTimeline(path string, sc *scenarios.Scenario, res model.Result, from, to time.Duration) error {
	t := timelineOf(sc, res)
	if from != 0 || to != 0 {
		t.From, t.To = from, cmp.Or(to, res.End)
	}
	if strings.EqualFold(filepath.Ext(path), ".svg") {
		// The SVG the report inlines: the same figure, with a hover title
		// over every bar, mark and arrow saying what it is and when.
		svg, err := plots.TimelineSVG(t)
		if err != nil {
			return fmt.Errorf("drawing the timeline: %w", err)
		}
		_, err = atomicfile.Write(path, svg)
		return err
	}
	p, err := plots.TimelinePlot(t)
	if err != nil {
		return fmt.Errorf("drawing the timeline: %w", err)
	}
	w, h := plots.TimelineSize(t)
	return saveFigure(p, path, w, h)
}
