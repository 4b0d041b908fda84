package main

import (
	"fmt"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/plots/perfetto"
	"github.com/redlocksim/redlocksim/scenarios"
)

var spanCats = map[model.SpanKind]string{
	model.SpanHold: "hold", model.SpanKey: "key", model.SpanPause: "pause", model.SpanDown: "down",
}

var markCats = map[model.MarkKind]string{
	model.MarkClock: "clock", model.MarkPartition: "partition", model.MarkHeal: "heal",
	model.MarkWrite: "write", model.MarkReject: "reject",
	model.MarkPromotion: "promotion", model.MarkElection: "election",
}

// perfettoOf turns a narrated run into the exporter's plain data.
func perfettoOf(sc *scenarios.Scenario, res model.Result) perfetto.Trace {
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

func writePerfetto(path string, sc *scenarios.Scenario, res model.Result) error {
	data, err := perfetto.Encode(perfettoOf(sc, res))
	if err != nil {
		return err
	}
	_, err = atomicfile.Write(path, data)
	return err
}
