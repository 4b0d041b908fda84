package model

import (
	"cmp"
	"maps"
	"slices"
	"time"
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
// each node's lock key, pauses, crashes, partitions and clock steps.
type Timeline struct {
	Spans   []Span
	Marks   []Mark
	keyOpen map[string]Span
	on      bool
}

func (t *Timeline) add(lane string, k SpanKind, start, end time.Duration, label string) {
	if !t.on {
		return
	}
	t.Spans = append(t.Spans, Span{Lane: lane, Kind: k, Start: start, End: end, Label: label})
}

func (t *Timeline) mark(lane string, k MarkKind, at time.Duration, label string) {
	if !t.on {
		return
	}
	t.Marks = append(t.Marks, Mark{Lane: lane, Kind: k, At: at, Label: label})
}

func (t *Timeline) openKey(node string, at time.Duration, label string) {
	if !t.on {
		return
	}
	if t.keyOpen == nil {
		t.keyOpen = make(map[string]Span)
	}
	t.keyOpen[node] = Span{Lane: node, Kind: SpanKey, Start: at, Label: label}
}

func (t *Timeline) closeKey(node string, at time.Duration) {
	if s, ok := t.keyOpen[node]; ok {
		s.End = at
		t.Spans = append(t.Spans, s)
		delete(t.keyOpen, node)
	}
}

func (t *Timeline) closeAll(end time.Duration) {
	for _, n := range slices.Sorted(maps.Keys(t.keyOpen)) { // map order must not reach the output
		t.closeKey(n, end)
	}
}

func (t *Timeline) sort() {
	slices.SortStableFunc(t.Spans, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Lane, b.Lane), cmp.Compare(a.Kind, b.Kind))
	})
	slices.SortStableFunc(t.Marks, func(a, b Mark) int { return cmp.Compare(a.At, b.At) })
}
