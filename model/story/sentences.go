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

// fields reads a record's fields by key.
type fields sim.Record

func (r fields) get(k string) string { v, _ := sim.Record(r).Get(k); return v }
func (r fields) has(k string) bool   { _, ok := sim.Record(r).Get(k); return ok }

// sentences says each kind in words, without the actor (who is the
// subject). An empty sentence is a record the trace leaves out on purpose.
var sentences = map[string]func(f fields) string{
	Acquires: func(f fields) string {
		where := "on " + f.get("nodes")
		if f.get("nodes") == "store" { // the lease lock
			where = "from the store"
		}
		return fmt.Sprintf("acquires the lock %s (validity %s, value %s)", where, dur(f.get("validity")), Value(f.get("value")))
	},
	GetsToken: func(f fields) string {
		return fmt.Sprintf("gets fencing token %s from %s", f.get("token"), f.get("from"))
	},
	TryFails: func(f fields) string { return "fails to acquire: " + f.get("why") },
	LetsGo:   func(f fields) string { return "stops believing it holds the lock: " + f.get("why") },
	Writes: func(f fields) string {
		s := fmt.Sprintf("sends its write (element %s", Value(f.get("element")))
		if t := f.get("token"); t != "" && t != "0" {
			s += ", token " + t
		}
		return s + fmt.Sprintf(", based on version %s)", f.get("read-version"))
	},
	GivesUp: func(f fields) string { return "gives up waiting for its " + f.get("waiting-for") + " reply" },
	AbandonsWrite: func(f fields) string {
		return "abandons its write: only " + dur(f.get("remaining")) + " of validity left"
	},
	Extends: func(f fields) string {
		if f.has("key") { // a node pushing back a key's expiry
			return fmt.Sprintf("extends the %s key (value %s, expires when its wall clock reads %s)", f.get("key"), Value(f.get("value")), f.get("expire"))
		}
		return fmt.Sprintf("extends the lock (extension %s, validity %s)", f.get("extension"), dur(f.get("validity")))
	},
	Renews: func(f fields) string {
		return fmt.Sprintf("renews the lock to its full TTL of %s (the watchdog)", dur(f.get("ttl")))
	},
	RenewalStops: func(f fields) string {
		return fmt.Sprintf("stops renewing the lock: the renewal failed (%s nodes agreed), and nothing tells the application", f.get("ok"))
	},
	AbortsWork: func(f fields) string { return "aborts its work: " + f.get("why") },
	Connects: func(f fields) string {
		return fmt.Sprintf("connects to %s and counts its quorum, %s, from them", f.get("nodes"), f.get("quorum"))
	},
	ExtendFails: func(f fields) string { return fmt.Sprintf("fails to extend the lock (%s nodes agreed)", f.get("ok")) },
	LeaseLost:   func(f fields) string { return fmt.Sprintf("learns that its lease %s is gone", f.get("lease")) },
	ReadRefused: func(f fields) string { return "has its read refused: " + f.get("err") },
	Suspended: func(f fields) string {
		return fmt.Sprintf("finds its connection SUSPENDED (session %s, silent for %s)", f.get("session"), f.get("silent-for"))
	},
	Reconnected: func(f fields) string { return fmt.Sprintf("is RECONNECTED (session %s)", f.get("session")) },
	SessionLost: func(f fields) string {
		return fmt.Sprintf("has its session %s LOST: %s", f.get("session"), f.get("why"))
	},
	Observes: func(f fields) string {
		return fmt.Sprintf("sees the lock record at version %s (holder %s)", f.get("version"), Value(f.get("holder")))
	},
	StopsLeading: func(f fields) string { return "stops leading: " + f.get("why") },
	RecordSet: func(f fields) string {
		if f.get("holder") == "0" {
			return fmt.Sprintf("frees the lock record at %s's request (version %s)", f.get("by"), f.get("version"))
		}
		return fmt.Sprintf("writes the lock record for %s (holder %s, version %s)", f.get("by"), Value(f.get("holder")), f.get("version"))
	},
	LockDelayed: func(f fields) string {
		return fmt.Sprintf("refuses %s the %s key: its lock-delay runs %s more", f.get("by"), f.get("key"), dur(f.get("for")))
	},
	RecordConflict: func(f fields) string {
		return fmt.Sprintf("refuses %s's write of the lock record: it names version %s, the record is at %s", f.get("by"), f.get("named"), f.get("version"))
	},
	Note: func(f fields) string { return f.get("text") },

	Pauses: func(f fields) string { return fmt.Sprintf("pauses (%s) for %s", f.get("why"), f.get("for")) },
	Resumes: func(f fields) string {
		if !f.has("held-events") { // a real process: what waited is in its sockets
			return "wakes up"
		}
		return fmt.Sprintf("wakes up; %s events were waiting for it", f.get("held-events"))
	},
	Crashes:    func(fields) string { return "crashes" },
	LosesPower: func(fields) string { return "loses power" },
	Restarts:   func(fields) string { return "restarts" },
	ClockStep:  func(f fields) string { return "wall clock steps " + Signed(f.get("by")) },
	ClockSlew:  func(f fields) string { return "wall clock starts slewing by " + Signed(f.get("by")) },
	ClockRate:  func(f fields) string { return "clock rate error becomes " + f.get("ppm") + " ppm" },
	Spike: func(f fields) string {
		return fmt.Sprintf("delays messages %s→%s sent in the next %s by %s more", f.get("from"), f.get("to"), f.get("for"), f.get("by"))
	},
	Loss: func(f fields) string { return "loses each message with probability " + f.get("prob") },
	Election: func(f fields) string {
		return "starts a leader election that lasts " + f.get("for")
	},

	Starts: func(f fields) string {
		keys := f.get("keys") + " keys"
		switch f.get("keys") {
		case "0":
			keys = "an empty keyspace"
		case "1":
			keys = "1 key"
		}
		s := fmt.Sprintf("starts as %s with %s (persistence %s)", f.get("role"), keys, f.get("persistence"))
		// A restart names the lock values it lost, expired and reloaded:
		// the key count alone never tells a teacher which lock vanished.
		// Without persistence a lost value never reached the disk; with
		// an AOF it is one the power loss caught before its fsync.
		if f.has("lost") {
			why := "not fsynced"
			if f.get("persistence") == "none" {
				why = "never on disk"
			}
			s += fmt.Sprintf("; has lost %s (%s)", values(f.get("lost")), why)
		}
		if f.has("expired") {
			s += fmt.Sprintf("; expires %s on load", values(f.get("expired")))
		}
		if f.has("reloaded") {
			s += "; reloads " + values(f.get("reloaded"))
		}
		return s
	},
	Sets: func(f fields) string {
		return fmt.Sprintf("sets the %s key (value %s, expires when its wall clock reads %s)", f.get("key"), Value(f.get("value")), f.get("expire"))
	},
	Expires: func(f fields) string {
		return fmt.Sprintf("expires the %s key (value %s)", f.get("key"), Value(f.get("value")))
	},
	Deletes: func(f fields) string {
		return fmt.Sprintf("deletes the %s key (value %s)", f.get("key"), Value(f.get("value")))
	},
	Overwrites: func(f fields) string {
		return fmt.Sprintf("overwrites the %s key (value %s)", f.get("key"), Value(f.get("value")))
	},
	Refuses: func(f fields) string {
		return fmt.Sprintf("refuses %s from %s: %s", f.get("cmd"), f.get("from"), f.get("err"))
	},
	Ignores: func(f fields) string { return fmt.Sprintf("ignores a %s from %s", f.get("kind"), f.get("from")) },
	FullSync: func(f fields) string {
		return fmt.Sprintf("sends a full sync to %s (%s keys)", f.get("to"), f.get("keys"))
	},
	Synced: func(f fields) string {
		return fmt.Sprintf("is in sync with master %s (%s keys)", f.get("master"), f.get("keys"))
	},
	ReplicationGap: func(f fields) string {
		return fmt.Sprintf("sees a gap in the replication stream (applied up to %s, got %s) and asks for a full sync", f.get("applied"), f.get("got"))
	},
	Promoted: func(f fields) string {
		return "is promoted to master (was a replica of " + f.get("was_replica_of") + ")"
	},
	ReplicaOf: func(f fields) string {
		if f.has("node") {
			return fmt.Sprintf("tells %s to replicate %s", f.get("node"), f.get("master"))
		}
		return "becomes a replica of " + f.get("master")
	},

	MasterDown: func(f fields) string {
		return fmt.Sprintf("declares master %s down after %s; promotes %s", f.get("master"), f.get("down_after"), f.get("promoting"))
	},
	Promote: func(f fields) string { return "tells " + f.get("node") + " to become master" },
	SwitchMaster: func(f fields) string {
		return "sees " + f.get("master") + " report itself master; tells the clients and the other replicas"
	},

	Read: func(f fields) string {
		return fmt.Sprintf("serves %s's read (version %s)", f.get("by"), f.get("version"))
	},
	Write: func(f fields) string {
		s := fmt.Sprintf("accepts %s's write (element %s, version %s", f.get("by"), Value(f.get("element")), f.get("version"))
		if t := f.get("token"); t != "" {
			s += ", token " + t
		}
		s += ")"
		if d := strings.Trim(f.get("drops"), "[]"); d != "" {
			var names []string
			for _, e := range strings.Fields(d) {
				names = append(names, Value(e))
			}
			s += "; the update of " + strings.Join(names, ", ") + " is lost"
		}
		return s
	},
	Reject: func(f fields) string { return fmt.Sprintf("rejects %s's write: %s", f.get("by"), f.get("reason")) },

	LeaseGrant: func(f fields) string {
		return fmt.Sprintf("grants lease %s (ttl %s) to %s", f.get("lease"), f.get("ttl"), f.get("to"))
	},
	Lock: func(f fields) string {
		return fmt.Sprintf("gives the %s key to %s (lease %s, revision %s)", f.get("key"), f.get("to"), f.get("lease"), f.get("rev"))
	},
	LockWait: func(f fields) string {
		return fmt.Sprintf("queues %s for the %s key (lease %s)", f.get("by"), f.get("key"), f.get("lease"))
	},
	Unlock: func(f fields) string {
		return fmt.Sprintf("deletes the %s key at %s's request (lease %s, revision %s)", f.get("key"), f.get("by"), f.get("lease"), f.get("rev"))
	},
	LeaseExpired: func(f fields) string {
		if f.has("key") {
			return fmt.Sprintf("expires lease %s and deletes the %s key (revision %s)", f.get("lease"), f.get("key"), f.get("rev"))
		}
		return fmt.Sprintf("expires lease %s", f.get("lease"))
	},
	LeaseRevoked: func(f fields) string {
		if f.has("key") {
			return fmt.Sprintf("revokes lease %s and deletes the %s key (revision %s)", f.get("lease"), f.get("key"), f.get("rev"))
		}
		return fmt.Sprintf("revokes lease %s", f.get("lease"))
	},
	NoLease: func(f fields) string {
		return fmt.Sprintf("answers %s's %s: lease %s is gone", f.get("by"), f.get("op"), f.get("lease"))
	},
	Unavailable: func(fields) string { return "loses its leader (requests wait)" },
	Available:   func(fields) string { return "has a leader again and renews every lease" },
	Keepalive:   func(fields) string { return "" }, // one per lease per second: noise

	Partition: func(f fields) string { return "partition: " + f.get("cuts") },
	Heal:      func(fields) string { return "heals: every link works again" },
	Drop: func(f fields) string {
		return fmt.Sprintf("drops a message %s→%s (%s)", f.get("from"), f.get("to"), f.get("reason"))
	},
	Tamper: func(f fields) string {
		if f.has("drop") {
			return fmt.Sprintf("drops the message %s→%s sent at %s (drop-message fault)", f.get("from"), f.get("to"), f.get("sent"))
		}
		return fmt.Sprintf("holds the message %s→%s sent at %s and delivers it at %s (hold-message fault)", f.get("from"), f.get("to"), f.get("sent"), f.get("arrives"))
	},
}

// Told reports whether the kind has a sentence of its own.
func Told(kind string) bool {
	_, ok := sentences[kind]
	return ok
}

// Sentence is one record in words, without its actor. A kind with no
// sentence (see Told) keeps its structured form, so that nothing is ever
// hidden.
func Sentence(r sim.Record) string {
	if say, ok := sentences[r.Kind]; ok {
		return say(fields(r))
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
	if r.Kind != Starts {
		return false
	}
	_, lost := r.Get("lost")
	_, expired := r.Get("expired")
	return lost || expired
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
