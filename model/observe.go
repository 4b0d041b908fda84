package model

import (
	"time"

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
	if hold, ok := RecordClient(rec, p.recID(), now, o, w); ok {
		switch {
		case on == nil:
		case o.Kind == proto.AttemptStart:
			on.newAttempt(w, p)
		case o.Kind == proto.HoldStart:
			on.holdStart(p, hold, o.Lock)
		case o.Kind == proto.HoldEnd:
			on.holdEnd(w, p)
		}
		if o.Kind == proto.HoldStart {
			w.acquired(p)
		}
		if w.scorer != nil {
			w.scorer.client(p, o)
		}
		return
	}
	switch o.Kind {
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

// HoldNamer names the hold under a lock value: its ID, or 0.
type HoldNamer interface{ HoldOf(lock uint64) int }

// RecordClient records a client's own observation o (an attempt's start
// or end, a hold's start or end, a fencing token), stamped at, in rec: the
// one translation of a client's facts into the checker's history, which
// the world and the real harness share (a real client reports the same
// kinds by their wire names, proto.ObsKind.String). holds names the hold
// a token is for. It returns the ID of the hold a HoldStart begins, and
// ok = false, recording nothing, for any other kind of observation.
func RecordClient(rec *check.Recorder, c check.ClientID, at time.Duration, o proto.Observation, holds HoldNamer) (hold int, ok bool) {
	switch o.Kind {
	case proto.AttemptStart:
		rec.AttemptStart(c, at)
	case proto.AttemptEnd:
		rec.AttemptEnd(c, at, o.OK)
	case proto.HoldStart:
		return rec.HoldStart(c, at, o.Lock, o.Token), true
	case proto.TokenIssued:
		rec.Token(holds.HoldOf(o.Lock), o.Token, at)
	case proto.HoldEnd:
		rec.HoldEnd(c, at)
	default:
		return 0, false
	}
	return 0, true
}

// HoldOf is the ID of the hold under lock value lock, or 0: the
// history's name for it, or in a fast run the live hold's.
func (w *World) HoldOf(lock uint64) int {
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
