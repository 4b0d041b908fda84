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
)

// tagService is the only timer tag the resource uses: the end of the
// current request's service.
const tagService uint64 = 1

// Window is how many of the most recent versions the resource keeps as
// nodes of its version tree: 16 MB of them. A write may be based on any of
// them (its reply, its Dropped and Restored are exact); the set of the
// current version is kept whole besides (see elemSet), so that older
// nodes are forgotten and the memory of a run does not grow with its
// length. 1<<20 versions are about two days of the baseline scenario's
// writes: a read-modify-write staler than that is beyond what the
// simulator models, and stops the run with a *WindowError.
const Window = 1 << 20

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
	cfg Config
	// The version tree's most recent nodes: version v is nodes[v&mask]
	// while it is one of the last window versions issued. The slice grows
	// to window nodes, then older versions are overwritten.
	nodes  []version
	window uint32 // Window; a power of two; tests make it small
	issued uint32 // versions issued, the root included
	cur    uint32 // the current version
	final  elemSet
	// Scratch for the walks of diff, kept to spare a write allocations.
	lost, kept []uint64

	highest uint64 // Fencing: the highest token seen
	owner   uint64 // CompareAndSet: the lock value of the latest reader

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
	return newWindowed(cfg, Window)
}

// newWindowed is New keeping window versions, a power of two.
func newWindowed(cfg Config, window uint32) *Resource {
	if window == 0 || window&(window-1) != 0 {
		panic(fmt.Sprintf("resource: window %d is not a power of two", window))
	}
	return &Resource{cfg: cfg, window: window, nodes: make([]version, 1, min(64, window)), issued: 1}
}

// inWindow reports whether version v is one of the last window versions issued,
// whose node is still at hand.
func (r *Resource) inWindow(v uint32) bool {
	return v < r.issued && uint64(v)+uint64(r.window) >= uint64(r.issued)
}

// node is version v's node; v must be in the window.
func (r *Resource) node(v uint32) *version { return &r.nodes[v&(r.window-1)] }

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
		token, lock := r.credentials(m)
		story.Trace(env, story.ServeRead{By: env.NameOf(from), Token: token, Lock: lock, Version: story.Text(r.cur), Size: story.Text(r.node(r.cur).depth)})
	}
	env.Send(from, proto.Msg{Kind: proto.ResourceReply, Req: m.Req, OK: true, Int: int64(r.cur)})
}

func (r *Resource) write(env proto.Env, from network.Endpoint, m proto.Msg) {
	if m.Int < 0 || m.Int >= int64(r.issued) {
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
			token, lock := r.credentials(m)
			story.Trace(env, story.RejectWrite{By: env.NameOf(from), Token: token, Lock: lock, Element: story.Text(m.Value), Reason: Refusal(refusal, m.Lock, m.Token, want)})
		}
		env.Send(from, proto.Msg{Kind: proto.ResourceReply, Req: m.Req, Err: refusal, Int: int64(r.cur)})
		return
	}

	if r.issued == math.MaxUint32 {
		panic("resource: more than 2^32 versions")
	}
	if base != r.cur {
		// Walk before anything changes, so that a write the window
		// cannot judge stops the run with the resource as it was. (A
		// rejected write needs no base, and is judged whatever it is.)
		if in := r.inWindow(base); !in || !r.walk(base) {
			panic(&WindowError{Writer: env.NameOf(from), Element: m.Value, Base: base, Current: r.cur, Window: r.window, Diverged: in})
		}
		obs.Dropped, obs.Restored = r.diff()
		obs.Dropped = slices.DeleteFunc(obs.Dropped, func(e uint64) bool { return e == m.Value })
		if len(obs.Dropped) == 0 {
			obs.Dropped = nil
		}
		// The current set becomes the new version's: the lost path's
		// elements out, the base's path's in (counts, not bits, so that
		// an element on both paths, or on the common part too, stays).
		for _, e := range r.lost {
			r.final.dec(e)
		}
		for _, e := range r.kept {
			r.final.inc(e)
		}
	}
	r.final.inc(m.Value)
	if r.cfg.Mode == Fencing {
		r.highest = max(r.highest, m.Token)
	}
	n := version{parent: base, depth: r.node(base).depth + 1, elem: m.Value}
	if len(r.nodes) < int(r.window) {
		if len(r.nodes) == cap(r.nodes) {
			// Double, but never past the window: append would.
			r.nodes = append(make([]version, 0, min(2*cap(r.nodes), int(r.window))), r.nodes...)
		}
		r.nodes = append(r.nodes, n)
	} else {
		*r.node(r.issued) = n // forgets version issued-window
	}
	r.cur = r.issued
	r.issued++
	r.stats.Accepted++
	obs.OK = true
	env.Observe(obs)
	if env.Tracing() {
		token, lock := r.credentials(m)
		w := story.AcceptWrite{By: env.NameOf(from), Token: token, Lock: lock, Element: story.Text(m.Value), Base: story.Text(base), Version: story.Text(r.cur)}
		if len(obs.Dropped) > 0 {
			w.Drops = story.Text(obs.Dropped)
		}
		story.Trace(env, w)
	}
	env.Send(from, proto.Msg{Kind: proto.ResourceReply, Req: m.Req, OK: true, Int: int64(r.cur)})
}

// credentials are what of a request the mode looks at, as a trace line
// says them: the fencing token or the lock value (the other empty).
func (r *Resource) credentials(m proto.Msg) (token, lock string) {
	switch r.cfg.Mode {
	case Fencing:
		return story.Text(m.Token), ""
	case CompareAndSet:
		return "", strconv.FormatUint(m.Lock, 16)
	}
	return "", ""
}

// walk collects, in r.lost and r.kept, the elements on the paths from the
// current version and from version v up to their lowest common ancestor
// (which is not walked), and reports whether it could: every node on
// either path but the ancestor must still be in the window. v must be.
func (r *Resource) walk(v uint32) bool {
	r.lost, r.kept = r.lost[:0], r.kept[:0]
	a, b := r.cur, v
	da, db := r.node(a).depth, r.node(b).depth
	// A parent's depth is its child's minus one, so the walk reads no node
	// above those it steps from, and the ancestor may be forgotten.
	for a != b {
		if da >= db {
			if !r.inWindow(a) {
				return false
			}
			n := r.node(a)
			r.lost = append(r.lost, n.elem)
			a, da = n.parent, da-1
		} else {
			if !r.inWindow(b) {
				return false
			}
			n := r.node(b)
			r.kept = append(r.kept, n.elem)
			b, db = n.parent, db-1
		}
	}
	return true
}

// diff returns, sorted and without duplicates, after a walk to version v,
// the elements of the current set that v's set lacks (gone) and those of
// v's set that the current set lacks (back), each nil when empty. It sorts
// r.lost and r.kept. An element of the lost path is gone unless it is on
// v's path too, or on the common part: then the current set counts it
// more often than the lost path does.
func (r *Resource) diff() (gone, back []uint64) {
	slices.Sort(r.lost)
	slices.Sort(r.kept)
	for i := 0; i < len(r.lost); {
		e, j := r.lost[i], i+1
		for j < len(r.lost) && r.lost[j] == e {
			j++
		}
		if _, onV := slices.BinarySearch(r.kept, e); !onV && r.final.count(e) == uint32(j-i) {
			gone = append(gone, e)
		}
		i = j
	}
	for i, e := range r.kept {
		if (i == 0 || r.kept[i-1] != e) && !r.final.has(e) {
			back = append(back, e)
		}
	}
	return gone, back
}

// Version is the current version: the one a read now returns.
func (r *Resource) Version() int64 { return int64(r.cur) }

// Versions is the number of versions issued so far, the root included.
func (r *Resource) Versions() int { return int(r.issued) }

// Set returns the elements of version v, sorted, without duplicates (a
// client that wrote the same element twice counts once). v must have been
// issued, and be one of the last Window versions, on a branch that parted
// from the current version's within them (as a write's base must); else
// Set panics, with a *WindowError in the second case. It is O(set): use
// FinalLen and InFinal to ask about the current set without listing it.
func (r *Resource) Set(v int64) []uint64 {
	if v < 0 || v >= int64(r.issued) {
		panic(fmt.Sprintf("resource: Set(%d) of %d versions", v, r.issued))
	}
	if uint32(v) == r.cur {
		return r.final.list()
	}
	we := &WindowError{Base: uint32(v), Current: r.cur, Window: r.window}
	if !r.inWindow(uint32(v)) {
		panic(we)
	}
	if !r.walk(uint32(v)) {
		we.Diverged = true
		panic(we)
	}
	gone, back := r.diff()
	out := r.final.list()
	out = slices.DeleteFunc(out, func(e uint64) bool {
		_, ok := slices.BinarySearch(gone, e)
		return ok
	})
	out = append(out, back...)
	slices.Sort(out)
	return out
}

// Final returns the elements of the current version, sorted: the
// resource's final set when the run is over. It is O(set), a list of every
// element: a long run asks FinalLen and InFinal instead.
func (r *Resource) Final() []uint64 { return r.final.list() }

// FinalLen is the number of distinct elements of the current version's
// set, kept as writes come: O(1).
func (r *Resource) FinalLen() int { return r.final.n }

// InFinal reports whether e is in the current version's set: O(1).
func (r *Resource) InFinal(e uint64) bool { return r.final.has(e) }

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
