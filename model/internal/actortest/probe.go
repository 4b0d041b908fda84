package actortest

import (
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
)

// Received is a message a probe received, stamped with the true time and
// the sender's name.
type Received struct {
	At   time.Duration
	From string
	proto.Msg
}

// Probe is a scripted client actor: tests make it send, and it records
// every message it receives. It sets no timers.
type Probe struct {
	p   *Proc
	got []Received
}

var _ proto.Actor = (*Probe)(nil)

// AddProbe adds a probe under name, with an ideal clock.
func (w *World) AddProbe(name string) *Probe {
	c := &Probe{}
	c.p = w.Add(name, c, clocks.Spec{})
	return c
}

// Proc is the probe's place in the world; its Send sends at once.
func (c *Probe) Proc() *Proc { return c.p }

func (c *Probe) Start(proto.Env) {}

func (c *Probe) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	c.got = append(c.got, Received{At: c.p.w.k.Now(), From: env.NameOf(from), Msg: m})
}

func (c *Probe) OnTimer(proto.Env, uint64) { panic("actortest: a probe sets no timers") }

// Send makes the probe send m to the endpoint called to at true time t.
func (c *Probe) Send(t time.Duration, to string, m proto.Msg) {
	w := c.p.w
	w.At(t, func() {
		ep, ok := w.net.Lookup(to)
		if !ok {
			w.t.Fatalf("%s sends to %q: no such endpoint", c.p.Name(), to)
		}
		c.p.Send(ep, m)
	})
}

// Received returns every message the probe received since the last Forget,
// in order.
func (c *Probe) Received() []Received { return c.got }

// Forget drops the messages received so far, keeping their storage.
// Benchmarks call it every round.
func (c *Probe) Forget() { c.got = c.got[:0] }

// Reply returns the reply to request req, failing the test unless there is
// exactly one.
func (c *Probe) Reply(req uint64) Received {
	t := c.p.w.t
	t.Helper()
	var first Received
	n := 0
	for _, g := range c.got {
		if isReply(g.Kind) && g.Req == req {
			if n == 0 {
				first = g
			}
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%s: %d replies to request %d, want 1 (got %+v)", c.p.Name(), n, req, c.got)
	}
	return first
}

// Replied reports whether some reply to request req arrived.
func (c *Probe) Replied(req uint64) bool {
	for _, g := range c.got {
		if isReply(g.Kind) && g.Req == req {
			return true
		}
	}
	return false
}

// isReply reports whether k answers a request: a Redis node's, the
// resource's or the consensus store's reply.
func isReply(k proto.Kind) bool {
	return k == proto.Reply || k == proto.ResourceReply || k == proto.StoreReply
}
