package model

import (
	"time"

	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
)

// A fast (un-narrated) run keeps no history: the world feeds a check.Judge
// as things happen, so that the run's memory does not grow with its
// length. A narrated run keeps the whole History (its narration, the
// violation excerpts and explore's predictions read it), and it is short.
// The two agree exactly (scenarios TestRunFastMatchesRunTraced).

// liveHold is a hold the world still has to name: its client may still
// send requests under it, or some are in flight to the resource.
type liveHold struct {
	id         int
	owner      *proc
	lock       uint64
	ended      bool
	superseded bool  // its client began a new attempt, with a new lock value
	refs       int32 // reads and writes under it sent to the resource and not yet served
}

// onlineProc is a client's open hold, attempt and want in a fast run.
type onlineProc struct {
	hold     *liveHold   // open hold, or nil
	holds    []*liveHold // holds not yet retired
	trying   bool
	tryStart time.Duration
	want     int // the Judge's handle of the open want, 0 if none
}

// online is a fast run's judge and the holds it can still be told about.
type online struct {
	judge *check.Judge
	live  map[uint64]*liveHold // by lock value
	holds int                  // holds begun: the next hold's ID is holds+1
	res   network.Endpoint
}

// Send counts, in a fast run, the requests to the resource under a hold
// still to be served, so that the hold is forgotten only when nothing can
// name it any more. A request the network loses is counted down when it is
// lost (lost).
func (p *proc) Send(to network.Endpoint, m proto.Msg) {
	if on := p.w.on; on != nil && on.namesHold(to, m) {
		if h, ok := on.live[m.Lock]; ok && h.owner == p {
			h.refs++
		}
	}
	p.Proc.Send(to, m)
}

func (w *World) observeOnline(p *proc, o proto.Observation) {
	on := w.on
	j := on.judge
	now := w.k.Now()
	op := &p.on
	switch o.Kind {
	case proto.AttemptStart:
		if op.want == 0 {
			op.want = j.WantStart(p.Name(), now)
		}
		op.trying, op.tryStart = true, now
		// The client draws a new lock value now: its older holds can only
		// be named by requests already sent.
		for _, h := range op.holds {
			h.superseded = true
		}
		w.retire(op)
	case proto.AttemptEnd:
		if op.trying {
			op.trying = false
			j.Attempt(check.Attempt{Client: p.Name(), Start: op.tryStart, End: now, OK: o.OK})
		}
	case proto.HoldStart:
		if op.want != 0 {
			j.WantEnd(op.want, now)
			op.want = 0
		}
		on.holds++
		h := &liveHold{id: on.holds, owner: p, lock: o.Lock}
		if old, ok := on.live[o.Lock]; ok {
			// Lock values are unique per world; were one reused, the
			// newer hold takes the name, as in a traced run.
			old.superseded = true
		}
		on.live[o.Lock] = h
		op.hold = h
		op.holds = append(op.holds, h)
		j.HoldStart(check.Hold{ID: h.id, Client: p.Name(), Start: now, Token: o.Token, Lock: o.Lock})
	case proto.TokenIssued:
		if h, ok := on.live[o.Lock]; ok {
			j.HoldToken(h.id, o.Token, now)
		}
	case proto.HoldEnd:
		if h := op.hold; h != nil {
			op.hold = nil
			h.ended = true
			j.HoldEnd(h.id, now)
			w.retire(op)
		}
	case proto.Finished:
		// The client will send nothing more: its last hold is as done
		// with as one a new attempt supersedes. Clients never crash
		// (crash faults target nodes only), so a client that stops
		// sending always says so here.
		for _, h := range op.holds {
			h.superseded = true
		}
		w.retire(op)
	case proto.WriteDone:
		writer := w.net.Name(o.Peer)
		h := on.served(o.Lock, o.Peer)
		wr := check.Write{Client: writer, At: now, Element: o.Element, Accepted: o.OK}
		if h != nil {
			wr.HoldID = h.id
		}
		j.Write(wr)
		if len(o.Dropped) > 0 {
			j.Dropped(now, o.Dropped)
		}
		if len(o.Restored) > 0 {
			j.Restored(now, o.Restored)
		}
		if h != nil {
			w.retire(&h.owner.on)
		}
	case proto.ReadDone:
		h := on.served(o.Lock, o.Peer)
		r := check.Read{Client: w.net.Name(o.Peer), At: now}
		if h != nil {
			r.HoldID = h.id
			j.Read(r)
			w.retire(&h.owner.on)
		}
	}
}

// lost counts down, in a fast run, a read or write to the resource that
// will never arrive, as the resource's serving it would (the network's
// drop tap, and World.deliver for a resource that is down), and retires
// its hold if nothing else can name it.
func (w *World) lost(from, to network.Endpoint, m proto.Msg) {
	on := w.on
	if !on.namesHold(to, m) {
		return
	}
	if h := on.served(m.Lock, from); h != nil {
		w.retire(&h.owner.on)
	}
}

// namesHold reports whether m, sent to to, is a read or write of the
// resource: a message that names its sender's hold by its lock value, and
// keeps the hold alive until it is served or lost.
func (on *online) namesHold(to network.Endpoint, m proto.Msg) bool {
	return to == on.res && (m.Kind == proto.ResourceRead || m.Kind == proto.ResourceWrite)
}

// served is the hold of peer named by lock, whose request the resource
// has just served or the network lost, or nil when peer holds no such
// hold.
func (on *online) served(lock uint64, peer network.Endpoint) *liveHold {
	h, ok := on.live[lock]
	if !ok || h.owner.Self() != peer {
		return nil
	}
	if h.refs > 0 {
		h.refs--
	}
	return h
}

// retire forgets the client's holds that nothing can name any more, and
// tells the Judge so.
func (w *World) retire(op *onlineProc) {
	n := 0
	for _, h := range op.holds {
		if h.ended && h.superseded && h.refs == 0 {
			w.on.judge.Retire(h.id)
			if w.on.live[h.lock] == h {
				delete(w.on.live, h.lock)
			}
			continue
		}
		op.holds[n] = h
		n++
	}
	clear(op.holds[n:])
	op.holds = op.holds[:n]
}

// finishOnline closes the open attempts at the run's end and returns the
// Judge's report.
func (w *World) finishOnline(end time.Duration) check.Report {
	j := w.on.judge
	for _, p := range w.procs {
		if p.on.trying {
			p.on.trying = false
			j.Attempt(check.Attempt{Client: p.Name(), Start: p.on.tryStart, End: end})
		}
	}
	return j.Finish(end)
}
