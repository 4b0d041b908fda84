package actortest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
)

const ms = time.Millisecond

// echo answers every request with a Reply carrying the local wall time, and
// on Start arms a monotonic timer (tag 1) 10ms out; a timer observes itself.
type echo struct {
	starts  int
	crashes []bool
}

func (e *echo) Start(env proto.Env) {
	e.starts++
	env.After(10*ms, 1)
}

func (e *echo) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	env.Send(from, proto.Msg{Kind: proto.Reply, Req: m.Req, OK: true, Int: int64(env.Read(proto.Wall))})
}

func (e *echo) OnTimer(env proto.Env, tag uint64) {
	env.Observe(proto.Observation{Kind: proto.KeyGone, Lock: tag})
}

func (e *echo) Crash(powerLoss bool) { e.crashes = append(e.crashes, powerLoss) }

func TestProbeRecordsRepliesWithTrueTimeAndSender(t *testing.T) {
	w := actortest.New(t, 1, false)
	e := &echo{}
	w.Add("n1", e, clocks.Spec{Offset: time.Hour})
	c := w.AddProbe("c1")
	w.Net().SetDefaultLatency(network.Constant(ms))
	w.Start()
	w.Start() // starts nothing twice
	assert.Equal(t, 1, e.starts)

	c.Send(5*ms, "n1", proto.Msg{Kind: proto.Get, Req: 7})
	w.Run(6 * ms)
	assert.False(t, c.Replied(7), "the reply is still on the wire")
	w.RunAll()
	require.True(t, c.Replied(7))
	r := c.Reply(7)
	assert.Equal(t, 7*ms, r.At)
	assert.Equal(t, "n1", r.From)
	assert.Equal(t, int64(time.Hour+6*ms), r.Int, "read on n1's wall clock on arrival")
	assert.Len(t, c.Received(), 1)
	c.Forget()
	assert.Empty(t, c.Received())
	assert.False(t, c.Replied(7))
}

// A crash kills the timers of the incarnation that set them, even when the
// actor is back before they were due; the new incarnation's timers fire.
func TestCrashKillsTheIncarnationsTimers(t *testing.T) {
	w := actortest.New(t, 1, true)
	e := &echo{}
	p := w.Add("n1", e, clocks.Spec{})
	w.Start()
	assert.Equal(t, 1, w.Timers())
	w.At(5*ms, func() { w.Crash(p, true) })
	w.At(6*ms, func() { w.Restart(p) })
	w.RunAll()

	assert.Equal(t, []bool{true}, e.crashes)
	assert.Equal(t, 2, e.starts)
	fired := w.Observed("n1", proto.KeyGone)
	require.Len(t, fired, 1, "the first incarnation's timer (due at 10ms) is dead")
	assert.Equal(t, 16*ms, fired[0].At)
	assert.Equal(t, "n1", fired[0].Actor)
	assert.Equal(t, 0, w.Timers())
	assert.Equal(t, 0, w.Kernel().Pending())
}

// Cancel stops a pending timer and frees its slot once; a fired or
// cancelled timer cannot be cancelled again.
func TestCancel(t *testing.T) {
	w := actortest.New(t, 1, false)
	p := w.Add("n1", &echo{}, clocks.Spec{})
	id := p.After(ms, 2)
	assert.Equal(t, 1, w.Timers())
	assert.True(t, p.Cancel(id))
	assert.False(t, p.Cancel(id))
	assert.Equal(t, 0, w.Timers())

	fired := p.After(ms, 3)
	w.RunAll()
	assert.False(t, p.Cancel(fired))
	assert.Equal(t, 0, w.Timers())
	assert.Equal(t, 1, w.NumObserved())
	w.ForgetObservations()
	assert.Empty(t, w.Observations())
	assert.Equal(t, 1, w.NumObserved(), "forgotten observations still count")
}

// A wall timer's deadline is on the actor's wall clock, converted when it
// is set.
func TestWallTimerFollowsTheActorsClock(t *testing.T) {
	w := actortest.New(t, 1, false)
	p := w.Add("n1", &echo{}, clocks.Spec{Offset: time.Second})
	assert.Equal(t, time.Second, p.Read(proto.Wall))
	assert.Equal(t, time.Duration(0), p.Read(proto.Mono))
	p.SetTimer(proto.Wall, time.Second+3*ms, 4)
	w.RunAll()
	fired := w.Observed("n1", proto.KeyGone)
	require.Len(t, fired, 1)
	assert.Equal(t, 3*ms, fired[0].At)
	assert.Equal(t, uint64(4), fired[0].Lock)
}

func TestTraceLines(t *testing.T) {
	w := actortest.New(t, 1, true)
	p := w.Add("n1", &echo{}, clocks.Spec{})
	w.At(ms, func() { p.Trace("hello") })
	w.RunAll()
	assert.Equal(t, []string{"0.001000000s n1 hello"}, w.TraceLines())
	assert.Empty(t, actortest.New(t, 1, false).TraceLines(), "tracing off")
}

// The narrated faults leave model.World's records, each before what the
// fault does: the crash record precedes the actor's Crash, and a clock
// step is recorded at its true time.
func TestNarratedFaults(t *testing.T) {
	w := actortest.New(t, 1, true)
	e := &echo{}
	spec := clocks.Spec{Steps: []clocks.Step{{At: 3 * ms, By: -time.Second}}}
	p := w.Add("n1", e, spec)
	w.NarrateClockSteps("n1", spec)
	w.Start()
	w.At(ms, func() { w.CrashNarrated(p, true) })
	w.At(2*ms, func() { w.RestartNarrated(p) })
	w.Run(4 * ms)
	assert.Equal(t, []bool{true}, e.crashes)
	assert.Equal(t, 2, e.starts)
	assert.Equal(t, []string{"0.001000000s n1 loses power", "0.002000000s n1 restarts", "0.003000000s n1 clock-step by=-1s"}, w.TraceLines())
}

// never sets, on Start, a timer for a local time its clock never reaches.
type never struct{ fired bool }

func (n *never) Start(env proto.Env)                           { env.SetTimer(proto.Mono, clocks.Horizon+time.Hour, 1) }
func (n *never) Handle(proto.Env, network.Endpoint, proto.Msg) {}
func (n *never) OnTimer(proto.Env, uint64)                     { n.fired = true }

// The harness gives actors the model World's Env: a timer for a time the
// clock never reaches is legal there (a deadline far past a clock's
// horizon), so here too it is accepted and never fires. The harness's own
// copy used to panic on it.
func TestTimerThatNeverComesDueIsTheWorldsNoPanic(t *testing.T) {
	w := actortest.New(t, 1, false)
	n := &never{}
	w.Add("n", n, clocks.Spec{})
	w.Start()
	w.Run(time.Hour)
	assert.False(t, n.fired)
	assert.Equal(t, 1, w.Timers(), "the timer stays pending")
}
