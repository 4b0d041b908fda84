package proto

import (
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// Kind is what a message asks or answers. The zero value is invalid.
type Kind uint8

const (
	_ Kind = iota
	// Redis commands (client → node). Replies are KindReply with the same Req.
	SetNX          // SET Key Value NX PX TTL → OK
	Get            // GET Key → OK and Value if present (on the consensus store: does lease Int hold Key? → OK, Token = revision)
	Del            // DEL Key → Int = keys removed (on the consensus store: unlock Key held by lease Int)
	CompareDel     // if GET Key == Value then DEL → Int 1/0 (the release script)
	CompareExtend  // if GET Key == Value then PEXPIRE Key TTL → Int 1/0 (the extend script)
	Incr           // INCR Key → Int
	Wait           // WAIT Int TTL(timeout) → Int = replicas that acknowledged
	Reply          // a node's answer
	ReplicaWrite   // master → replica: apply Key, Value, Expire (absolute, master's wall); Int = replication offset
	ReplicaAck     // replica → master: Int = offset applied
	ReplicaOf      // sentinel → node: become a replica of node Int (or master if Int < 0)
	MasterChanged  // sentinel → client: the master is now endpoint Int
	Ping           // sentinel → node
	Pong           // node → sentinel
	ResourceRead   // client → resource: read (Lock = lock value for compare-and-set claims, Token)
	ResourceWrite  // client → resource: write back what was read at version Int plus Element Value, Token
	ResourceReply  // resource → client: OK, Int = version read, Err on rejection
	LeaseGrant     // client → store: grant a lease of TTL → Int = lease id
	LeaseKeepAlive // client → store: keep lease Int alive → OK, TTL remaining
	LeaseRevoke    // client → store: revoke lease Int
	LockCreate     // client → store: create Key bound to lease Int if absent, else queue → OK, Token = revision
	StoreReply     // store → client
	RecordRead     // client → store: read record Key → OK, Int = its version (0: none yet), Value = its holder's lock value (0: free), TTL = the holder's lease duration
	RecordPut      // client → store: if record Key's version is Int, set its holder to Value (0 frees it) with lease duration TTL → OK, Int = the new version; else Err Conflict with the current Int and Value
	LockAcquire    // client → store: Consul's KV acquire: take Key for session Int if it is free and past its lock-delay → OK, Token = revision; else Err Conflict (Int = the holder's session) or LockDelayed
	KeyWatch       // client → store: Consul's blocking query: answer when Key's holding session is not Int (0: free), or after TTL (the wait time) → OK, Int = the holding session
	maxKind
)

var kindNames = [...]string{"", "SET-NX", "GET", "DEL", "COMPARE-DEL", "COMPARE-EXTEND", "INCR", "WAIT", "REPLY",
	"REPLICA-WRITE", "REPLICA-ACK", "REPLICAOF", "MASTER-CHANGED", "PING", "PONG",
	"RESOURCE-READ", "RESOURCE-WRITE", "RESOURCE-REPLY",
	"LEASE-GRANT", "LEASE-KEEPALIVE", "LEASE-REVOKE", "LOCK-CREATE", "STORE-REPLY",
	"RECORD-READ", "RECORD-PUT", "LOCK-ACQUIRE", "KEY-WATCH"}

func (k Kind) String() string {
	if k == 0 || k >= maxKind {
		return fmt.Sprintf("Kind(%d)", k)
	}
	return kindNames[k]
}

// Err is a refusal code carried by replies. The zero value means no error.
type Err uint8

const (
	OK          Err = iota
	NoReplicas      // min-replicas-to-write not met
	ReadOnly        // write sent to a replica
	StaleToken      // fencing: token lower than one already seen
	NotOwner        // compare-and-set: the resource's owner value differs
	NoLease         // the store does not know the lease (it expired)
	Conflict        // a record's version is not the one a conditional write named
	LockDelayed     // the key is in its lock-delay after its session was invalidated (Consul)
)

var errNames = [...]string{"", "NOREPLICAS", "READONLY", "stale token", "not owner", "no such lease", "version conflict", "lock delay"}

func (e Err) String() string {
	if int(e) < len(errNames) {
		return errNames[e]
	}
	return fmt.Sprintf("Err(%d)", e)
}

// Msg is the one message type of a world. Which fields matter depends on
// Kind; the comments on the Kind constants say which.
type Msg struct {
	Kind Kind
	Err  Err
	OK   bool
	// Waited marks the consensus store's LockCreate answer that comes
	// after a wait behind earlier holders (etcd's watch event: the
	// predecessor's key was deleted), not in the answer to the request.
	Waited bool
	Key    string
	Req    uint64        // request id, echoed by the reply
	Value  uint64        // a key's value (the lock value), or a resource element
	Lock   uint64        // the writer's lock value, for compare-and-set at the resource
	Token  uint64        // fencing token
	Int    int64         // counters, replica counts, versions, endpoint ids, lease ids
	TTL    time.Duration // key TTL, WAIT timeout, lease TTL
	Expire time.Duration // absolute expiry on the sender's wall clock (replication)
}

// Clock selects one of a process's two clocks.
type Clock uint8

const (
	_    Clock = iota
	Wall       // subject to steps and slews; what Redis expiry reads
	Mono       // rate error only; never steps
)

func (c Clock) String() string {
	switch c {
	case Wall:
		return "wall"
	case Mono:
		return "monotonic"
	}
	return fmt.Sprintf("Clock(%d)", c)
}

// TimerID names a pending timer of one actor; the zero value names none.
type TimerID = sim.EventID

// Env is everything an actor may do. One Env belongs to one actor.
type Env interface {
	// Self is the actor's own endpoint; Name its name ("c1", "n3").
	Self() network.Endpoint
	Name() string
	// Lookup finds another endpoint by name.
	Lookup(name string) (network.Endpoint, bool)
	// NameOf names an endpoint ("c1", "n3", "resource").
	NameOf(e network.Endpoint) string
	// Send puts m on the network towards to.
	Send(to network.Endpoint, m Msg)
	// Read returns the actor's clock now.
	Read(c Clock) time.Duration
	// SetTimer fires OnTimer(tag) when clock c reads at least deadline (at
	// once, in the next event, if it already does). Deadlines are local: a
	// step of the wall clock moves when a wall timer fires.
	SetTimer(c Clock, deadline time.Duration, tag uint64) TimerID
	// After fires OnTimer(tag) after d has elapsed on the monotonic clock.
	After(d time.Duration, tag uint64) TimerID
	// Cancel stops a pending timer; it reports whether it was pending.
	Cancel(id TimerID) bool
	// Rand is the actor's own random stream.
	Rand() *sim.Stream
	// Observe records something the checker or the narration needs
	// (acquired, released, wrote, expired); the world stamps it with true time.
	Observe(o Observation)
	// Tracing reports whether narration is on, so that actors build trace
	// text only when it is read.
	Tracing() bool
	// Trace adds a narration line for this actor.
	Trace(kind string, fields ...sim.Field)
}

// Actor is a synchronous state machine driven by the world.
type Actor interface {
	// Start runs once when the world starts (and again on restart, after
	// Crash, for actors that can crash).
	Start(env Env)
	// Handle processes one delivered message.
	Handle(env Env, from network.Endpoint, m Msg)
	// OnTimer processes a timer the actor set.
	OnTimer(env Env, tag uint64)
}
