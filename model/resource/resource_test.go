package resource

import (
	"fmt"
	"slices"
	"strings"
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

// rig is a resource and two clients on a network with 1 ms links.
type rig struct {
	w      *actortest.World
	res    *Resource
	at     network.Endpoint
	c1, c2 *actortest.Probe
}

func newRig(t *testing.T, cfg Config) *rig {
	w := actortest.New(t, 1, true)
	r := &rig{w: w, res: New(cfg)}
	r.at = w.Add("resource", r.res, clocks.Spec{}).Self()
	r.c1 = w.AddProbe("c1")
	r.c2 = w.AddProbe("c2")
	w.Start()
	w.Net().SetDefaultLatency(network.Constant(ms))
	return r
}

// read makes c read at true time t with the given credentials.
func (r *rig) read(t time.Duration, c *actortest.Probe, req, lock, token uint64) {
	c.Send(t, "resource", proto.Msg{Kind: proto.ResourceRead, Req: req, Lock: lock, Token: token})
}

// write makes c write elem at true time t, based on the version its read
// readReq returned.
func (r *rig) write(t time.Duration, c *actortest.Probe, req, readReq, elem, lock, token uint64) {
	r.w.At(t, func() {
		base := c.Reply(readReq)
		c.Proc().Send(r.at, proto.Msg{Kind: proto.ResourceWrite, Req: req, Int: base.Int, Value: elem, Lock: lock, Token: token})
	})
}

// writes returns the WriteDone observations as "element:ok/err text".
func (r *rig) writes() []string {
	var out []string
	for _, o := range r.w.Observed("resource", proto.WriteDone) {
		s := fmt.Sprintf("%s %d ok", r.w.Net().Name(o.Peer), o.Element)
		if !o.OK {
			s = fmt.Sprintf("%s %d %v: %s", r.w.Net().Name(o.Peer), o.Element, o.Err, Refusal(o.Err, o.Lock, o.Token, o.Want))
		}
		out = append(out, s)
	}
	return out
}

// Jepsen's lock workload without a lock that works: two clients read the
// same version, both write back, both are acknowledged, and the first
// writer's element is gone.
func TestUnprotectedInterleavedReadModifyWriteLosesAnUpdate(t *testing.T) {
	r := newRig(t, Config{Mode: Unprotected})
	r.read(0, r.c1, 1, 0, 0)
	r.read(1*ms, r.c2, 1, 0, 0)
	r.write(10*ms, r.c1, 2, 1, 101, 0, 0)
	r.write(20*ms, r.c2, 2, 1, 102, 0, 0)
	r.w.RunAll()

	assert.Equal(t, []string{"c1 101 ok", "c2 102 ok"}, r.writes())
	assert.True(t, r.c1.Reply(2).OK)
	assert.True(t, r.c2.Reply(2).OK)
	assert.Equal(t, []uint64{102}, r.res.Final(), "c2's write, based on the empty set, drops c1's 101")
	assert.Equal(t, []uint64{101}, r.res.Set(1))
	assert.Contains(t, strings.Join(r.w.TraceLines(), "\n"), "resource write by=c2 element=102 base=0 version=2 drops=[101]")
}

// The same workload taken in turns keeps every element.
func TestUnprotectedSequentialReadModifyWriteKeepsEverything(t *testing.T) {
	r := newRig(t, Config{Mode: Unprotected})
	r.read(0, r.c1, 1, 0, 0)
	r.write(10*ms, r.c1, 2, 1, 101, 0, 0)
	r.read(20*ms, r.c2, 1, 0, 0)
	r.write(30*ms, r.c2, 2, 1, 102, 0, 0)
	r.w.RunAll()
	assert.Equal(t, []uint64{101, 102}, r.res.Final())
	assert.Equal(t, int64(2), r.res.Version())
	assert.Equal(t, Stats{Reads: 2, Accepted: 2}, r.res.Stats())
}

// Kleppmann's figure: client 1 (token 33) pauses after reading; client 2
// (token 34) reads and writes; client 1 wakes and writes. The resource has
// seen 34 and rejects 33.
func TestFencingRejectsTheTokenOfAnExpiredHolder(t *testing.T) {
	r := newRig(t, Config{Mode: Fencing})
	r.read(0, r.c1, 1, 0, 33)
	r.read(5*ms, r.c2, 1, 0, 34)
	r.write(10*ms, r.c2, 2, 1, 102, 0, 34)
	r.write(20*ms, r.c1, 2, 1, 101, 0, 33)
	r.w.RunAll()

	assert.Equal(t, []string{"c2 102 ok", "c1 101 stale token: token 33 < 34"}, r.writes())
	rep := r.c1.Reply(2)
	assert.False(t, rep.OK)
	assert.Equal(t, proto.StaleToken, rep.Err)
	assert.Equal(t, int64(1), rep.Int, "a rejection reports the current version")
	assert.Equal(t, []uint64{102}, r.res.Final())
	assert.Equal(t, uint64(34), r.res.Highest())
	obs := r.w.Observed("resource", proto.WriteDone)[1]
	assert.Equal(t, proto.Observation{Kind: proto.WriteDone, Err: proto.StaleToken, Token: 33, Element: 101, Peer: r.c1.Proc().Self(), Want: 34}, obs.Observation)
	assert.Equal(t, 21*ms, obs.At)
	assert.Contains(t, r.w.TraceLines(), `0.021000000s resource reject by=c1 token=33 element=101 reason="token 33 < 34"`)
}

// Whether the tokens of reads count decides whether fencing protects a
// read-modify-write: with only writes fenced, the stale holder writes
// between the new holder's read and write, is accepted, and its element is
// then dropped.
func TestFencingReadTokens(t *testing.T) {
	for _, tc := range []struct {
		writesOnly bool
		writes     []string
		final      []uint64
	}{
		{false, []string{"c1 101 stale token: token 33 < 34", "c2 102 ok"}, []uint64{102}},
		{true, []string{"c1 101 ok", "c2 102 ok"}, []uint64{102}}, // 101 acknowledged, then lost
	} {
		t.Run(fmt.Sprintf("writes-only=%v", tc.writesOnly), func(t *testing.T) {
			r := newRig(t, Config{Mode: Fencing, FenceWritesOnly: tc.writesOnly})
			r.read(0, r.c1, 1, 0, 33)
			r.read(5*ms, r.c2, 1, 0, 34)
			r.write(10*ms, r.c1, 2, 1, 101, 0, 33)
			r.write(20*ms, r.c2, 2, 1, 102, 0, 34)
			r.w.RunAll()
			assert.Equal(t, tc.writes, r.writes())
			assert.Equal(t, tc.final, r.res.Final())
		})
	}
}

func TestFencingAcceptsEqualAndHigherTokens(t *testing.T) {
	r := newRig(t, Config{Mode: Fencing})
	r.read(0, r.c1, 1, 0, 7)
	r.write(10*ms, r.c1, 2, 1, 1, 0, 7)
	r.read(20*ms, r.c1, 3, 0, 7)
	r.write(30*ms, r.c1, 4, 3, 2, 0, 7) // the same holder again
	r.read(40*ms, r.c2, 1, 0, 0)        // no token: the lowest; reads are never refused
	r.write(50*ms, r.c2, 2, 1, 3, 0, 0)
	r.w.RunAll()
	assert.Equal(t, []string{"c1 1 ok", "c1 2 ok", "c2 3 stale token: token 0 < 7"}, r.writes())
	assert.True(t, r.c2.Reply(1).OK)
	assert.Equal(t, []uint64{1, 2}, r.res.Final())
}

// antirez's alternative: the read claims the resource for the reader's lock
// value; the new holder's read displaces the old holder.
func TestCompareAndSetRejectsTheDisplacedOwner(t *testing.T) {
	const v1, v2 = 0xaaaa, 0xbbbb
	r := newRig(t, Config{Mode: CompareAndSet})
	r.read(0, r.c1, 1, v1, 0)
	r.read(5*ms, r.c2, 1, v2, 0)
	r.write(10*ms, r.c2, 2, 1, 102, v2, 0)
	r.write(20*ms, r.c1, 2, 1, 101, v1, 0)
	r.w.RunAll()
	assert.Equal(t, []string{"c2 102 ok", "c1 101 not owner: lock aaaa != owner bbbb"}, r.writes())
	assert.Equal(t, proto.NotOwner, r.c1.Reply(2).Err)
	assert.Equal(t, []uint64{102}, r.res.Final())
	assert.Equal(t, uint64(v2), r.res.Owner())
}

// The claim goes to the latest reader, stale or not: a paused holder that
// reads after the new holder takes the claim back and is accepted. No
// update is lost (it wrote on top of what it read), but its write was stale.
func TestCompareAndSetLatestReaderWins(t *testing.T) {
	const v1, v2 = 0xaaaa, 0xbbbb
	r := newRig(t, Config{Mode: CompareAndSet})
	r.read(0, r.c2, 1, v2, 0)
	r.read(5*ms, r.c1, 1, v1, 0)
	r.write(10*ms, r.c2, 2, 1, 102, v2, 0)
	r.write(20*ms, r.c1, 2, 1, 101, v1, 0)
	r.w.RunAll()
	assert.Equal(t, []string{"c2 102 not owner: lock bbbb != owner aaaa", "c1 101 ok"}, r.writes())
	assert.Equal(t, []uint64{101}, r.res.Final())
}

// Versions form a tree: a write based on version v creates a child of v and
// makes it current; a version's set is its path to the root.
func TestVersionsArePathsToTheRoot(t *testing.T) {
	res := New(Config{Mode: Unprotected})
	w, _, c := actortest.Single(t, true, "resource", res)
	steps := []struct {
		base, elem uint64
		set        []uint64
		drops      string
	}{
		{0, 50, []uint64{50}, ""},
		{1, 20, []uint64{20, 50}, ""},
		{1, 30, []uint64{30, 50}, "[20]"},     // sibling of 2: drops 20
		{2, 40, []uint64{20, 40, 50}, "[30]"}, // back on 2's branch
		{0, 10, []uint64{10}, "[20 40 50]"},   // from the root
		{4, 50, []uint64{20, 40, 50}, "[10]"}, // 50 again: a set, not a list
		{5, 20, []uint64{10, 20}, "[40 50]"},  // 20 is written again: not dropped
	}
	for i, s := range steps {
		req := uint64(i + 1)
		c.Send(time.Duration(i)*ms, "resource", proto.Msg{Kind: proto.ResourceWrite, Req: req, Int: int64(s.base), Value: s.elem})
	}
	w.RunAll()
	require.Equal(t, len(steps)+1, res.Versions())
	assert.Equal(t, []uint64{}, res.Set(0))
	var writes []string
	for _, line := range w.TraceLines() {
		if strings.Contains(line, "resource write") {
			writes = append(writes, line)
		}
	}
	require.Len(t, writes, len(steps))
	for i, s := range steps {
		v := int64(i + 1)
		assert.Equal(t, v, c.Reply(uint64(v)).Int, "step %d", i)
		assert.Equal(t, s.set, res.Set(v), "set of version %d", v)
		_, drops, _ := strings.Cut(writes[i], "drops=")
		assert.Equal(t, s.drops, strings.Trim(drops, `"`), "step %d: %s", i, writes[i])
	}
	assert.Equal(t, res.Set(int64(len(steps))), res.Final())
}

func TestFinalIsSorted(t *testing.T) {
	res := New(Config{Mode: Unprotected})
	w, _, c := actortest.Single(t, false, "resource", res)
	for i, e := range []uint64{9, 3, 1 << 60, 7, 1} {
		c.Send(time.Duration(i)*ms, "resource", proto.Msg{Kind: proto.ResourceWrite, Req: uint64(i), Int: int64(i), Value: e})
	}
	w.RunAll()
	assert.Equal(t, []uint64{1, 3, 7, 9, 1 << 60}, res.Final())
	assert.True(t, slices.IsSorted(res.Final()))
}

// With a service time, requests are served one at a time in arrival order,
// each taking ServiceTime on the resource's monotonic clock, and take effect
// when their service ends.
func TestServiceTimeQueuesOnTheMonotonicClock(t *testing.T) {
	w := actortest.New(t, 1, false)
	res := New(Config{Mode: Unprotected, ServiceTime: 10 * ms})
	spec := clocks.Spec{RatePPM: 50_000, Offset: time.Hour} // 5% fast; the wall offset must not matter
	renv := w.Add("resource", res, spec)
	c1, c2 := w.AddProbe("c1"), w.AddProbe("c2")
	w.Start()
	c1.Send(0, "resource", proto.Msg{Kind: proto.ResourceWrite, Req: 1, Int: 0, Value: 5})
	c2.Send(0, "resource", proto.Msg{Kind: proto.ResourceRead, Req: 1})
	c1.Send(40*ms, "resource", proto.Msg{Kind: proto.ResourceRead, Req: 2})
	w.RunAll()

	mono := renv.Clocks().Mono
	first := mono.When(10*ms, 0)
	second := mono.When(20*ms, 0)
	third := mono.When(mono.Local(40*ms)+10*ms, 40*ms)
	assert.Less(t, first, 10*ms, "a fast clock ends the service early in true time")
	assert.Equal(t, first, c1.Reply(1).At)
	assert.Equal(t, second, c2.Reply(1).At)
	assert.Equal(t, int64(1), c2.Reply(1).Int, "the read queued behind the write sees it")
	assert.Equal(t, third, c1.Reply(2).At)
	assert.Equal(t, first, w.Observed("resource", proto.WriteDone)[0].At)
	assert.Equal(t, 0, res.Queued())
}

func TestModeParsesWhatItPrints(t *testing.T) {
	for m := Unprotected; m < maxMode; m++ {
		got, err := ParseMode(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, got)
		var u Mode
		text, err := m.MarshalText()
		require.NoError(t, err)
		require.NoError(t, u.UnmarshalText(text))
		assert.Equal(t, m, u)
	}
	for _, s := range []string{"", "Fencing", "cas", "Mode(1)"} {
		_, err := ParseMode(s)
		assert.Error(t, err, "%q", s)
	}
	assert.Equal(t, "Mode(0)", Mode(0).String())
	_, err := Mode(0).MarshalText()
	assert.Error(t, err)
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Mode: Fencing, FenceWritesOnly: true, ServiceTime: ms}, ""},
		{Config{}, "resource mode 0 is not one of"},
		{Config{Mode: maxMode}, "resource mode 4 is not one of"},
		{Config{Mode: Unprotected, FenceWritesOnly: true}, "fence-writes-only needs mode fencing, not unprotected"},
		{Config{Mode: Unprotected, ServiceTime: -1}, "resource service time -1ns is negative"},
	} {
		err := tc.cfg.Validate()
		if tc.want == "" {
			assert.NoError(t, err)
			continue
		}
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	assert.Panics(t, func() { New(Config{}) })
}

func TestMisusePanics(t *testing.T) {
	w := actortest.New(t, 1, false)
	res := New(Config{Mode: Unprotected})
	env := w.Add("resource", res, clocks.Spec{})
	c := w.AddProbe("c1")
	assert.PanicsWithValue(t, "resource: unexpected GET from c1", func() {
		res.Handle(env, c.Proc().Self(), proto.Msg{Kind: proto.Get})
	})
	assert.PanicsWithValue(t, "resource: c1 writes element 4 based on version 1, which was never issued (current 0)", func() {
		res.Handle(env, c.Proc().Self(), proto.Msg{Kind: proto.ResourceWrite, Int: 1, Value: 4})
	})
	assert.Panics(t, func() { res.OnTimer(env, tagService) })
	assert.Panics(t, func() { res.Set(1) })
}

// Every read is observed with the reader's credentials: the checker needs
// to know when a newer holder first reached the resource.
func TestReadsAreObserved(t *testing.T) {
	r := newRig(t, Config{Mode: Fencing})
	r.read(0, r.c1, 1, 7, 33)
	r.read(5*ms, r.c2, 2, 8, 34)
	r.w.Run(time.Second)
	obs := r.w.Observed("resource", proto.ReadDone)
	require.Len(t, obs, 2)
	assert.Equal(t, proto.Observation{Kind: proto.ReadDone, OK: true, Lock: 7, Token: 33, Peer: r.c1.Proc().Self()}, obs[0].Observation)
	assert.Equal(t, proto.Observation{Kind: proto.ReadDone, OK: true, Lock: 8, Token: 34, Peer: r.c2.Proc().Self()}, obs[1].Observation)
}
