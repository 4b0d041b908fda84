package resource

import (
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// bareEnv drives a Resource directly, without a kernel or a network: it
// keeps the last reply, the last observation and, when tracing, the last
// trace record's fields. With ServiceTime 0 the resource needs nothing
// else; the other methods panic.
type bareEnv struct {
	tracing bool
	sent    proto.Msg
	seen    proto.Observation
	kind    string
	fields  []sim.Field
}

var _ proto.Env = (*bareEnv)(nil)

func (e *bareEnv) Self() network.Endpoint                { return 0 }
func (e *bareEnv) Name() string                          { return "resource" }
func (e *bareEnv) NameOf(id network.Endpoint) string     { return fmt.Sprintf("c%d", id) }
func (e *bareEnv) Send(to network.Endpoint, m proto.Msg) { e.sent = m }
func (e *bareEnv) Observe(o proto.Observation)           { e.seen = o }
func (e *bareEnv) Tracing() bool                         { return e.tracing }
func (e *bareEnv) Trace(kind string, f ...sim.Field)     { e.kind, e.fields = kind, f }
func (e *bareEnv) Lookup(string) (network.Endpoint, bool) {
	panic("bareEnv: Lookup")
}
func (e *bareEnv) Read(proto.Clock) time.Duration { panic("bareEnv: Read") }
func (e *bareEnv) SetTimer(proto.Clock, time.Duration, uint64) proto.TimerID {
	panic("bareEnv: SetTimer")
}
func (e *bareEnv) After(time.Duration, uint64) proto.TimerID { panic("bareEnv: After") }
func (e *bareEnv) Cancel(proto.TimerID) bool                 { panic("bareEnv: Cancel") }
func (e *bareEnv) Rand() *sim.Stream                         { panic("bareEnv: Rand") }

// field returns the value of the last trace record's field named key, or
// "" if it has none.
func (e *bareEnv) field(key string) string {
	for _, f := range e.fields {
		if f.Key == key {
			return f.Value
		}
	}
	return ""
}
