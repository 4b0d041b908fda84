package model

import (
	"time"

	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
)

// A fast (un-narrated) run keeps no history: the world's check.Recorder
// feeds a check.Judge as things happen, so that the run's memory does not
// grow with its length. A narrated run's Recorder keeps the whole History
// (its narration, the violation excerpts and explore's predictions read
// it), and it is short. The two agree exactly (scenarios
// TestRunFastMatchesRunTraced). What a fast run adds is here: the holds it
// can still be told about, so that the Judge may forget the others.

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

// onlineProc is a client's holds in a fast run: its open want, attempt
// and hold are the Recorder's.
type onlineProc struct {
	hold  *liveHold   // open hold, or nil
	holds []*liveHold // holds not yet retired
}

// online is a fast run's judge (the world's Recorder feeds it) and the
// holds it can still be told about.
type online struct {
	judge *check.Judge
	live  map[uint64]*liveHold // by lock value
	res   network.Endpoint
}

// Send counts, in a fast run, the requests to the resource under a hold
// still to be served, so that the hold is forgotten only when nothing can
// name it any more. A request the network loses is counted down when it is
// lost (lost).
func (p *proc) Send(to network.Endpoint, m proto.Msg) {
	if on := p.w.on; on != nil && on.namesHold(to, &m) {
		if h, ok := on.live[m.Lock]; ok && h.owner == p {
			h.refs++
		}
	}
	// Straight to the network, as p.Proc.Send does: through it the
	// compiler copied the message once more.
	p.w.net.SendFrom(p.Self(), to, &m)
}

// newAttempt: the client draws a new lock value now, so its older holds
// can only be named by requests already sent.
func (on *online) newAttempt(w *World, p *proc) {
	for _, h := range p.on.holds {
		h.superseded = true
	}
	w.retire(&p.on)
}

// holdStart makes hold id, under lock value lock, the client's live hold.
func (on *online) holdStart(p *proc, id int, lock uint64) {
	h := &liveHold{id: id, owner: p, lock: lock}
	if old, ok := on.live[lock]; ok {
		// Lock values are unique per world; were one reused, the newer
		// hold takes the name, as in a traced run.
		old.superseded = true
	}
	on.live[lock] = h
	p.on.hold = h
	p.on.holds = append(p.on.holds, h)
}

func (on *online) holdEnd(w *World, p *proc) {
	if h := p.on.hold; h != nil {
		p.on.hold = nil
		h.ended = true
		w.retire(&p.on)
	}
}

// finished: the client will send nothing more, so its last hold is as
// done with as one a new attempt supersedes. Clients never crash (crash
// faults target nodes only), so a client that stops sending always says
// so here.
func (on *online) finished(w *World, p *proc) {
	for _, h := range p.on.holds {
		h.superseded = true
	}
	w.retire(&p.on)
}

// write records a write the resource served, named by the live hold it
// was sent under, and the updates it dropped or restored.
func (on *online) write(w *World, o proto.Observation, writer string, now time.Duration) {
	h := on.served(o.Lock, o.Peer)
	wr := check.Write{Client: writer, At: now, Element: o.Element, Accepted: o.OK}
	if h != nil {
		wr.HoldID = h.id
	}
	w.rec.Write(wr)
	if len(o.Dropped) > 0 {
		on.judge.Dropped(now, o.Dropped)
	}
	if len(o.Restored) > 0 {
		on.judge.Restored(now, o.Restored)
	}
	if h != nil {
		w.retire(&h.owner.on)
	}
}

// read records a read the resource served under a live hold (one under
// none judges nothing).
func (on *online) read(w *World, o proto.Observation, reader string, now time.Duration) {
	if h := on.served(o.Lock, o.Peer); h != nil {
		w.rec.Read(check.Read{Client: reader, HoldID: h.id, At: now})
		w.retire(&h.owner.on)
	}
}

// lost counts down, in a fast run, a read or write to the resource that
// will never arrive, as the resource's serving it would (the network's
// drop tap, and World.deliver for a resource that is down), and retires
// its hold if nothing else can name it.
func (w *World) lost(from, to network.Endpoint, m proto.Msg) {
	on := w.on
	if !on.namesHold(to, &m) {
		return
	}
	if h := on.served(m.Lock, from); h != nil {
		w.retire(&h.owner.on)
	}
}

// namesHold reports whether m, sent to to, is a read or write of the
// resource: a message that names its sender's hold by its lock value, and
// keeps the hold alive until it is served or lost. m is a pointer since
// every message sent passes here, and the compiler copied it when not.
func (on *online) namesHold(to network.Endpoint, m *proto.Msg) bool {
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
