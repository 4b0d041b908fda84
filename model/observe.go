package model

import (
	"cmp"
	"fmt"
	"maps"

	"slices"
	"time"

	"github.com/redlocksim/redlocksim/clocks"

	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// Observe implements proto.Env: it stamps an actor's observation with true
// time and turns it into the history the checker judges.
func (p *proc) Observe(o proto.Observation) {
	w := p.w
	now := w.k.Now()
	h := &w.hist
	switch o.Kind {
	case proto.AttemptStart:
		if p.openWant < 0 {
			p.openWant = len(h.Wants)
			h.Wants = append(h.Wants, check.Attempt{Client: p.name, Start: now, End: -1})
		}
		p.openTry = len(h.Attempts)
		h.Attempts = append(h.Attempts, check.Attempt{Client: p.name, Start: now, End: -1})
	case proto.AttemptEnd:
		if i := p.openTry; i >= 0 {
			h.Attempts[i].End = now
			h.Attempts[i].OK = o.OK
			p.openTry = -1
		}
		if !o.OK && w.k.Tracing() {
			w.logf(p.name, "gives-up", "%s gives up acquiring: %s", p.name, o.Text)
		}
	case proto.HoldStart:
		if i := p.openWant; i >= 0 {
			h.Wants[i].End, h.Wants[i].OK = now, true
			p.openWant = -1
		}
		id := len(h.Holds) + 1
		w.holdIdx[o.Lock] = len(h.Holds)
		p.openHold = len(h.Holds)
		h.Holds = append(h.Holds, check.Hold{ID: id, Client: p.name, Start: now, End: -1, Token: o.Token, Lock: o.Lock})
		if w.k.Tracing() {
			w.logf(p.name, "acquired", "%s acquires the lock (value %s)", p.name, lockValue(o.Lock))
		}
	case proto.TokenIssued:
		if i, ok := w.holdIdx[o.Lock]; ok {
			h.Holds[i].Token = o.Token
		}
		if w.k.Tracing() {
			w.logf(p.name, "token", "%s gets fencing token %d", p.name, o.Token)
		}
	case proto.HoldEnd:
		if i := p.openHold; i >= 0 {
			h.Holds[i].End = now
			p.openHold = -1
			if w.timeline.on { // the label is formatted only for a timeline
				w.timeline.add(p.name, SpanHold, h.Holds[i].Start, now, tokenLabel(h.Holds[i].Token))
			}
		}
		if w.k.Tracing() {
			w.logf(p.name, "let-go", "%s stops believing it holds the lock (%s)", p.name, o.Text)
		}
	case proto.WriteDone:
		writer := w.net.Name(o.Peer)
		hold := w.holdID(o.Lock, writer)
		reason := ""
		if !o.OK {
			reason = o.Text
			if reason == "" {
				reason = o.Err.String()
			}
		}
		h.Writes = append(h.Writes, check.Write{Client: writer, HoldID: hold, At: now, Element: o.Element, Accepted: o.OK, Reason: reason})
		switch {
		case !w.k.Tracing():
		case o.OK:
			if o.Token != 0 {
				w.logf("resource", "write", "resource accepts %s's write (token %d)", writer, o.Token)
			} else {
				w.logf("resource", "write", "resource accepts %s's write", writer)
			}
			w.timeline.mark(writer, MarkWrite, now, "write")
		default:
			w.logf("resource", "reject", "resource rejects %s's write: %s", writer, reason)
			w.timeline.mark(writer, MarkReject, now, "rejected")
		}
	case proto.ReadDone:
		reader := w.net.Name(o.Peer)
		h.Reads = append(h.Reads, check.Read{Client: reader, HoldID: w.holdID(o.Lock, reader), At: now})
	case proto.KeySet:
		if !w.k.Tracing() {
			return
		}
		w.keySet(p.name, o.Lock, now)
		w.logf(p.name, "key-set", "%s sets the lock key (value %s)", p.name, lockValue(o.Lock))
	case proto.KeyGone:
		if !w.k.Tracing() {
			return
		}
		w.keyGone(p.name, now)
		if o.OK {
			w.logf(p.name, "key-expired", "%s expires the lock key (value %s)", p.name, lockValue(o.Lock))
		} else {
			w.logf(p.name, "key-deleted", "%s deletes the lock key (value %s)", p.name, lockValue(o.Lock))
		}
	}
}

func lockValue(v uint64) string {
	if v == 0 {
		return "-"
	}
	return check.ElementName(v) // lock values are built like elements
}

// holdID is the ID of client's hold with lock value lock, or 0 when the
// client does not hold it (a write under a value it never held, or
// another client's).
func (w *World) holdID(lock uint64, client string) int {
	if i, ok := w.holdIdx[lock]; ok && w.hist.Holds[i].Client == client {
		return w.hist.Holds[i].ID
	}
	return 0
}

func tokenLabel(t uint64) string {
	if t == 0 {
		return ""
	}
	return fmt.Sprintf("token %d", t)
}

// logf appends to the observation log the checker cuts excerpts from. The
// log, like the timeline, is kept only in a narrated run: Run replays a run
// that found a violation with narration on (the replay is exact), so every
// violation still comes with the story that explains it, and the runs of a
// sweep pay for no text. Formatting happens here, after the check, but
// boxing the arguments does not: callers on the per-acquisition path check
// Tracing first, or every run would allocate for text it then drops.
func (w *World) logf(actor, kind, format string, a ...any) {
	if !w.k.Tracing() {
		return
	}
	w.hist.Log = append(w.hist.Log, check.Event{At: w.k.Now(), Actor: actor, Kind: kind, Text: fmt.Sprintf(format, a...)})
}

func (w *World) keySet(node string, lock uint64, now time.Duration) {
	w.keyGone(node, now) // a new value replaces an old one
	w.timeline.openKey(node, now, lockValue(lock))
}

func (w *World) keyGone(node string, now time.Duration) {
	w.timeline.closeKey(node, now)
}

// Result is what one run produced.
type Result struct {
	Scenario string
	Seed     uint64
	End      time.Duration
	Report   check.Report
	History  check.History
	Events   uint64        // kernel events fired
	Net      network.Stats // messages sent, delivered, dropped
	Trace    []sim.Record  // empty unless tracing was on
	Timeline Timeline
	// Clocks are every actor's clocks, by name, so that a narration can
	// show each actor's own reading next to true time.
	Clocks map[string]*clocks.Process
	// Messages are the delivered messages, in delivery order; empty unless
	// tracing was on.
	Messages []Message
	// Lanes are the actors in display order: clients, nodes, then the
	// resource and the store or sentinel.
	Lanes []string
}

// MutexSafe reports whether no two clients ever both believed they held the
// lock.
// The checker's Report.Safe is the one definition of the verdict.
func (r Result) MutexSafe() bool {
	mutex, _ := r.Report.Safe()
	return mutex
}

// ResourceSafe reports whether the resource lost no update and accepted no
// stale write.
func (r Result) ResourceSafe() bool {
	_, resource := r.Report.Safe()
	return resource
}

func (w *World) finish() Result {
	end := w.k.Now()
	h := &w.hist
	h.End = end
	for i := range h.Holds {
		if h.Holds[i].End < 0 {
			h.Holds[i].End = end
			w.timeline.add(h.Holds[i].Client, SpanHold, h.Holds[i].Start, end, tokenLabel(h.Holds[i].Token))
		}
	}
	for i := range h.Attempts {
		if h.Attempts[i].End < 0 {
			h.Attempts[i].End = end
		}
	}
	for i := range h.Wants {
		if h.Wants[i].End < 0 {
			h.Wants[i].End = end
		}
	}
	w.timeline.closeAll(end)
	h.Final = w.res.Final()
	w.timeline.sort()
	clk := make(map[string]*clocks.Process, len(w.procs))
	var lanes []string
	for _, r := range []role{roleClient, roleNode, roleResource, roleStore, roleSentinel} {
		for _, p := range w.procs {
			if p.role == r {
				lanes = append(lanes, p.name)
			}
		}
	}
	for _, p := range w.procs {
		clk[p.name] = p.clk
	}
	return Result{
		Clocks:   clk,
		Lanes:    lanes,
		Scenario: w.cfg.Name,
		Seed:     w.k.Seed(),
		End:      end,
		Report:   check.Check(*h),
		History:  *h,
		Events:   w.k.Fired(),
		Net:      w.net.Stats(),
		Trace:    w.k.Trace().Records(),
		Timeline: w.timeline,
		Messages: w.messages,
	}
}

// Run compiles cfg and runs one world (see Plan.Run).
func Run(cfg Config, seed uint64) (Result, error) {
	p, err := Compile(&cfg)
	if err != nil {
		return Result{}, err
	}
	return p.Run(seed), nil
}

// RunFast compiles cfg and runs one world without narration (see
// Plan.RunFast).
func RunFast(cfg Config, seed uint64) (Result, error) {
	p, err := Compile(&cfg)
	if err != nil {
		return Result{}, err
	}
	return p.RunFast(seed), nil
}

// RunTraced compiles cfg and runs one world with narration (see
// Plan.RunTraced).
func RunTraced(cfg Config, seed uint64) (Result, error) {
	p, err := Compile(&cfg)
	if err != nil {
		return Result{}, err
	}
	return p.RunTraced(seed), nil
}

// Run runs one world. A run that finds a violation is replayed with
// narration on, so that its Result carries the trace, the timeline and each
// violation's excerpt; the replay is exact (narration draws no random
// number and schedules no event), so its counts are the first run's.
func (p *Plan) Run(seed uint64) Result {
	r := p.RunFast(seed)
	if len(r.Report.Violations) == 0 {
		return r
	}
	return p.RunTraced(seed)
}

// RunFast runs one world without narration, ever: the sweep's way, where
// only the counts matter.
func (p *Plan) RunFast(seed uint64) Result { return NewWorld(p, seed, false).Run() }

// RunTraced runs one world with narration on: the trace, the timeline, and
// the observation log the violation excerpts are cut from.
func (p *Plan) RunTraced(seed uint64) Result { return NewWorld(p, seed, true).Run() }

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
