package procenv

import (
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// Due is a world's handling of a timer that came due: owner is the
// process's endpoint, incarn its incarnation when it set the timer, id the
// timer (still cancellable to the actor if the world holds it).
type Due interface {
	Due(owner network.Endpoint, incarn uint32, id proto.TimerID, tag uint64)
}

// DueFunc is a func as a Due. A world on the hot path implements Due
// itself: an interface call, where a method value as a DueFunc goes
// through one more call.
type DueFunc func(owner network.Endpoint, incarn uint32, id proto.TimerID, tag uint64)

func (f DueFunc) Due(owner network.Endpoint, incarn uint32, id proto.TimerID, tag uint64) {
	f(owner, incarn, id, tag)
}

// Host is what the processes of one world share.
type Host struct {
	k      *sim.Kernel
	net    *network.Net[proto.Msg]
	timers sim.Slots[timer]
	fire   sim.Func
	due    Due
}

// timer is a pending actor timer; the kernel event's argument indexes the
// host's timer table.
type timer struct {
	owner  network.Endpoint
	incarn uint32
	tag    uint64
	id     proto.TimerID
}

// NewHost returns the host of a world on kernel k and network net, whose
// due timers go to due.
func NewHost(k *sim.Kernel, net *network.Net[proto.Msg], due Due) *Host {
	h := &Host{k: k, net: net, due: due}
	h.fire = h.onTimer
	return h
}

// Timers is the number of actor timers pending.
func (h *Host) Timers() int { return h.timers.Len() }

func (h *Host) onTimer(arg uint64) {
	t := h.timers.Take(int32(arg))
	h.due.Due(t.owner, t.incarn, t.id, t.tag)
}

// Proc is one actor's proto.Env, but for Observe.
type Proc struct {
	h      *Host
	ep     network.Endpoint
	name   string
	clk    *clocks.Process
	rng    *sim.Stream
	incarn uint32
}

// NewProc adds an endpoint called name to the host's network and returns
// the environment of the actor behind it, with clocks clk and the random
// stream "actor:"+name.
func NewProc(h *Host, name string, clk *clocks.Process) Proc {
	return Proc{h: h, ep: h.net.AddEndpoint(name), name: name, clk: clk, rng: h.k.Stream("actor:" + name)}
}

// Clocks are the actor's clocks.
func (p *Proc) Clocks() *clocks.Process { return p.clk }

// Incarnation counts the process's crashes.
func (p *Proc) Incarnation() uint32 { return p.incarn }

// Crashed starts a new incarnation: the timers set so far will be dropped
// when they come due.
func (p *Proc) Crashed() { p.incarn++ }

func (p *Proc) Self() network.Endpoint                      { return p.ep }
func (p *Proc) Name() string                                { return p.name }
func (p *Proc) Lookup(name string) (network.Endpoint, bool) { return p.h.net.Lookup(name) }
func (p *Proc) NameOf(e network.Endpoint) string            { return p.h.net.Name(e) }
func (p *Proc) Send(to network.Endpoint, m proto.Msg)       { p.h.net.Send(p.ep, to, m) }
func (p *Proc) Rand() *sim.Stream                           { return p.rng }
func (p *Proc) Tracing() bool                               { return p.h.k.Tracing() }
func (p *Proc) Trace(kind string, fields ...sim.Field)      { p.h.k.Record(p.name, kind, fields...) }

func (p *Proc) Read(c proto.Clock) time.Duration { return p.clock(c).Local(p.h.k.Now()) }

// clock is the wall clock for Wall and the monotonic one otherwise.
func (p *Proc) clock(c proto.Clock) *clocks.Clock {
	if c == proto.Wall {
		return p.clk.Wall
	}
	return p.clk.Mono
}

func (p *Proc) SetTimer(c proto.Clock, deadline time.Duration, tag uint64) proto.TimerID {
	return p.setAt(p.clock(c).When(deadline, p.h.k.Now()), tag)
}

// After is SetTimer(Mono, Read(Mono)+d, tag), with the clock looked up
// once (clocks.Clock.After): a Redis node sets one for every command.
func (p *Proc) After(d time.Duration, tag uint64) proto.TimerID {
	return p.setAt(p.clk.Mono.After(p.h.k.Now(), d), tag)
}

// setAt schedules the timer tag at true time at.
func (p *Proc) setAt(at time.Duration, tag uint64) proto.TimerID {
	h := p.h
	slot := h.timers.Put(timer{owner: p.ep, incarn: p.incarn, tag: tag})
	id := h.k.Schedule(at, h.fire, uint64(slot))
	h.timers.At(slot).id = id
	return id
}

// Cancel stops a timer still in the kernel's queue.
func (p *Proc) Cancel(id proto.TimerID) bool {
	h := p.h
	arg, ok := h.k.Arg(id)
	if !ok {
		return false
	}
	h.k.Cancel(id)
	h.timers.Take(int32(arg))
	return true
}
