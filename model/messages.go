package model

import (
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
)

// Message is one delivered message of a narrated run, in true time.
type Message struct {
	From, To string
	Sent, At time.Duration
	Kind     string // proto.Kind's name: SET-NX, REPLY, RESOURCE-WRITE, ...
	// Req is the request id a reply echoes; 0 for messages that are
	// neither (replication, pings). A request and its reply share From/To
	// swapped and Req.
	Req   uint64
	Reply bool
}

// isReply reports whether k answers a request with the same Req.
func isReply(k proto.Kind) bool {
	return k == proto.Reply || k == proto.ResourceReply || k == proto.StoreReply
}

func (w *World) tapMessage(from, to network.Endpoint, sent time.Duration, m proto.Msg) {
	w.messages = append(w.messages, Message{
		From: w.net.Name(from), To: w.net.Name(to), Sent: sent, At: w.k.Now(),
		Kind: m.Kind.String(), Req: m.Req, Reply: isReply(m.Kind),
	})
}
