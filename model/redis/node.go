package redis

import (
	"fmt"
	"strconv"
	"time"
	"unsafe"

	"github.com/redlocksim/redlocksim/model/internal/fifo"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// Role is whether a node accepts writes. The zero value is invalid.
type Role uint8

const (
	_       Role = iota
	Master       // accepts writes and ships them to its replicas
	Replica      // applies its master's writes; refuses clients' writes
)

func (r Role) String() string {
	switch r {
	case Master:
		return "master"
	case Replica:
		return "replica"
	}
	return fmt.Sprintf("Role(%d)", r)
}

// Timer tags: the kind in the top byte; expiry and WAIT timers carry a slot
// (bits 32..55) and the slot's generation (bits 0..31).
const tagShift = 56

const (
	tagService = uint64(1+iota) << tagShift
	tagFsync
	tagAck
	tagShip
	tagWait
	tagExpire
)

func slotTag(kind uint64, slot int, gen uint32) uint64 {
	return kind | uint64(slot)<<32 | uint64(gen)
}

func untagSlot(tag uint64) (slot int, gen uint32) {
	return int(tag >> 32 & (1<<(tagShift-32) - 1)), uint32(tag)
}

type pending struct {
	from network.Endpoint
	m    proto.Msg
}

// Node is a simulated Redis server: a single-threaded command loop over a
// tiny keyspace, with AOF persistence and asynchronous replication. Create
// one with New; it implements proto.Actor. A Node is driven by one world and
// is not safe for concurrent use.
type Node struct {
	cfg     Config
	preload []entry // the on-disk snapshot present before the first start
	started bool
	down    bool // crashed and not yet restarted

	// Configuration that survives a crash, as REPLICAOF followed by CONFIG
	// REWRITE (what Sentinel does) leaves it in redis.conf.
	role   Role
	master network.Endpoint // when a replica; -1 otherwise

	keys   []entry // the dataset, in fixed slots
	synced []entry // what an fsync last made durable (AOF modes)
	// unsynced: under AOFEverySec, a write since the last fsync by this
	// process; the next fsync tick makes the keyspace durable only then.
	unsynced  bool
	survivors []entry // what the next Start loads
	lost      []uint64

	// The command loop: FIFO, one command per ServiceTime. The head is in
	// service, so the node is busy exactly when the queue is not empty.
	queue fifo.Queue[pending]

	repl replication
}

// New returns a node with configuration cfg (after WithDefaults). An
// invalid configuration is API misuse and panics: validate scenario input
// with Config.Validate first.
func New(cfg Config) *Node {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		panic("redis: " + err.Error())
	}
	n := &Node{cfg: cfg, role: Master, master: -1}
	if cfg.ReplicaOf != "" {
		n.role = Replica
	}
	return n
}

// Preload seeds the integer key with n before the node first starts (a
// fencing counter at 32 makes the first INCR return 33). Preloaded keys are
// an on-disk snapshot: they survive every crash, even without persistence,
// as they stood before the first start. Calling it after Start panics.
func (n *Node) Preload(key string, v int64) {
	if n.started {
		panic("redis: Preload after Start")
	}
	if i := find(n.preload, key); i >= 0 {
		n.preload[i].kind, n.preload[i].val = intValue, uint64(v)
		return
	}
	n.preload = append(n.preload, entry{key: key, kind: intValue, val: uint64(v), expire: NoExpiry})
}

// Start implements proto.Actor. It runs at the first start and again after
// each Crash: it loads what survived, drops the keys that expired by the
// node's wall clock, and (as a replica) asks its master for a full sync.
// Starting a running node is API misuse and panics.
func (n *Node) Start(env proto.Env) {
	if n.started && !n.down {
		panic(fmt.Sprintf("redis: %s: Start while running (start again only after Crash)", env.Name()))
	}
	restart := n.started
	if !n.started {
		n.started = true
		if n.cfg.ReplicaOf != "" {
			ep, ok := env.Lookup(n.cfg.ReplicaOf)
			if !ok {
				panic(fmt.Sprintf("redis: %s: replica_of names no endpoint: %q", env.Name(), n.cfg.ReplicaOf))
			}
			if ep == env.Self() {
				panic(fmt.Sprintf("redis: %s: replica_of names the node itself", env.Name()))
			}
			n.master = ep
		}
		n.keys = copyKeys(n.keys, n.preload)
	} else {
		n.keys = copyKeys(n.keys, n.survivors)
	}
	n.down = false

	// The lock values the crash lost, expired on reload and reloaded go
	// into the starts record too: the record stream alone shows what the
	// node's keyspace holds (the timeline is drawn from it). A node holds
	// one lock key, so each list has one value at most in practice; the
	// lists keep the loop's order anyway.
	var lost, expired, reloaded []uint64
	for _, v := range n.lost {
		env.Observe(proto.Observation{Kind: proto.KeyGone, Lock: v})
	}
	if env.Tracing() {
		lost = append(lost, n.lost...)
	}
	n.lost = n.lost[:0]
	now := env.Read(proto.Wall)
	dropped := false // a key expired on load: its DEL is a write to the AOF
	for i := range n.keys {
		e := &n.keys[i]
		e.gen++
		if now >= e.expire {
			dropped = dropped || e.used()
			if e.kind == lockValue {
				env.Observe(proto.Observation{Kind: proto.KeyGone, OK: true, Lock: e.val})
				if env.Tracing() {
					expired = append(expired, e.val)
				}
			}
			*e = entry{gen: e.gen}
			continue
		}
		if e.expire != NoExpiry {
			e.timer = env.SetTimer(proto.Wall, e.expire, slotTag(tagExpire, i, e.gen))
		}
		if restart && e.kind == lockValue {
			env.Observe(proto.Observation{Kind: proto.KeySet, Lock: e.val})
			if env.Tracing() {
				reloaded = append(reloaded, e.val)
			}
		}
	}
	// What is durable is what an fsync made so. At the first start that is
	// the preloaded snapshot. A restart neither rewrites nor fsyncs the
	// AOF: Redis 7.0 opens its last INCR file for appending and counts
	// the file as fsynced (aofOpenIfNeededOnServerStart sets
	// aof_last_incr_fsync_offset to its size), so what a process crash
	// kept only in the page cache becomes durable at the next fsync, which
	// under everysec follows the next write (flushAppendOnlyFile skips the
	// fsync while nothing was written since). A power loss before then
	// keeps what was fsynced before the crash. The keys that expired on
	// load are deleted by a write, as Redis appends their DELs.
	if !restart {
		n.synced = copyKeys(n.synced, n.keys)
	}
	n.unsynced = false
	if dropped {
		n.persist()
	}
	if env.Tracing() {
		story.Trace(env, story.Start{
			Role: story.Text(n.role), Keys: story.Text(n.count()), Persistence: story.Text(n.cfg.Persistence),
			Lost: valueList(lost), Expired: valueList(expired), Reloaded: valueList(reloaded), // empty: not said
		})
	}
	if n.cfg.Persistence == AOFEverySec {
		n.repl.nextFsync = env.Read(proto.Mono) + n.cfg.FsyncEvery
		env.SetTimer(proto.Mono, n.repl.nextFsync, tagFsync)
	}
	if n.role == Replica {
		n.startReplica(env)
	}
}

// Crash stops the process: the world has already taken the endpoint down
// and cancelled the node's timers. A process crash (powerLoss false) keeps
// everything written to the AOF, fsynced or not, because it is in the
// operating system's page cache; a power loss keeps only what was fsynced.
// Without persistence only the preloaded snapshot survives. Queued
// commands, blocked WAITs, unshipped replication and the replica list die
// with the process; the role survives (it is in redis.conf).
func (n *Node) Crash(powerLoss bool) {
	if !n.started || n.down {
		return
	}
	var src []entry
	switch {
	case n.cfg.Persistence == None:
		src = n.preload
	case powerLoss:
		src = n.synced
	default:
		src = n.keys
	}
	n.survivors = copyKeys(n.survivors, src)
	n.lost = n.lost[:0]
	for _, e := range n.keys {
		if e.kind != lockValue {
			continue
		}
		if i := find(n.survivors, e.key); i < 0 || n.survivors[i].kind != lockValue || n.survivors[i].val != e.val {
			n.lost = append(n.lost, e.val)
		}
	}
	for i := range n.keys {
		n.keys[i] = entry{gen: n.keys[i].gen}
	}
	n.queue.Clear()
	n.repl.reset()
	n.down = true
}

// Handle implements proto.Actor. Client commands join the FIFO command
// queue; PING, replication and REPLICAOF are handled at once.
func (n *Node) Handle(env proto.Env, from network.Endpoint, m proto.Msg) {
	if n.down {
		return
	}
	switch m.Kind {
	case proto.SetNX, proto.Get, proto.Del, proto.CompareDel, proto.CompareExtend, proto.Incr, proto.Wait:
		p := n.queue.PushSlot() // in place: a command is 88 bytes
		p.from, p.m = from, m
		if n.queue.Len() == 1 {
			env.After(n.cfg.ServiceTime, tagService)
		}
	case proto.Ping:
		env.Send(from, proto.Msg{Kind: proto.Pong, Req: m.Req, OK: n.role == Master, Int: n.masterInt()})
	case proto.ReplicaOf:
		n.replicaOf(env, m.Int)
	case proto.ReplicaWrite:
		n.applyWrite(env, from, m)
	case proto.ReplicaAck:
		n.onAck(env, from, m.Int)
	default:
		if env.Tracing() {
			story.Trace(env, story.Ignore{Message: story.Text(m.Kind), From: env.NameOf(from)})
		}
	}
}

// OnTimer implements proto.Actor.
func (n *Node) OnTimer(env proto.Env, tag uint64) {
	if n.down {
		return
	}
	switch tag &^ (1<<tagShift - 1) {
	case tagService:
		n.serveNext(env)
	case tagFsync:
		if n.unsynced {
			n.synced = copyKeys(n.synced, n.keys)
			n.unsynced = false
		}
		n.repl.nextFsync += n.cfg.FsyncEvery
		env.SetTimer(proto.Mono, n.repl.nextFsync, tagFsync)
	case tagAck:
		n.ackTick(env)
	case tagShip:
		n.ship(env)
	case tagWait:
		n.waitTimeout(env, tag)
	case tagExpire:
		slot, gen := untagSlot(tag)
		if slot < len(n.keys) && n.keys[slot].used() && n.keys[slot].gen == gen {
			e := &n.keys[slot]
			if env.Read(proto.Wall) >= e.expire {
				n.remove(env, slot, true)
			} else { // cannot happen with a correct Env; stay correct anyway
				e.timer = env.SetTimer(proto.Wall, e.expire, tag)
			}
		}
	}
}

func (n *Node) serveNext(env proto.Env) {
	// The command is read where it lies and dropped after: exec only
	// sends, sets timers and observes, so nothing reaches the queue while
	// it runs (a Crash, which clears it, comes from the world between
	// events).
	p := n.queue.Head()
	n.exec(env, p.from, &p.m)
	n.queue.Drop()
	if n.queue.Len() > 0 {
		env.After(n.cfg.ServiceTime, tagService)
	}
}

func isWrite(k proto.Kind) bool {
	switch k {
	case proto.SetNX, proto.Del, proto.CompareDel, proto.CompareExtend, proto.Incr:
		return true
	}
	return false
}

// exec runs one command at the end of its service time and replies. m is
// a pointer, not a copy, since every command comes here.
func (n *Node) exec(env proto.Env, from network.Endpoint, m *proto.Msg) {
	r := proto.Msg{Kind: proto.Reply, Req: m.Req}
	if isWrite(m.Kind) || m.Kind == proto.Wait {
		if n.role == Replica {
			r.Err = proto.ReadOnly
			n.refuse(env, from, *m, r)
			return
		}
		if m.Kind != proto.Wait && n.cfg.MinReplicasToWrite > 0 && n.goodReplicas(env) < n.cfg.MinReplicasToWrite {
			r.Err = proto.NoReplicas
			n.refuse(env, from, *m, r)
			return
		}
	}
	now := env.Read(proto.Wall)
	switch m.Kind {
	case proto.SetNX:
		if m.TTL < 0 || n.lookup(env, m.Key, now) >= 0 {
			break
		}
		expire := NoExpiry
		if m.TTL > 0 {
			expire = now + m.TTL
		}
		n.store(env, m.Key, lockValue, m.Value, expire)
		r.OK = true
	case proto.Get:
		if i := n.lookup(env, m.Key, now); i >= 0 {
			e := &n.keys[i]
			r.OK, r.Value = true, e.val
			if e.kind == intValue {
				r.Int = int64(e.val)
			}
		}
	case proto.Del:
		if i := n.lookup(env, m.Key, now); i >= 0 {
			n.remove(env, i, false)
			r.OK, r.Int = true, 1
		}
	case proto.CompareDel:
		if i := n.lookup(env, m.Key, now); i >= 0 && n.keys[i].kind == lockValue && n.keys[i].val == m.Value {
			n.remove(env, i, false)
			r.OK, r.Int = true, 1
		}
	case proto.CompareExtend:
		if i := n.lookup(env, m.Key, now); i >= 0 && n.keys[i].kind == lockValue && n.keys[i].val == m.Value {
			if m.TTL <= 0 { // PEXPIRE with a non-positive TTL deletes the key
				n.remove(env, i, false)
			} else {
				n.store(env, m.Key, lockValue, m.Value, now+m.TTL)
			}
			r.OK, r.Int = true, 1
		}
	case proto.Incr:
		i := n.lookup(env, m.Key, now)
		switch {
		case i < 0:
			n.store(env, m.Key, intValue, 1, NoExpiry)
			r.OK, r.Int = true, 1
		case n.keys[i].kind != intValue || int64(n.keys[i].val) == 1<<63-1:
			// ERR value is not an integer or out of range / would overflow
		default:
			v := int64(n.keys[i].val) + 1
			n.store(env, m.Key, intValue, uint64(v), n.keys[i].expire) // INCR keeps the TTL
			r.OK, r.Int = true, v
		}
	case proto.Wait:
		n.wait(env, from, *m)
		return
	}
	env.Send(from, r)
}

func (n *Node) refuse(env proto.Env, to network.Endpoint, m proto.Msg, r proto.Msg) {
	if env.Tracing() {
		story.Trace(env, story.Refuse{Cmd: story.Text(m.Kind), Err: story.Text(r.Err), From: env.NameOf(to)})
	}
	env.Send(to, r)
}

// lookup finds key, expiring it first if the wall clock has reached its
// expiry (Redis's lazy expiry on access).
func (n *Node) lookup(env proto.Env, key string, now time.Duration) int {
	i := find(n.keys, key)
	if i >= 0 && now >= n.keys[i].expire {
		n.remove(env, i, true)
		return -1
	}
	return i
}

// store sets key as a write on this node (a command, or one applied from
// the master), then logs it, persists it and replicates it.
func (n *Node) store(env proto.Env, key string, kind valueKind, val uint64, expire time.Duration) {
	i := find(n.keys, key)
	if i < 0 {
		i = n.alloc()
	}
	e := &n.keys[i]
	fresh := !e.used() || e.kind != kind || e.val != val
	same := !fresh && e.expire == expire
	if e.used() && e.kind == lockValue && fresh {
		env.Observe(proto.Observation{Kind: proto.KeyGone, Lock: e.val})
		if env.Tracing() {
			story.Trace(env, story.OverwriteKey{Key: story.Text(key), Value: story.Text(e.val)})
		}
	}
	env.Cancel(e.timer)
	e.key, e.kind, e.val, e.expire, e.stale = key, kind, val, expire, false
	e.gen++
	e.timer = proto.TimerID{}
	if expire != NoExpiry {
		e.timer = env.SetTimer(proto.Wall, expire, slotTag(tagExpire, i, e.gen))
	}
	if kind == lockValue {
		if fresh {
			env.Observe(proto.Observation{Kind: proto.KeySet, Lock: val})
		}
		if env.Tracing() && !same {
			if fresh {
				story.Trace(env, story.SetKey{Key: key, Value: story.Text(val), Expire: expireField(expire)})
			} else {
				story.Trace(env, story.Extend{Key: key, Value: story.Text(val), Expire: expireField(expire)})
			}
		}
	}
	n.persist()
	op := opSetLock
	if kind == intValue {
		op = opSetInt
	}
	n.replicate(env, op, key, val, expire)
}

// remove deletes slot i: expired by the clock, or deleted.
func (n *Node) remove(env proto.Env, i int, expired bool) {
	e := &n.keys[i]
	env.Cancel(e.timer)
	key, kind, val := e.key, e.kind, e.val
	*e = entry{gen: e.gen}
	if kind == lockValue {
		env.Observe(proto.Observation{Kind: proto.KeyGone, OK: expired, Lock: val})
		if env.Tracing() {
			if expired {
				story.Trace(env, story.ExpireKey{Key: key, Value: story.Text(val)})
			} else {
				story.Trace(env, story.DeleteKey{Key: key, Value: story.Text(val)})
			}
		}
	}
	n.persist()
	op := opDel
	if expired {
		op = opExpired
	}
	n.replicate(env, op, key, 0, NoExpiry)
}

func (n *Node) alloc() int {
	for i := range n.keys {
		if !n.keys[i].used() {
			return i
		}
	}
	n.keys = append(n.keys, entry{})
	return len(n.keys) - 1
}

// persist follows a write: under appendfsync always the dataset is
// durable at once (the write reaches the disk before the reply that
// follows it is sent); under everysec the next fsync tick makes it so.
func (n *Node) persist() {
	switch n.cfg.Persistence {
	case AOFAlways:
		n.synced = copyKeys(n.synced, n.keys)
	case AOFEverySec:
		n.unsynced = true
	}
}

func (n *Node) count() int {
	c := 0
	for i := range n.keys {
		if n.keys[i].used() {
			c++
		}
	}
	return c
}

func (n *Node) masterInt() int64 {
	if n.role == Master {
		return -1
	}
	return int64(n.master)
}

func expireField(d time.Duration) string {
	if d == NoExpiry {
		return "never"
	}
	return d.String()
}

// Role is the node's current role.
func (n *Node) Role() Role { return n.role }

// BacklogBytes is the memory of the requests waiting to be served: a
// node slower than its clients' requests (a long service_time, many
// clients) grows it without bound, and a run's budget watches it.
func (n *Node) BacklogBytes() uint64 {
	return uint64(n.queue.Len()) * uint64(unsafe.Sizeof(pending{}))
}

// MasterOf returns the master a replica follows; ok is false for a master.
func (n *Node) MasterOf() (master network.Endpoint, ok bool) {
	return n.master, n.role == Replica
}

// Value reports key as the node would serve it when its wall clock reads
// wallNow, without changing anything: the lock value (or an integer's
// bits), its absolute expiry on the node's wall clock (NoExpiry if none),
// and whether it is present. A down node has nothing.
func (n *Node) Value(key string, wallNow time.Duration) (v uint64, expire time.Duration, ok bool) {
	if n.down {
		return 0, 0, false
	}
	i := find(n.keys, key)
	if i < 0 || wallNow >= n.keys[i].expire {
		return 0, 0, false
	}
	return n.keys[i].val, n.keys[i].expire, true
}

// Offset is the replication offset: the number of writes a master has
// logged, or the last offset a replica applied.
func (n *Node) Offset() int64 {
	if n.role == Master {
		return n.repl.offset
	}
	return n.repl.applied
}

// Queued is the number of commands waiting or in service.
func (n *Node) Queued() int { return n.queue.Len() }

// valueList prints lock values for a record field: decimal, space-separated.
func valueList(vs []uint64) string {
	b := make([]byte, 0, 16*len(vs))
	for i, v := range vs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendUint(b, v, 10)
	}
	return string(b)
}

// LockKey is key's lock value and its absolute expiry on the node's wall
// clock, as stored: a key past its expiry that the node has not noticed
// yet is reported all the same, for the caller to compare with the wall
// clock. ok is false when the node holds no lock value under key. It
// reads and changes nothing else (the danger score reads it after every
// event).
func (n *Node) LockKey(key string) (val uint64, expire time.Duration, ok bool) {
	i := find(n.keys, key)
	if i < 0 || n.keys[i].kind != lockValue {
		return 0, 0, false
	}
	return n.keys[i].val, n.keys[i].expire, true
}
