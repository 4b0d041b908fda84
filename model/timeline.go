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
	get := func(k string) string { v, _ := r.Get(k); return v }
	has := func(k string) bool { _, ok := r.Get(k); return ok }
	switch r.Kind {
	// a client's belief
	case story.Acquires:
		if d.open == nil {
			d.open = make(map[string]int)
		}
		d.open[r.Actor] = len(d.holds)
		d.holds = append(d.holds, derivedHold{client: r.Actor, start: r.At, token: parseUint(get("token")), open: true})
	case story.GetsToken:
		if i, ok := d.open[r.Actor]; ok {
			d.holds[i].token = parseUint(get("token"))
		}
	case story.LetsGo:
		if i, ok := d.open[r.Actor]; ok {
			h := &d.holds[i]
			h.open = false
			delete(d.open, r.Actor)
			d.span(h.client, SpanHold, h.start, r.At, tokenLabel(h.token))
		}

	// the resource
	case story.Write:
		d.mark(get("by"), MarkWrite, r.At, "write")
	case story.Reject:
		d.mark(get("by"), MarkReject, r.At, "rejected")

	// the lock key on a node or the store
	case story.Sets, story.Lock:
		d.setKey(r.Actor, r.At, get("value"))
	case story.Overwrites, story.Expires, story.Deletes, story.Unlock:
		d.closeKey(r.Actor, r.At)
	case story.LeaseExpired, story.LeaseRevoked:
		if has("key") {
			d.closeKey(r.Actor, r.At)
		}
	case story.Starts: // a node reloading after a crash
		if has("lost") || has("expired") {
			d.closeKey(r.Actor, r.At)
		}
		for _, v := range strings.Fields(get("reloaded")) {
			d.setKey(r.Actor, r.At, v)
		}

	// the world's faults
	case story.Pauses:
		d.span(r.Actor, SpanPause, r.At, r.At+parseDur(get("for")), get("why"))
	case story.Crashes, story.LosesPower:
		// A down node serves no key; what survives on disk shows again
		// when it reloads.
		d.closeKey(r.Actor, r.At)
		label := "crashed"
		if r.Kind == story.LosesPower {
			label = "power lost"
		}
		until := d.end
		if !has("restart") { // "never"
			until = min(r.At+parseDur(get("restart-in")), d.end)
		}
		d.span(r.Actor, SpanDown, r.At, until, label)
	case story.Election:
		d.span(r.Actor, SpanDown, r.At, min(r.At+parseDur(get("for")), d.end), "election")
	case story.ClockStep:
		d.mark(r.Actor, MarkClock, r.At, story.Signed(get("by")))
	case story.ClockSlew:
		d.mark(r.Actor, MarkClock, r.At, "slew "+story.Signed(get("by")))
	case story.ClockRate:
		ppm, _ := strconv.ParseFloat(get("ppm"), 64)
		d.mark(r.Actor, MarkClock, r.At, fmt.Sprintf("%+gppm", ppm))
	case story.Partition:
		switch {
		case !has("mode"): // not a fault's: the world applies every cut it makes with its mode
		case get("mode") == "cut":
			d.mark(r.Actor, MarkPartition, r.At, "cut "+get("target")+"→"+get("to"))
		default:
			d.mark(r.Actor, MarkPartition, r.At, get("mode")+" "+get("target"))
		}
	case story.Heal:
		d.mark(r.Actor, MarkHeal, r.At, "heal")

	// what explains the lock's moves: a new master, a new leader
	case story.Promoted:
		d.mark(r.Actor, MarkPromotion, r.At, "promoted to master")
	case story.Available:
		d.mark(r.Actor, MarkElection, r.At, "leader elected")
	}
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
