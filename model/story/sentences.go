package story

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// The kinds of record, by who emits them.
const (
	// clients
	Acquires       = "acquires"
	GetsToken      = "gets-token"
	TryFails       = "try-fails"
	LetsGo         = "lets-go"
	Writes         = "writes"
	GivesUp        = "gives-up"
	AbandonsWrite  = "abandons-write"
	Extends        = "extends" // also a node pushing back a key's expiry
	ExtendFails    = "extend-fails"
	Renews         = "renews"        // the watchdog renews the lock to its full TTL
	RenewalStops   = "renewal-stops" // a renewal failed and the watchdog gives up
	AbortsWork     = "aborts-work"
	Connects       = "connects"
	LeaseLost      = "lease-lost"
	ReadRefused    = "read-refused"
	Suspended      = "suspended"    // Curator's SUSPENDED: the connection to ZooKeeper is silent
	Reconnected    = "reconnected"  // Curator's RECONNECTED
	SessionLost    = "session-lost" // Curator's LOST
	Observes       = "observes"     // a record-based lock client sees the record change
	StopsLeading   = "stops-leading"
	LockDelayed    = "lock-delayed"    // Consul refuses a key in its lock-delay
	RecordSet      = "record-set"      // the store writes a lock record's new holder
	RecordConflict = "record-conflict" // the store refuses a conditional write of a lock record
	// Note is a remark of a real run (cmd/internal/real/harness) that no
	// simulated record says: its text field, as the run wrote it.
	Note = "note"

	// the world
	Pauses     = "pauses"
	Resumes    = "resumes"
	Crashes    = "crashes"
	LosesPower = "loses power"
	Restarts   = "restarts"
	ClockStep  = "clock-step"
	ClockSlew  = "clock-slew"
	ClockRate  = "clock-rate"
	Spike      = "spike"
	Loss       = "loss"
	Election   = "election" // the store loses its leader for a while

	// Redis nodes
	Starts         = "starts"
	Sets           = "sets"
	Expires        = "expires"
	Deletes        = "deletes"
	Overwrites     = "overwrites"
	Refuses        = "refuses"
	Ignores        = "ignores"
	FullSync       = "full-sync"
	Synced         = "synced"
	ReplicationGap = "replication-gap"
	Promoted       = "promoted"
	ReplicaOf      = "replicaof" // also the sentinel telling a node

	// the sentinel
	MasterDown   = "master-down"
	Promote      = "promote"
	SwitchMaster = "switch-master"

	// the resource
	Read   = "read"
	Write  = "write"
	Reject = "reject"

	// the consensus store
	LeaseGrant   = "lease-grant"
	Lock         = "lock"
	LockWait     = "lock-wait"
	Unlock       = "unlock"
	LeaseExpired = "lease-expired"
	LeaseRevoked = "lease-revoked"
	NoLease      = "no-lease"
	Unavailable  = "unavailable"
	Available    = "available"
	Keepalive    = "keepalive"

	// the network
	Partition = network.RecordPartition
	Heal      = network.RecordHeal
	Drop      = network.RecordDrop
	Tamper    = network.RecordTamper // hold-message, drop-message
)

// Told reports whether the kind has a typed fact, and so a sentence, of
// its own.
func Told(kind string) bool {
	_, ok := factTypes[kind]
	return ok
}

// Sentence is one record in words, without its actor: its fact's
// sentence. A kind with no fact (see Told) keeps its structured form, so
// that nothing is ever hidden.
func Sentence(r sim.Record) string {
	if f, ok := Decode(r); ok {
		return f.Sentence()
	}
	var b strings.Builder
	b.WriteString(r.Kind)
	for _, f := range r.Fields {
		fmt.Fprintf(&b, " %s=%s", f.Key, f.Value)
	}
	return b.String()
}

// values names a space-separated list of lock values: "value c1#2" or
// "values c1#2, c1#3".
func values(list string) string {
	vs := strings.Fields(list)
	for i, v := range vs {
		vs[i] = Value(v)
	}
	if len(vs) == 1 {
		return "value " + vs[0]
	}
	return "values " + strings.Join(vs, ", ")
}

// Value prints a lock value as its owner and serial: c1#2 is client 1's
// second value. Values are built that way (client id in the high bits).
func Value(s string) string {
	var v uint64
	var err error
	if strings.HasPrefix(s, "0x") {
		v, err = strconv.ParseUint(s[2:], 16, 64)
	} else {
		v, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil || v < 1<<40 {
		return s
	}
	return check.ElementName(v)
}

// dur rounds a duration field to the microsecond for reading.
func dur(s string) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	return d.Round(time.Microsecond).String()
}

// Signed prints a duration field with its sign: "+9s", "-500ms".
func Signed(s string) string {
	if s != "" && s[0] != '-' && s[0] != '+' {
		return "+" + s
	}
	return s
}

// notable are the kinds a violation's excerpt tells: who held and let go
// of the lock, what the nodes and the store did with the key, what the
// resource accepted, and every fault. The rest (reads, replication,
// message drops) stays in the full trace.
var notable = map[string]bool{
	Acquires: true, GetsToken: true, TryFails: true, LetsGo: true, Renews: true, RenewalStops: true, AbortsWork: true,
	Pauses: true, Crashes: true, LosesPower: true, Restarts: true, ClockStep: true, ClockSlew: true, ClockRate: true, Spike: true, Loss: true,
	Sets: true, Expires: true, Deletes: true, Overwrites: true, Promoted: true,
	Write: true, Reject: true,
	Lock: true, Unlock: true, LeaseExpired: true, LeaseRevoked: true, Unavailable: true, Available: true,
	Partition: true, Heal: true, Tamper: true,
}

// Notable reports whether a violation's excerpt tells records of kind.
// A start is told only when it lost or expired a value (see notableStart).
func Notable(kind string) bool { return notable[kind] }

// notableStart reports whether r is a node's start that lost a value it
// had acknowledged or found one expired on load: the moment a restart
// forgets a lock, which a violation's excerpt must show. A plain start
// (every node's at 0, a reload that kept everything) stays in the trace.
func notableStart(r sim.Record) bool {
	s, ok := Decode(r)
	start, isStart := s.(Start)
	return ok && isStart && (start.Lost != "" || start.Expired != "")
}

// Excerpts lists the notable records (see notable) as the events a
// violation's excerpt is cut from, each told as "actor sentence". A nil
// or empty trace (a run without narration) gives none.
func Excerpts(recs []sim.Record) []check.Event {
	var out []check.Event
	for _, r := range recs {
		if e, ok := Event(r); ok {
			out = append(out, e)
		}
	}
	return out
}

// Event is record r as an excerpt tells it, if it is notable: the one
// form of an excerpt's line, whether cut from a whole trace (Excerpts) or
// as the run goes (a story replay, see model).
func Event(r sim.Record) (check.Event, bool) {
	if !notable[r.Kind] && !notableStart(r) {
		return check.Event{}, false
	}
	return Tell(r), true
}

// Tell is record r as a log's event, notable or not: "actor sentence".
// A real run's log tells every record it keeps this way.
func Tell(r sim.Record) check.Event {
	return check.Event{At: r.At, Actor: r.Actor, Kind: r.Kind, Text: r.Actor + " " + Sentence(r)}
}
