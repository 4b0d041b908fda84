package lab

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/scenarios"
)

// What one answer carries at most of each list: a library scenario has a
// few hundred of each; a long run (baseline's minute) a few thousand; a
// file asking for hours is cut, and says so.
const (
	maxItems = 20000
)

// viewJSON is one run as the page draws it. Times are nanoseconds of true
// time since the run's start.
type viewJSON struct {
	Scenario string          `json:"scenario"`
	Seed     uint64          `json:"seed"`
	Sets     []string        `json:"sets"`
	File     string          `json:"file"`
	Run      json.RawMessage `json:"run"` // `redlocksim run FILE --json --trace` of the downloaded file
	End      int64           `json:"end"`
	Lanes    []laneJSON      `json:"lanes"`
	Spans    []spanJSON      `json:"spans"`
	Marks    []markJSON      `json:"marks"`
	Downs    []downJSON      `json:"downs"`
	Overlaps []overlapJSON   `json:"overlaps"`
	Messages []messageJSON   `json:"messages"`
	Trace    []traceJSON     `json:"trace"`
	Knobs    []knobJSON      `json:"knobs"`
	// Faults is how many faults the run has: a challenge's count of the
	// adversary's actions.
	Faults int    `json:"faults"`
	Cut    string `json:"cut,omitempty"` // what was left out, if anything
}

type laneJSON struct {
	Name string `json:"name"`
	Role string `json:"role"` // client, node, resource, store, sentinel
	// Clock is the lane's wall clock sampled as [true, local] pairs, in
	// order of true time, where its rate or offset changes and at each of
	// its events; between two samples it runs straight. Empty for a lane
	// without a clock of its own.
	Clock [][2]int64 `json:"clock,omitempty"`
}

type spanJSON struct {
	Lane  string `json:"lane"`
	Kind  string `json:"kind"` // hold, key, pause, down
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Label string `json:"label,omitempty"`
}

type markJSON struct {
	Lane  string `json:"lane"`
	Kind  string `json:"kind"` // clock, partition, heal, write, reject
	At    int64  `json:"at"`
	Label string `json:"label,omitempty"`
}

// downJSON is a crash or a power loss of a node: when, what it held, and
// which of those keys it no longer had when it started again.
type downJSON struct {
	Lane      string   `json:"lane"`
	Kind      string   `json:"kind"` // crash, power-loss
	At        int64    `json:"at"`
	Restart   int64    `json:"restart"` // -1: never within the run
	Held      []string `json:"held"`
	Lost      []string `json:"lost"`
	Reloaded  []string `json:"reloaded"`
	Narration string   `json:"narration"`
}

type overlapJSON struct {
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	A     string `json:"a"`
	B     string `json:"b"`
}

type messageJSON struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Sent  int64  `json:"sent"`
	At    int64  `json:"at"`
	Kind  string `json:"kind"`
	Req   uint64 `json:"req,omitempty"`
	Reply bool   `json:"reply,omitempty"`
}

type traceJSON struct {
	At    int64  `json:"at"`
	Actor string `json:"actor"`
	Local string `json:"local,omitempty"` // the actor's own wall clock, as the trace prints it
	Text  string `json:"text"`
}

var spanKinds = map[model.SpanKind]string{model.SpanHold: "hold", model.SpanKey: "key", model.SpanPause: "pause", model.SpanDown: "down"}

var markKinds = map[model.MarkKind]string{
	model.MarkClock: "clock", model.MarkPartition: "partition", model.MarkHeal: "heal",
	model.MarkWrite: "write", model.MarkReject: "reject",
}

// view runs l narrated and turns the run into what the page draws.
func (s *Server) view(l *loaded) (*viewJSON, error) {
	res, err := l.sc.Plan.RunTracedWithin(l.seed, s.opts.MaxEvents)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.sc.Name, err)
	}
	runOut, err := s.opts.RunJSON(l.file, l.data, l.sc, res)
	if err != nil {
		return nil, err
	}
	v := &viewJSON{
		Scenario: l.sc.Name, Seed: l.seed, Sets: slices.Clone(l.sets), File: l.file,
		Run: runOut, End: int64(res.End),
		Spans: []spanJSON{}, Marks: []markJSON{}, Downs: []downJSON{}, Overlaps: []overlapJSON{},
		Messages: []messageJSON{}, Trace: []traceJSON{},
	}
	if v.Sets == nil {
		v.Sets = []string{}
	}
	var cut []string
	take := func(what string, n int) int {
		if n > maxItems {
			cut = append(cut, fmt.Sprintf("%d of %d %s", maxItems, n, what))
			return maxItems
		}
		return n
	}
	for _, sp := range res.Timeline.Spans[:take("bars", len(res.Timeline.Spans))] {
		v.Spans = append(v.Spans, spanJSON{Lane: sp.Lane, Kind: spanKinds[sp.Kind], Start: int64(sp.Start), End: int64(sp.End), Label: sp.Label})
	}
	for _, m := range res.Timeline.Marks[:take("marks", len(res.Timeline.Marks))] {
		v.Marks = append(v.Marks, markJSON{Lane: m.Lane, Kind: markKinds[m.Kind], At: int64(m.At), Label: m.Label})
	}
	for _, m := range res.Messages[:take("messages", len(res.Messages))] {
		v.Messages = append(v.Messages, messageJSON{From: m.From, To: m.To, Sent: int64(m.Sent), At: int64(m.At), Kind: m.Kind, Req: m.Req, Reply: m.Reply})
	}
	for _, vi := range res.Report.Violations {
		if vi.Kind == check.MutexOverlap {
			v.Overlaps = append(v.Overlaps, overlapJSON{Start: int64(vi.Start), End: int64(vi.End), A: vi.A.Client, B: vi.B.Client})
		}
	}
	v.Downs = downs(res)
	v.Trace = trace(res)
	if n := len(v.Trace); n > maxItems {
		cut = append(cut, fmt.Sprintf("%d of %d trace lines", maxItems, n))
		v.Trace = v.Trace[:maxItems]
	}
	v.Lanes = lanes(l.sc, res)
	v.Knobs = knobs(l.sc)
	v.Faults = len(l.sc.Config.Faults)
	if len(cut) > 0 {
		v.Cut = "the page shows " + strings.Join(cut, ", ") + "; zoom in with redlocksim run --timeline --from --to"
	}
	return v, nil
}

// trace is the narrated trace as `run --trace` prints it, a line per
// record that has a sentence (dropped messages left out, as run does
// without --drops), with the actor's own wall clock.
func trace(res model.Result) []traceJSON {
	out := []traceJSON{}
	for _, r := range res.Trace {
		if r.Kind == story.Drop {
			continue
		}
		text := story.Sentence(r)
		if text == "" {
			continue
		}
		t := traceJSON{At: int64(r.At), Actor: r.Actor, Text: text}
		if p, ok := res.Clocks[r.Actor]; ok && p != nil {
			t.Local = story.Seconds(p.Wall.Local(r.At))
		}
		out = append(out, t)
	}
	return out
}

// lanes are the run's actors in display order, each with its clock
// sampled wherever it can bend: at its clock marks (a step is sampled a
// nanosecond before and at the step), at each of its records, and on a
// grid of 200 points, so that the page reads a lane's clock at the cursor
// within a microsecond of the exact value for any drift the library has.
func lanes(sc *scenarios.Scenario, res model.Result) []laneJSON {
	at := map[string][]time.Duration{}
	for _, r := range res.Trace {
		at[r.Actor] = append(at[r.Actor], r.At)
	}
	for _, m := range res.Timeline.Marks {
		if m.Kind == model.MarkClock {
			at[m.Lane] = append(at[m.Lane], max(m.At-1, 0), m.At)
		}
	}
	roles := map[string]string{"resource": "resource", "store": "store", "sentinel": "sentinel"}
	for _, c := range sc.Config.Clients {
		roles[c.Name] = "client"
	}
	for _, n := range sc.Config.Nodes {
		roles[n.Name] = "node"
	}
	var out []laneJSON
	for _, name := range res.Lanes {
		l := laneJSON{Name: name, Role: roles[name]}
		if p, ok := res.Clocks[name]; ok && p != nil {
			ts := append(at[name], 0, res.End)
			for i := range 200 {
				ts = append(ts, res.End*time.Duration(i)/200)
			}
			slices.Sort(ts)
			ts = slices.Compact(ts)
			for _, t := range ts {
				if t >= 0 && t <= res.End {
					l.Clock = append(l.Clock, [2]int64{int64(t), int64(p.Wall.Local(t))})
				}
			}
		}
		out = append(out, l)
	}
	return out
}

// downs are the run's crashes and power losses, each with the keys the
// node held when it went down and those it had lost when it started again
// (the timeline closes a node's key span at its crash; the start record
// lists what it reloaded).
func downs(res model.Result) []downJSON {
	out := []downJSON{}
	open := map[string]int{} // lane → its down in out, until it starts
	for _, r := range res.Trace {
		switch r.Kind {
		case story.Crashes, story.LosesPower:
			d := downJSON{Lane: r.Actor, Kind: "crash", At: int64(r.At), Restart: -1, Held: []string{}, Lost: []string{}, Reloaded: []string{}, Narration: story.Sentence(r)}
			if r.Kind == story.LosesPower {
				d.Kind = "power-loss"
			}
			for _, sp := range res.Timeline.Spans {
				if sp.Kind == model.SpanKey && sp.Lane == r.Actor && sp.End == r.At && sp.Start < r.At {
					d.Held = append(d.Held, sp.Label)
				}
			}
			d.Lost = slices.Clone(d.Held)
			open[r.Actor] = len(out)
			out = append(out, d)
		case story.Starts:
			i, ok := open[r.Actor]
			if !ok {
				continue
			}
			delete(open, r.Actor)
			d := &out[i]
			d.Restart = int64(r.At)
			reloaded := ""
			if f, ok := story.Decode(r); ok {
				reloaded = f.(story.Start).Reloaded
			}
			for _, sp := range res.Timeline.Spans {
				if sp.Kind == model.SpanKey && sp.Lane == r.Actor && sp.Start == r.At && reloaded != "" {
					d.Reloaded = append(d.Reloaded, sp.Label)
				}
			}
			d.Lost = slices.DeleteFunc(d.Lost, func(k string) bool { return slices.Contains(d.Reloaded, k) })
		}
	}
	return out
}
