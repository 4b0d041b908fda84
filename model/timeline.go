package model

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/sim"
)

// SpanKind is what a timeline span shows.
type SpanKind uint8

const (
	_         SpanKind = iota
	SpanHold           // a client believes it holds the lock
	SpanKey            // a node holds the lock key
	SpanPause          // a process is frozen
	SpanDown           // a node is crashed (or the store has no leader)
)

// MarkKind is what a timeline instant shows.
type MarkKind uint8

const (
	_             MarkKind = iota
	MarkClock              // a clock step, slew or rate change
	MarkPartition          // a partition or cut begins
	MarkHeal               // the network heals
	MarkWrite              // the resource accepted a write
	MarkReject             // the resource rejected a write
	MarkPromotion          // a replica is promoted to master
	MarkElection           // the consensus store has a leader again
)

// Span is an interval on one lane of the timeline, in true time.
type Span struct {
	Lane       string
	Kind       SpanKind
	Start, End time.Duration
	Label      string
}

// Mark is an instant on one lane.
type Mark struct {
	Lane  string
	Kind  MarkKind
	At    time.Duration
	Label string
}

// Timeline is the data of a space-time diagram: what each client believed,
// each node's lock key, pauses, crashes, partitions, clock steps, and the
// promotions and elections that move the lock. It is drawn from a narrated
// run's records (TimelineOf).
type Timeline struct {
	Spans []Span
	Marks []Mark
}

func (t *Timeline) sort() {
	slices.SortStableFunc(t.Spans, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Lane, b.Lane), cmp.Compare(a.Kind, b.Kind))
	})
	slices.SortStableFunc(t.Marks, func(a, b Mark) int { return cmp.Compare(a.At, b.At) })
}

// TimelineOf draws the timeline from a narrated run's records alone, the
// same records the trace prints and the violation excerpts are cut from:
// each fact the timeline shows is a field of a record (see the kinds in
// package story). end is the run's end: what is still open then (a hold,
// a key) ends there, and a down span ends there at the latest. An empty
// record stream (a run without narration) gives an empty timeline.
func TimelineOf(recs []sim.Record, end time.Duration) Timeline {
	d := deriver{end: end}
	for i := range recs {
		d.record(&recs[i])
	}
	for _, h := range d.holds {
		if h.open {
			d.t.Spans = append(d.t.Spans, Span{Lane: h.client, Kind: SpanHold, Start: h.start, End: end, Label: tokenLabel(h.token)})
		}
	}
	for _, n := range slices.Sorted(maps.Keys(d.keys)) { // map order must not reach the output
		d.closeKey(n, end)
	}
	d.t.sort()
	return d.t
}

// deriver is TimelineOf's state while it reads the records in order.
type deriver struct {
	t     Timeline
	end   time.Duration
	holds []derivedHold
	open  map[string]int  // client → its open hold, by index in holds
	keys  map[string]Span // lane → the key span it shows now
}

type derivedHold struct {
	client string
	start  time.Duration
	token  uint64
	open   bool
}

func (d *deriver) span(lane string, k SpanKind, start, end time.Duration, label string) {
	d.t.Spans = append(d.t.Spans, Span{Lane: lane, Kind: k, Start: start, End: end, Label: label})
}

func (d *deriver) mark(lane string, k MarkKind, at time.Duration, label string) {
	d.t.Marks = append(d.t.Marks, Mark{Lane: lane, Kind: k, At: at, Label: label})
}

// setKey shows lock value v on lane from at: a new value replaces an old
// one.
func (d *deriver) setKey(lane string, at time.Duration, v string) {
	d.closeKey(lane, at)
	if d.keys == nil {
		d.keys = make(map[string]Span)
	}
	d.keys[lane] = Span{Lane: lane, Kind: SpanKey, Start: at, Label: lockValue(parseUint(v))}
}

func (d *deriver) closeKey(lane string, at time.Duration) {
	if s, ok := d.keys[lane]; ok {
		s.End = at
		d.t.Spans = append(d.t.Spans, s)
		delete(d.keys, lane)
	}
}

func (d *deriver) record(r *sim.Record) {
	f, ok := story.Decode(*r)
	if !ok {
		return
	}
	switch f := f.(type) {
	// a client's belief
	case story.Acquire:
		if d.open == nil {
			d.open = make(map[string]int)
		}
		d.open[r.Actor] = len(d.holds)
		d.holds = append(d.holds, derivedHold{client: r.Actor, start: r.At, token: parseUint(f.Token), open: true})
	case story.GetToken:
		if i, ok := d.open[r.Actor]; ok {
			d.holds[i].token = parseUint(f.Token)
		}
	case story.LetGo:
		if i, ok := d.open[r.Actor]; ok {
			h := &d.holds[i]
			h.open = false
			delete(d.open, r.Actor)
			d.span(h.client, SpanHold, h.start, r.At, tokenLabel(h.token))
		}

	// the resource
	case story.AcceptWrite:
		d.mark(f.By, MarkWrite, r.At, "write")
	case story.RejectWrite:
		d.mark(f.By, MarkReject, r.At, "rejected")

	// the lock key on a node or the store
	case story.SetKey:
		d.setKey(r.Actor, r.At, f.Value)
	case story.GiveKey:
		d.setKey(r.Actor, r.At, f.Value)
	case story.OverwriteKey, story.ExpireKey, story.DeleteKey, story.DeleteHeldKey:
		d.closeKey(r.Actor, r.At)
	case story.ExpireLease:
		if f.Key != "" {
			d.closeKey(r.Actor, r.At)
		}
	case story.RevokeLease:
		if f.Key != "" {
			d.closeKey(r.Actor, r.At)
		}
	case story.Start: // a node reloading after a crash
		if f.Lost != "" || f.Expired != "" {
			d.closeKey(r.Actor, r.At)
		}
		for _, v := range strings.Fields(f.Reloaded) {
			d.setKey(r.Actor, r.At, v)
		}

	// the world's faults
	case story.Pause:
		d.span(r.Actor, SpanPause, r.At, r.At+parseDur(f.For), f.Why)
	case story.Crash:
		d.down(r, "crashed", f.Restart, f.RestartIn)
	case story.LosePower:
		d.down(r, "power lost", f.Restart, f.RestartIn)
	case story.Elect:
		d.span(r.Actor, SpanDown, r.At, min(r.At+parseDur(f.For), d.end), "election")
	case story.StepClock:
		d.mark(r.Actor, MarkClock, r.At, story.Signed(f.By))
	case story.SlewClock:
		d.mark(r.Actor, MarkClock, r.At, "slew "+story.Signed(f.By))
	case story.RateClock:
		ppm, _ := strconv.ParseFloat(f.PPM, 64)
		d.mark(r.Actor, MarkClock, r.At, fmt.Sprintf("%+gppm", ppm))
	case story.Cut:
		switch {
		case f.Mode == "": // not a fault's: the world applies every cut it makes with its mode
		case f.Mode == "cut":
			d.mark(r.Actor, MarkPartition, r.At, "cut "+f.Target+"→"+f.To)
		default:
			d.mark(r.Actor, MarkPartition, r.At, f.Mode+" "+f.Target)
		}
	case story.HealAll:
		d.mark(r.Actor, MarkHeal, r.At, "heal")

	// what explains the lock's moves: a new master, a new leader
	case story.BePromoted:
		d.mark(r.Actor, MarkPromotion, r.At, "promoted to master")
	case story.RegainLeader:
		d.mark(r.Actor, MarkElection, r.At, "leader elected")
	}
}

// down is a crash or power loss of r's actor: a down node serves no key;
// what survives on disk shows again when it reloads. It is down until its
// restart (restartIn later), or to the end when restart is "never".
func (d *deriver) down(r *sim.Record, label, restart, restartIn string) {
	d.closeKey(r.Actor, r.At)
	until := d.end
	if restart == "" {
		until = min(r.At+parseDur(restartIn), d.end)
	}
	d.span(r.Actor, SpanDown, r.At, until, label)
}

// parseUint reads a number field the model wrote; a missing one is 0.
func parseUint(s string) uint64 {
	v, _ := strconv.ParseUint(s, 10, 64)
	return v
}

// parseDur reads a duration field the model wrote (time.Duration.String
// reads back exactly); a missing one is 0.
func parseDur(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}

func lockValue(v uint64) string {
	if v == 0 {
		return "-"
	}
	return check.ElementName(v) // lock values are built like elements
}

func tokenLabel(t uint64) string {
	if t == 0 {
		return ""
	}
	return fmt.Sprintf("token %d", t)
}
