package model

import (
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/resource"
)

// Observe implements proto.Env: it stamps an actor's observation with true
// time and turns it into the history the checker judges.
func (p *proc) Observe(o proto.Observation) {
	w := p.w
	if w.on != nil {
		w.observeOnline(p, o)
		return
	}
	now := w.k.Now()
	rec := w.rec
	switch o.Kind {
	case proto.AttemptStart:
		rec.AttemptStart(p.recID(), now)
	case proto.AttemptEnd:
		rec.AttemptEnd(p.recID(), now, o.OK)
	case proto.HoldStart:
		rec.HoldStart(p.recID(), now, o.Lock, o.Token)
	case proto.TokenIssued:
		rec.Token(o.Lock, o.Token)
	case proto.HoldEnd:
		rec.HoldEnd(p.recID(), now)
	case proto.WriteDone:
		writer := w.net.Name(o.Peer)
		reason := ""
		if !o.OK {
			reason = resource.Refusal(o.Err, o.Lock, o.Token, o.Want)
		}
		rec.Write(check.Write{Client: writer, HoldID: rec.HoldID(writer, o.Lock), At: now, Element: o.Element, Accepted: o.OK, Reason: reason})
	case proto.ReadDone:
		reader := w.net.Name(o.Peer)
		rec.Read(check.Read{Client: reader, HoldID: rec.HoldID(reader, o.Lock), At: now})
	}
	// KeySet and KeyGone judge nothing: the keys' life shows in the
	// timeline, drawn from the nodes' and the store's records (TimelineOf).
	// Finished only lets a fast run forget a hold; a history keeps all.
}

// recID is the process's handle in the world's history recorder,
// registered at its first observation.
func (p *proc) recID() check.ClientID {
	if p.rec == 0 {
		p.rec = p.w.rec.Client(p.Name())
	}
	return p.rec
}
