package story

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redlocksim/redlocksim/sim"
)

func TestSentences(t *testing.T) {
	cases := []struct {
		rec  sim.Record
		want string
	}{
		{sim.Record{Actor: "c1", Kind: "pauses", Fields: []sim.Field{sim.F("why", "GC"), sim.F("for", 15*time.Second)}}, "pauses (GC) for 15s"},
		{sim.Record{Actor: "n3", Kind: "clock-step", Fields: []sim.Field{sim.F("by", 2*time.Second)}}, "wall clock steps +2s"},
		{sim.Record{Actor: "n3", Kind: "expires", Fields: []sim.Field{sim.F("key", "lock"), sim.F("value", uint64(1<<40|1))}}, "expires the lock key (value c1#1)"},
		{sim.Record{Actor: "c2", Kind: "acquires", Fields: []sim.Field{sim.F("nodes", "n3,n4,n5"), sim.F("validity", 9890123456*time.Nanosecond), sim.F("value", "0x20000000001")}},
			"acquires the lock on n3,n4,n5 (validity 9.890123s, value c2#1)"},
		{sim.Record{Actor: "c2", Kind: "acquires", Fields: []sim.Field{sim.F("nodes", "store"), sim.F("validity", time.Second), sim.F("value", "0x20000000001")}},
			"acquires the lock from the store (validity 1s, value c2#1)"},
		{sim.Record{Actor: "resource", Kind: "reject", Fields: []sim.Field{sim.F("by", "c1"), sim.F("reason", "token 33 < 34")}}, "rejects c1's write: token 33 < 34"},
		{sim.Record{Actor: "resource", Kind: "write", Fields: []sim.Field{sim.F("by", "c1"), sim.F("element", uint64(1<<40|2)), sim.F("version", 2), sim.F("drops", "[2199023255554]")}},
			"accepts c1's write (element c1#2, version 2); the update of c2#2 is lost"},
		// A restart names what it lost, expired and reloaded; a start
		// without those fields reads as it always did.
		{start("master", 0, "none"), "starts as master with an empty keyspace (persistence none)"},
		{start("replica", 1, "always"), "starts as replica with 1 key (persistence always)"},
		{start("master", 3, "everysec"), "starts as master with 3 keys (persistence everysec)"},
		{start("master", 0, "none", sim.F("lost", "1099511627777 1099511627778")),
			"starts as master with an empty keyspace (persistence none); has lost values c1#1, c1#2 (never on disk)"},
		{start("master", 1, "everysec", sim.F("lost", "2199023255554"), sim.F("reloaded", "1099511627777")),
			"starts as master with 1 key (persistence everysec); has lost value c2#2 (not fsynced); reloads value c1#1"},
		{start("master", 0, "always", sim.F("expired", "1099511627779")),
			"starts as master with an empty keyspace (persistence always); expires value c1#3 on load"},
		{start("master", 2, "always", sim.F("reloaded", "1099511627777 7")),
			"starts as master with 2 keys (persistence always); reloads values c1#1, 7"},
		{sim.Record{Actor: "x", Kind: "something-new", Fields: []sim.Field{sim.F("a", 1)}}, "something-new a=1"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Sentence(c.rec))
	}
}

// start is a node's starts record: its role, key count and persistence,
// then whatever restart fields the case adds.
func start(role string, keys int, persistence string, extra ...sim.Field) sim.Record {
	f := append([]sim.Field{sim.F("role", role), sim.F("keys", keys), sim.F("persistence", persistence)}, extra...)
	return sim.Record{Actor: "n1", Kind: "starts", Fields: f}
}

// TestExcerptTellsAForgettingStart: a violation's excerpt shows the start
// at which a restart lost or expired a lock value, and leaves a plain
// start, or one that only reloaded, to the full trace.
func TestExcerptTellsAForgettingStart(t *testing.T) {
	cases := []struct {
		rec  sim.Record
		told bool
	}{
		{start("master", 0, "none"), false},
		{start("master", 1, "always", sim.F("reloaded", "1099511627777")), false},
		{start("master", 0, "none", sim.F("lost", "1099511627777")), true},
		{start("master", 0, "always", sim.F("expired", "1099511627779")), true},
	}
	for _, c := range cases {
		e, ok := Event(c.rec)
		assert.Equal(t, c.told, ok, Sentence(c.rec))
		if ok {
			assert.Equal(t, "n1 "+Sentence(c.rec), e.Text)
		}
	}
	ex := Excerpts([]sim.Record{start("master", 0, "none"), start("master", 0, "none", sim.F("lost", "1099511627777"))})
	if assert.Len(t, ex, 1) {
		assert.Contains(t, ex[0].Text, "has lost value c1#1")
	}
}
