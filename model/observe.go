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
	h := &w.hist
	switch o.Kind {
	case proto.AttemptStart:
		if p.openWant < 0 {
			p.openWant = len(h.Wants)
			h.Wants = append(h.Wants, check.Attempt{Client: p.Name(), Start: now, End: -1})
		}
		p.openTry = len(h.Attempts)
		h.Attempts = append(h.Attempts, check.Attempt{Client: p.Name(), Start: now, End: -1})
	case proto.AttemptEnd:
		if i := p.openTry; i >= 0 {
			h.Attempts[i].End = now
			h.Attempts[i].OK = o.OK
			p.openTry = -1
		}
	case proto.HoldStart:
		if i := p.openWant; i >= 0 {
			h.Wants[i].End, h.Wants[i].OK = now, true
			p.openWant = -1
		}
		id := len(h.Holds) + 1
		w.holdIdx[o.Lock] = len(h.Holds)
		p.openHold = len(h.Holds)
		h.Holds = append(h.Holds, check.Hold{ID: id, Client: p.Name(), Start: now, End: -1, Token: o.Token, Lock: o.Lock})
	case proto.TokenIssued:
		if i, ok := w.holdIdx[o.Lock]; ok {
			h.Holds[i].Token = o.Token
		}
	case proto.HoldEnd:
		if i := p.openHold; i >= 0 {
			h.Holds[i].End = now
			p.openHold = -1
		}
	case proto.WriteDone:
		writer := w.net.Name(o.Peer)
		hold := w.holdID(o.Lock, writer)
		reason := ""
		if !o.OK {
			reason = resource.Refusal(o.Err, o.Lock, o.Token, o.Want)
		}
		h.Writes = append(h.Writes, check.Write{Client: writer, HoldID: hold, At: now, Element: o.Element, Accepted: o.OK, Reason: reason})
	case proto.ReadDone:
		reader := w.net.Name(o.Peer)
		h.Reads = append(h.Reads, check.Read{Client: reader, HoldID: w.holdID(o.Lock, reader), At: now})
	}
	// KeySet and KeyGone judge nothing: the keys' life shows in the
	// timeline, drawn from the nodes' and the store's records (TimelineOf).
	// Finished only lets a fast run forget a hold; a history keeps all.
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
