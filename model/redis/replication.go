package redis

import (
	"time"

	"github.com/redlocksim/redlocksim/model/internal/fifo"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// Replication operations, carried in Msg.Req of a ReplicaWrite (which has no
// request to name). Every ReplicaWrite carries the master's offset in Int;
// the write ops carry Key, Value and the absolute Expire on the master's
// wall clock (NoExpiry for none).
const (
	opSetLock   uint64 = 1 + iota // Key = lock value Value, expiring at Expire
	opSetInt                      // Key = integer int64(Value), expiring at Expire
	opDel                         // Key deleted by a command
	opExpired                     // Key expired on the master
	opSyncStart                   // full sync at offset Int: the keys follow
	opSyncEnd                     // full sync done
)

// replica is the master's view of one replica.
type replica struct {
	ep      network.Endpoint
	ack     int64         // highest offset acknowledged since its full sync; -1 before
	lastAck time.Duration // monotonic reading at the last acknowledgement
	online  bool          // has acknowledged since its full sync
}

type shipment struct {
	due time.Duration // monotonic
	m   proto.Msg
}

type waiter struct {
	from   network.Endpoint
	req    uint64
	target int64 // the master's offset when WAIT ran
	need   int64
	timer  proto.TimerID
	gen    uint32
	active bool
}

// replication is the volatile replication state; a crash resets it.
type replication struct {
	// master side
	offset    int64
	replicas  []replica
	outbox    fifo.Queue[shipment]
	shipTimer proto.TimerID
	waiters   []waiter

	// replica side
	applied      int64
	syncing      bool // between opSyncStart and opSyncEnd
	awaitingSync bool // announced, no opSyncStart yet: ignore the write stream
	ackTimer     proto.TimerID

	nextFsync time.Duration
}

func (r *replication) reset() {
	r.outbox.Clear()
	*r = replication{
		replicas: r.replicas[:0],
		outbox:   r.outbox,
		waiters:  r.waiters[:0],
	}
}

// replicate logs one write at the master and ships it to the replicas after
// ReplicationDelay. A replica replicates nothing (no chained replication).
func (n *Node) replicate(env proto.Env, op uint64, key string, val uint64, expire time.Duration) {
	r := &n.repl
	if n.role != Master {
		return
	}
	r.offset++
	if len(r.replicas) == 0 {
		return // a replica that joins later gets the write in its full sync
	}
	m := proto.Msg{Kind: proto.ReplicaWrite, Req: op, Key: key, Value: val, Expire: expire, Int: r.offset}
	if n.cfg.ReplicationDelay == 0 {
		n.shipNow(env, m)
		return
	}
	due := env.Read(proto.Mono) + n.cfg.ReplicationDelay
	r.outbox.Push(shipment{due: due, m: m})
	if r.outbox.Len() == 1 {
		r.shipTimer = env.SetTimer(proto.Mono, due, tagShip)
	}
}

func (n *Node) ship(env proto.Env) {
	r := &n.repl
	r.shipTimer = proto.TimerID{}
	now := env.Read(proto.Mono)
	for r.outbox.Len() > 0 && r.outbox.Front().due <= now {
		n.shipNow(env, r.outbox.Pop().m)
	}
	if r.outbox.Len() > 0 {
		r.shipTimer = env.SetTimer(proto.Mono, r.outbox.Front().due, tagShip)
	}
}

func (n *Node) shipNow(env proto.Env, m proto.Msg) {
	for _, rp := range n.repl.replicas {
		env.Send(rp.ep, m)
	}
}

// onAck handles a replica's acknowledgement. Int -1 announces a replica
// that wants a full sync; so does any acknowledgement from a replica the
// master does not know (it restarted, or the replica followed another
// master): its offset means nothing here.
func (n *Node) onAck(env proto.Env, from network.Endpoint, off int64) {
	r := &n.repl
	if n.role != Master {
		return
	}
	i := -1
	for j := range r.replicas {
		if r.replicas[j].ep == from {
			i = j
		}
	}
	if off < 0 || i < 0 {
		if i < 0 {
			r.replicas = append(r.replicas, replica{ep: from})
			i = len(r.replicas) - 1
		}
		r.replicas[i].ack, r.replicas[i].online = -1, false
		n.fullSync(env, from)
		return
	}
	rp := &r.replicas[i]
	rp.ack = max(rp.ack, off)
	rp.lastAck = env.Read(proto.Mono)
	rp.online = true
	n.checkWaiters(env)
}

// fullSync sends the whole keyspace to one replica, tagged with the current
// offset. Writes still waiting in the outbox carry offsets at or below it,
// and the replica skips them.
func (n *Node) fullSync(env proto.Env, to network.Endpoint) {
	now := env.Read(proto.Wall)
	for i := range n.keys {
		if n.keys[i].used() && now >= n.keys[i].expire {
			n.remove(env, i, true)
		}
	}
	off := n.repl.offset
	if env.Tracing() {
		story.Trace(env, story.SendFullSync{To: env.NameOf(to), Offset: story.Text(off), Keys: story.Text(n.count())})
	}
	env.Send(to, proto.Msg{Kind: proto.ReplicaWrite, Req: opSyncStart, Int: off})
	for _, e := range n.keys {
		if !e.used() {
			continue
		}
		op := opSetLock
		if e.kind == intValue {
			op = opSetInt
		}
		env.Send(to, proto.Msg{Kind: proto.ReplicaWrite, Req: op, Key: e.key, Value: e.val, Expire: e.expire, Int: off})
	}
	env.Send(to, proto.Msg{Kind: proto.ReplicaWrite, Req: opSyncEnd, Int: off})
}

// applyWrite applies one message of the master's stream on a replica.
// Writes apply in offset order; a gap (a write lost to a partition) makes
// the replica ask for a full sync, as a broken PSYNC stream does.
func (n *Node) applyWrite(env proto.Env, from network.Endpoint, m proto.Msg) {
	r := &n.repl
	if n.role != Replica || from != n.master {
		return // a stale master's stream
	}
	switch op := m.Req; op {
	case opSyncStart:
		for i := range n.keys {
			n.keys[i].stale = n.keys[i].used()
		}
		r.syncing, r.awaitingSync, r.applied = true, false, m.Int
	case opSyncEnd:
		if !r.syncing || m.Int != r.applied {
			return
		}
		for i := range n.keys {
			if n.keys[i].stale {
				n.remove(env, i, false)
			}
		}
		r.syncing = false
		if env.Tracing() {
			story.Trace(env, story.Sync{Master: env.NameOf(from), Offset: story.Text(r.applied), Keys: story.Text(n.count())})
		}
		n.ack(env)
	default:
		if r.syncing {
			if m.Int == r.applied {
				n.applyOp(env, m)
			}
			return
		}
		if r.awaitingSync || m.Int <= r.applied {
			return
		}
		if m.Int > r.applied+1 {
			if env.Tracing() {
				story.Trace(env, story.GapInReplication{Applied: story.Text(r.applied), Got: story.Text(m.Int)})
			}
			n.requestSync(env)
			return
		}
		n.applyOp(env, m)
		r.applied = m.Int
		n.ack(env)
	}
}

// applyOp applies one write. The expiry is the master's absolute wall-clock
// time, read against this node's own wall clock (Redis 7 semantics).
func (n *Node) applyOp(env proto.Env, m proto.Msg) {
	i := find(n.keys, m.Key)
	switch m.Req {
	case opSetLock, opSetInt:
		if env.Read(proto.Wall) >= m.Expire {
			if i >= 0 {
				n.remove(env, i, true)
			}
			return
		}
		kind := lockValue
		if m.Req == opSetInt {
			kind = intValue
		}
		n.store(env, m.Key, kind, m.Value, m.Expire)
	case opDel, opExpired:
		if i >= 0 {
			n.remove(env, i, m.Req == opExpired)
		}
	}
}

func (n *Node) ack(env proto.Env) {
	env.Send(n.master, proto.Msg{Kind: proto.ReplicaAck, Int: n.repl.applied})
}

func (n *Node) requestSync(env proto.Env) {
	r := &n.repl
	r.awaitingSync, r.syncing = true, false
	for i := range n.keys {
		n.keys[i].stale = false
	}
	env.Send(n.master, proto.Msg{Kind: proto.ReplicaAck, Int: -1})
}

// startReplica begins following n.master: announce, then acknowledge every
// AckEvery.
func (n *Node) startReplica(env proto.Env) {
	n.repl.applied = 0
	n.requestSync(env)
	env.Cancel(n.repl.ackTimer)
	n.repl.ackTimer = env.After(AckEvery, tagAck)
}

func (n *Node) ackTick(env proto.Env) {
	r := &n.repl
	r.ackTimer = proto.TimerID{}
	if n.role != Replica {
		return
	}
	switch {
	case r.awaitingSync:
		env.Send(n.master, proto.Msg{Kind: proto.ReplicaAck, Int: -1})
	case !r.syncing:
		n.ack(env)
	}
	r.ackTimer = env.After(AckEvery, tagAck)
}

// replicaOf handles REPLICAOF: target < 0 promotes, otherwise the node
// follows endpoint target and full-syncs from it.
func (n *Node) replicaOf(env proto.Env, target int64) {
	r := &n.repl
	if target < 0 {
		if n.role == Master {
			return
		}
		if env.Tracing() {
			story.Trace(env, story.BePromoted{WasReplicaOf: env.NameOf(n.master), Offset: story.Text(r.applied)})
		}
		n.role, n.master = Master, -1
		r.offset = r.applied
		r.syncing, r.awaitingSync = false, false
		for i := range n.keys {
			n.keys[i].stale = false
		}
		env.Cancel(r.ackTimer)
		r.ackTimer = proto.TimerID{}
		return
	}
	ep := network.Endpoint(target)
	if ep == env.Self() || (n.role == Replica && n.master == ep) {
		return
	}
	if n.role == Master {
		n.stopMaster(env)
	}
	n.role, n.master = Replica, ep
	if env.Tracing() {
		story.Trace(env, story.Replicate{Master: env.NameOf(ep)})
	}
	n.startReplica(env)
}

// stopMaster ends the master's duties when it becomes a replica: blocked
// WAITs are answered with what they have, unshipped writes are dropped
// (the full sync that follows discards them anyway), replicas forgotten.
func (n *Node) stopMaster(env proto.Env) {
	r := &n.repl
	for i := range r.waiters {
		if w := &r.waiters[i]; w.active {
			env.Cancel(w.timer)
			n.answerWait(env, i)
		}
	}
	r.waiters = r.waiters[:0]
	env.Cancel(r.shipTimer)
	r.shipTimer = proto.TimerID{}
	r.outbox.Clear()
	r.replicas = r.replicas[:0]
}

// goodReplicas counts the replicas that acknowledged within
// MinReplicasMaxLag.
func (n *Node) goodReplicas(env proto.Env) int {
	now := env.Read(proto.Mono)
	c := 0
	for _, rp := range n.repl.replicas {
		if rp.online && now-rp.lastAck <= n.cfg.MinReplicasMaxLag {
			c++
		}
	}
	return c
}

func (n *Node) acked(target int64) int64 {
	var c int64
	for _, rp := range n.repl.replicas {
		if rp.ack >= target {
			c++
		}
	}
	return c
}

// wait runs WAIT numreplicas timeout: it answers once numreplicas replicas
// have acknowledged every write logged before it, or at the timeout (on
// the monotonic clock; 0 blocks until enough acknowledge).
func (n *Node) wait(env proto.Env, from network.Endpoint, m proto.Msg) {
	r := &n.repl
	target := r.offset
	if c := n.acked(target); c >= m.Int || m.TTL < 0 {
		env.Send(from, proto.Msg{Kind: proto.Reply, Req: m.Req, OK: true, Int: c})
		return
	}
	i := -1
	for j := range r.waiters {
		if !r.waiters[j].active {
			i = j
			break
		}
	}
	if i < 0 {
		r.waiters = append(r.waiters, waiter{})
		i = len(r.waiters) - 1
	}
	w := &r.waiters[i]
	w.from, w.req, w.target, w.need, w.active = from, m.Req, target, m.Int, true
	w.gen++
	w.timer = proto.TimerID{}
	if m.TTL > 0 {
		w.timer = env.After(m.TTL, slotTag(tagWait, i, w.gen))
	}
}

func (n *Node) checkWaiters(env proto.Env) {
	for i := range n.repl.waiters {
		w := &n.repl.waiters[i]
		if w.active && n.acked(w.target) >= w.need {
			env.Cancel(w.timer)
			n.answerWait(env, i)
		}
	}
}

func (n *Node) waitTimeout(env proto.Env, tag uint64) {
	i, gen := untagSlot(tag)
	if i < len(n.repl.waiters) && n.repl.waiters[i].active && n.repl.waiters[i].gen == gen {
		n.answerWait(env, i)
	}
}

func (n *Node) answerWait(env proto.Env, i int) {
	w := &n.repl.waiters[i]
	w.active = false
	w.timer = proto.TimerID{}
	env.Send(w.from, proto.Msg{Kind: proto.Reply, Req: w.req, OK: true, Int: n.acked(w.target)})
}
