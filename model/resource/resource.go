package resource

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/redlocksim/redlocksim/model/internal/fifo"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// tagService is the only timer tag the resource uses: the end of the
// current request's service.
const tagService uint64 = 1

// version is one node of the persistent version tree. Version 0 is the
// root, the empty set; every other version adds elem to its parent's set.
type version struct {
	parent uint32
	depth  uint32 // number of versions on the path to the root, root excluded
	elem   uint64
}

// request is a message waiting for service.
type request struct {
	from network.Endpoint
	m    proto.Msg
}

// Stats counts what the resource served.
type Stats struct {
	Reads    uint64
	Accepted uint64 // writes accepted
	Rejected uint64 // writes rejected (stale token or not owner)
}

// Resource is the protected storage, a proto.Actor. Create one with New.
type Resource struct {
	cfg      Config
	versions []version
	cur      uint32 // the current version
	highest  uint64 // Fencing: the highest token seen
	owner    uint64 // CompareAndSet: the lock value of the latest reader

	// Requests waiting for service (ServiceTime > 0 only). The head is in
	// service, so the resource is busy exactly when the queue is not empty.
	queue fifo.Queue[request]

	stats Stats
}

var _ proto.Actor = (*Resource)(nil)

// New returns an empty resource (version 0, no elements). An invalid config
// is API misuse and panics: validate it first.
func New(cfg Config) *Resource {
	if err := cfg.Validate(); err != nil {
		panic("resource: " + err.Error())
	}
	return &Resource{cfg: cfg, versions: make([]version, 1, 64)}
}

// Start does nothing: the resource has no timers of its own until a request
// arrives, and it never crashes.
func (r *Resource) Start(env proto.Env) {}

// Handle serves ResourceRead and ResourceWrite, at once or, with a service
// time, when their turn comes. Any other kind is a bug in the sender and
// panics.
func (r *Resource) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	if m.Kind != proto.ResourceRead && m.Kind != proto.ResourceWrite {
		panic(fmt.Sprintf("resource: unexpected %v from %s", m.Kind, env.NameOf(from)))
	}
	if r.cfg.ServiceTime == 0 {
		r.serve(env, from, m)
		return
	}
	r.queue.Push(request{from: from, m: m})
	if r.queue.Len() == 1 {
		env.After(r.cfg.ServiceTime, tagService)
	}
}

// OnTimer ends the service of the request at the head of the queue.
func (r *Resource) OnTimer(env proto.Env, tag uint64) {
	if tag != tagService || r.queue.Len() == 0 {
		panic(fmt.Sprintf("resource: broken invariant: timer %d with %d queued", tag, r.queue.Len()))
	}
	q := r.queue.Pop()
	r.serve(env, q.from, q.m)
	if r.queue.Len() > 0 {
		env.After(r.cfg.ServiceTime, tagService)
	}
}

func (r *Resource) serve(env proto.Env, from network.Endpoint, m proto.Msg) {
	if m.Kind == proto.ResourceRead {
		r.read(env, from, m)
	} else {
		r.write(env, from, m)
	}
}

func (r *Resource) read(env proto.Env, from network.Endpoint, m proto.Msg) {
	r.stats.Reads++
	switch r.cfg.Mode {
	case Fencing:
		if !r.cfg.FenceWritesOnly {
			r.highest = max(r.highest, m.Token)
		}
	case CompareAndSet:
		r.owner = m.Lock
	}
	env.Observe(proto.Observation{Kind: proto.ReadDone, OK: true, Lock: m.Lock, Token: m.Token, Peer: from})
	if env.Tracing() {
		env.Trace(story.Read, r.credentials(env.NameOf(from), m,
			sim.F("version", r.cur), sim.F("size", r.versions[r.cur].depth))...)
	}
	env.Send(from, proto.Msg{Kind: proto.ResourceReply, Req: m.Req, OK: true, Int: int64(r.cur)})
}

func (r *Resource) write(env proto.Env, from network.Endpoint, m proto.Msg) {
	if m.Int < 0 || m.Int >= int64(len(r.versions)) {
		panic(fmt.Sprintf("resource: %s writes element %d based on version %d, which was never issued (current %d)",
			env.NameOf(from), m.Value, m.Int, r.cur))
	}
	base := uint32(m.Int)

	var refusal proto.Err
	var want uint64
	switch r.cfg.Mode {
	case Fencing:
		if m.Token < r.highest {
			refusal, want = proto.StaleToken, r.highest
		}
	case CompareAndSet:
		if m.Lock != r.owner {
			refusal, want = proto.NotOwner, r.owner
		}
	}

	obs := proto.Observation{Kind: proto.WriteDone, Lock: m.Lock, Token: m.Token, Element: m.Value, Peer: from}
	if refusal != proto.OK {
		r.stats.Rejected++
		obs.Err, obs.Want = refusal, want
		env.Observe(obs)
		if env.Tracing() {
			env.Trace(story.Reject, r.credentials(env.NameOf(from), m,
				sim.F("element", m.Value), sim.F("reason", Refusal(refusal, m.Lock, m.Token, want)))...)
		}
		env.Send(from, proto.Msg{Kind: proto.ResourceReply, Req: m.Req, Err: refusal, Int: int64(r.cur)})
		return
	}

	if len(r.versions) == math.MaxUint32 {
		panic("resource: more than 2^32 versions")
	}
	if r.cfg.Mode == Fencing {
		r.highest = max(r.highest, m.Token)
	}
	var dropped []uint64
	if env.Tracing() && base != r.cur {
		dropped = r.dropped(base, r.cur, m.Value)
	}
	r.versions = append(r.versions, version{parent: base, depth: r.versions[base].depth + 1, elem: m.Value})
	r.cur = uint32(len(r.versions) - 1)
	r.stats.Accepted++
	obs.OK = true
	env.Observe(obs)
	if env.Tracing() {
		f := r.credentials(env.NameOf(from), m, sim.F("element", m.Value), sim.F("base", base), sim.F("version", r.cur))
		if len(dropped) > 0 {
			f = append(f, sim.F("drops", dropped))
		}
		env.Trace(story.Write, f...)
	}
	env.Send(from, proto.Msg{Kind: proto.ResourceReply, Req: m.Req, OK: true, Int: int64(r.cur)})
}

// credentials starts a trace line's fields: who, and whatever of the
// request the mode looks at.
func (r *Resource) credentials(name string, m proto.Msg, more ...sim.Field) []sim.Field {
	f := make([]sim.Field, 0, 2+len(more))
	f = append(f, sim.F("by", name))
	switch r.cfg.Mode {
	case Fencing:
		f = append(f, sim.F("token", m.Token))
	case CompareAndSet:
		f = append(f, sim.F("lock", strconv.FormatUint(m.Lock, 16)))
	}
	return append(f, more...)
}

// dropped lists, sorted, the elements of version cur that a write of elem
// based on version base throws away: those neither in base's set nor elem.
// Both paths are walked up to their lowest common ancestor.
func (r *Resource) dropped(base, cur uint32, elem uint64) []uint64 {
	var lost []uint64
	kept := []uint64{elem}
	a, b := cur, base
	for a != b {
		if r.versions[a].depth >= r.versions[b].depth {
			lost = append(lost, r.versions[a].elem)
			a = r.versions[a].parent
		} else {
			kept = append(kept, r.versions[b].elem)
			b = r.versions[b].parent
		}
	}
	lost = slices.DeleteFunc(lost, func(e uint64) bool { return slices.Contains(kept, e) })
	slices.Sort(lost)
	return slices.Compact(lost)
}

// Version is the current version: the one a read now returns.
func (r *Resource) Version() int64 { return int64(r.cur) }

// Versions is the number of versions issued so far, the root included.
func (r *Resource) Versions() int { return len(r.versions) }

// Set returns the elements of version v, sorted, without duplicates (a
// client that wrote the same element twice counts once). v must have been
// issued.
func (r *Resource) Set(v int64) []uint64 {
	if v < 0 || v >= int64(len(r.versions)) {
		panic(fmt.Sprintf("resource: Set(%d) of %d versions", v, len(r.versions)))
	}
	out := make([]uint64, 0, r.versions[v].depth)
	for i := uint32(v); i != 0; i = r.versions[i].parent {
		out = append(out, r.versions[i].elem)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Final returns the elements of the current version, sorted: the
// resource's final set when the run is over.
func (r *Resource) Final() []uint64 { return r.Set(int64(r.cur)) }

// Highest is the highest fencing token seen (Fencing mode; 0 otherwise).
func (r *Resource) Highest() uint64 { return r.highest }

// Owner is the lock value of the latest reader (CompareAndSet mode; 0
// otherwise).
func (r *Resource) Owner() uint64 { return r.owner }

// Queued is the number of requests waiting for or in service.
func (r *Resource) Queued() int { return r.queue.Len() }

// Stats returns the counters.
func (r *Resource) Stats() Stats { return r.stats }

// Refusal says why a write was refused with err, from the lock and token it
// came with and the one the resource wanted (Observation.Want): the trace
// and the history say it in these words.
func Refusal(err proto.Err, lock, token, want uint64) string {
	switch err {
	case proto.StaleToken:
		return "token " + strconv.FormatUint(token, 10) + " < " + strconv.FormatUint(want, 10)
	case proto.NotOwner:
		return "lock " + strconv.FormatUint(lock, 16) + " != owner " + strconv.FormatUint(want, 16)
	}
	return err.String()
}
