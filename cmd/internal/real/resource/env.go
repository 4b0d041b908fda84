package resource

import (
	"time"

	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// env is the proto.Env the model resource runs in here: it names clients,
// and catches the one reply and the one observation of each request. The
// resource runs with ServiceTime 0, so it sets no timer, and tracing is
// off, so it writes no narration; the other methods are never called and
// panic if they are.
type env struct {
	ids   map[string]network.Endpoint
	names []string
	sent  []proto.Msg
	seen  []proto.Observation
}

var _ proto.Env = (*env)(nil)

// endpoint returns client's endpoint, making one on first sight. The
// resource itself is endpoint 0, as its own Self.
func (e *env) endpoint(client string) network.Endpoint {
	if id, ok := e.ids[client]; ok {
		return id
	}
	if e.names == nil {
		e.names = []string{"resource"}
	}
	id := network.Endpoint(len(e.names))
	e.names = append(e.names, client)
	e.ids[client] = id
	return id
}

func (e *env) reset() { e.sent, e.seen = e.sent[:0], e.seen[:0] }

func (e *env) Self() network.Endpoint                      { return 0 }
func (e *env) Name() string                                { return "resource" }
func (e *env) NameOf(id network.Endpoint) string           { return e.names[id] }
func (e *env) Send(to network.Endpoint, m proto.Msg)       { e.sent = append(e.sent, m) }
func (e *env) Observe(o proto.Observation)                 { e.seen = append(e.seen, o) }
func (e *env) Tracing() bool                               { return false }
func (e *env) Lookup(name string) (network.Endpoint, bool) { id, ok := e.ids[name]; return id, ok }

func (e *env) Read(proto.Clock) time.Duration { panic("resource: the model read a clock") }
func (e *env) SetTimer(proto.Clock, time.Duration, uint64) proto.TimerID {
	panic("resource: the model set a timer")
}
func (e *env) After(time.Duration, uint64) proto.TimerID { panic("resource: the model set a timer") }
func (e *env) Cancel(proto.TimerID) bool                 { panic("resource: the model cancelled a timer") }
func (e *env) Rand() *sim.Stream                         { panic("resource: the model drew a random number") }
func (e *env) Trace(string, ...sim.Field)                { panic("resource: the model traced with tracing off") }
