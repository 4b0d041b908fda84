package redis

import (
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// manualEnv is an Env whose clocks the test sets and whose timers never fire
// unless the test fires them: it isolates the access-time expiry check from
// the expiry timer.
type manualEnv struct {
	wall, mono time.Duration
	sent       []proto.Msg
	timers     []uint64 // tags set, in order
	obs        []proto.Observation
}

func (e *manualEnv) Self() network.Endpoint                 { return 0 }
func (e *manualEnv) Name() string                           { return "n1" }
func (e *manualEnv) Lookup(string) (network.Endpoint, bool) { return 0, false }
func (e *manualEnv) NameOf(network.Endpoint) string         { return "c1" }
func (e *manualEnv) Send(_ network.Endpoint, m proto.Msg)   { e.sent = append(e.sent, m) }
func (e *manualEnv) Cancel(proto.TimerID) bool              { return false }
func (e *manualEnv) Rand() *sim.Stream                      { return nil }
func (e *manualEnv) Observe(o proto.Observation)            { e.obs = append(e.obs, o) }
func (e *manualEnv) Tracing() bool                          { return false }
func (e *manualEnv) Trace(string, ...sim.Field)             {}
func (e *manualEnv) After(d time.Duration, tag uint64) proto.TimerID {
	return e.SetTimer(proto.Mono, e.mono+d, tag)
}
func (e *manualEnv) Read(c proto.Clock) time.Duration {
	if c == proto.Wall {
		return e.wall
	}
	return e.mono
}
func (e *manualEnv) SetTimer(_ proto.Clock, _ time.Duration, tag uint64) proto.TimerID {
	e.timers = append(e.timers, tag)
	return proto.TimerID{}
}

// serve delivers m and fires the service timer at the current clocks.
func (e *manualEnv) serve(n *Node, m proto.Msg) proto.Msg {
	n.Handle(e, 1, m)
	n.OnTimer(e, tagService)
	return e.sent[len(e.sent)-1]
}

func TestExpiryCheckedOnEveryAccess(t *testing.T) {
	n := New(Config{})
	e := &manualEnv{wall: 1000}
	n.Start(e)
	if r := e.serve(n, proto.Msg{Kind: proto.SetNX, Req: 1, Key: "lock", Value: 7, TTL: 50}); !r.OK {
		t.Fatalf("SET NX: got %+v, want OK", r)
	}
	var expTag uint64
	for _, tag := range e.timers {
		if tag&^(1<<tagShift-1) == tagExpire {
			expTag = tag
		}
	}
	if expTag == 0 {
		t.Fatal("no expiry timer was set")
	}

	e.wall = 1049
	if r := e.serve(n, proto.Msg{Kind: proto.Get, Req: 2, Key: "lock"}); !r.OK || r.Value != 7 {
		t.Fatalf("GET 1ns before the expiry: got %+v, want value 7", r)
	}
	e.wall = 1050 // the timer has not fired: the access alone must see the expiry
	if r := e.serve(n, proto.Msg{Kind: proto.Get, Req: 3, Key: "lock"}); r.OK {
		t.Fatalf("GET at the expiry: got %+v, want absent", r)
	}
	if len(e.obs) != 2 || e.obs[1].Kind != proto.KeyGone || !e.obs[1].OK || e.obs[1].Lock != 7 {
		t.Fatalf("observations: got %+v, want KeySet then KeyGone(expired, 7)", e.obs)
	}
	// The stale expiry timer fires late: nothing more happens.
	n.OnTimer(e, expTag)
	if len(e.obs) != 2 {
		t.Fatalf("a stale expiry timer observed again: %+v", e.obs)
	}
	// A new key in the same slot is not expired by the old timer.
	if r := e.serve(n, proto.Msg{Kind: proto.SetNX, Req: 4, Key: "lock", Value: 8, TTL: 50}); !r.OK {
		t.Fatalf("SET NX after expiry: got %+v", r)
	}
	n.OnTimer(e, expTag)
	if v, _, ok := n.Value("lock", e.wall); !ok || v != 8 {
		t.Fatalf("after a stale timer: got %d %v, want 8 present", v, ok)
	}
}
