package model

import (
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/resource"
)

// Observe implements proto.Env: it stamps an actor's observation with true
// time and records it through the world's check.Recorder, whose sink (a
// History in a narrated run, the Judge in a fast one) was chosen when the
// world was built. A fast run adds what lets it forget a hold that nothing
// can name any more (online.go).
func (p *proc) Observe(o proto.Observation) {
	w := p.w
	now := w.k.Now()
	rec, on := w.rec, w.on
	switch o.Kind {
	case proto.AttemptStart:
		rec.AttemptStart(p.recID(), now)
		if on != nil {
			on.newAttempt(w, p)
		}
	case proto.AttemptEnd:
		rec.AttemptEnd(p.recID(), now, o.OK)
	case proto.HoldStart:
		id := rec.HoldStart(p.recID(), now, o.Lock, o.Token)
		if on != nil {
			on.holdStart(p, id, o.Lock)
		}
		w.acquired(p)
	case proto.TokenIssued:
		rec.Token(w.holdOf(o.Lock), o.Token, now)
	case proto.HoldEnd:
		rec.HoldEnd(p.recID(), now)
		if on != nil {
			on.holdEnd(w, p)
		}
	case proto.Finished:
		if on != nil {
			on.finished(w, p)
		}
	case proto.WriteDone:
		writer := w.net.Name(o.Peer)
		if on != nil {
			on.write(w, o, writer, now)
			break
		}
		reason := ""
		if !o.OK {
			reason = resource.Refusal(o.Err, o.Lock, o.Token, o.Want)
		}
		rec.Write(check.Write{Client: writer, HoldID: rec.HoldID(writer, o.Lock), At: now, Element: o.Element, Accepted: o.OK, Reason: reason})
	case proto.ReadDone:
		reader := w.net.Name(o.Peer)
		if on != nil {
			on.read(w, o, reader, now)
			break
		}
		rec.Read(check.Read{Client: reader, HoldID: rec.HoldID(reader, o.Lock), At: now})
	}
	// KeySet and KeyGone judge nothing: the keys' life shows in the
	// timeline, drawn from the nodes' and the store's records (TimelineOf).
}

// holdOf is the ID of the hold under lock value lock, or 0: the
// history's name for it, or in a fast run the live hold's.
func (w *World) holdOf(lock uint64) int {
	if w.on == nil {
		return w.rec.HoldOf(lock)
	}
	if h, ok := w.on.live[lock]; ok {
		return h.id
	}
	return 0
}

// recID is the process's handle in the world's history recorder,
// registered at its first observation.
func (p *proc) recID() check.ClientID {
	if p.rec == 0 {
		p.rec = p.w.rec.Client(p.Name())
	}
	return p.rec
}
