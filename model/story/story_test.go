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
		{sim.Record{Actor: "x", Kind: "something-new", Fields: []sim.Field{sim.F("a", 1)}}, "something-new a=1"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Sentence(c.rec))
	}
}
