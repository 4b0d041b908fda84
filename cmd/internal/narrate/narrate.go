package narrate

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/sim"
)

// Options choose what the story leaves out.
type Options struct {
	// Drops includes every message the network dropped; they are many
	// under a partition and usually not the point.
	Drops bool
}

// Write writes the narration of recs. clk gives each actor's clocks (nil or
// missing for actors without a clock of their own, like the network).
func Write(w io.Writer, recs []sim.Record, clk map[string]*clocks.Process, o Options) error {
	width := 0
	for _, r := range recs {
		width = max(width, len(r.Actor))
	}
	for _, r := range recs {
		if r.Actor == "net" && r.Kind == "drop" && !o.Drops {
			continue
		}
		text := Sentence(r)
		if text == "" {
			continue
		}
		local := ""
		if p, ok := clk[r.Actor]; ok && p != nil {
			local = seconds(p.Wall.Local(r.At))
		}
		if _, err := fmt.Fprintf(w, "%13s  %-*s %13s  %s\n", seconds(r.At), width, r.Actor, local, text); err != nil {
			return err
		}
	}
	return nil
}

// Header is the column heading that goes with Write's lines.
func Header(recs []sim.Record) string {
	width := len("actor")
	for _, r := range recs {
		width = max(width, len(r.Actor))
	}
	return fmt.Sprintf("%13s  %-*s %13s  %s\n", "true time", width, "actor", "its wall clock", "event")
}

// seconds prints a time as seconds with microsecond precision: enough to
// order the events of a run, short enough to read.
func seconds(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	us := (d + 500*time.Nanosecond) / time.Microsecond
	return fmt.Sprintf("%s%d.%06ds", sign, us/1e6, us%1e6)
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

// Sentence is one record in words; unknown records keep their structured
// form so that nothing is ever hidden.
func Sentence(r sim.Record) string {
	f := func(k string) string { v, _ := r.Get(k); return v }
	has := func(k string) bool { _, ok := r.Get(k); return ok }
	switch r.Kind {
	// clients
	case "acquires":
		where := "on " + f("nodes")
		if f("nodes") == "store" { // the lease lock
			where = "from the store"
		}
		return fmt.Sprintf("acquires the lock %s (validity %s, value %s)", where, dur(f("validity")), Value(f("value")))
	case "gets-token":
		return fmt.Sprintf("gets fencing token %s from %s", f("token"), f("from"))
	case "try-fails":
		return "fails to acquire: " + f("why")
	case "lets-go":
		return "stops believing it holds the lock: " + f("why")
	case "writes":
		s := fmt.Sprintf("sends its write (element %s", Value(f("element")))
		if t := f("token"); t != "" && t != "0" {
			s += ", token " + t
		}
		return s + fmt.Sprintf(", based on version %s)", f("read-version"))
	case "gives-up":
		return "gives up waiting for its " + f("waiting-for") + " reply"
	case "abandons-write":
		return "abandons its write: only " + dur(f("remaining")) + " of validity left"
	case "extends":
		if has("key") { // a node pushing back a key's expiry
			return fmt.Sprintf("extends the %s key (value %s, expires when its wall clock reads %s)", f("key"), Value(f("value")), f("expire"))
		}
		return fmt.Sprintf("extends the lock (extension %s, validity %s)", f("extension"), dur(f("validity")))
	case "renews":
		return fmt.Sprintf("renews the lock to its full TTL of %s (the watchdog)", dur(f("ttl")))
	case "renewal-stops":
		return fmt.Sprintf("stops renewing the lock: the renewal failed (%s nodes agreed), and nothing tells the application", f("ok"))
	case "aborts-work":
		return "aborts its work: " + f("why")
	case "connects":
		return fmt.Sprintf("connects to %s and counts its quorum, %s, from them", f("nodes"), f("quorum"))
	case "extend-fails":
		return fmt.Sprintf("fails to extend the lock (%s nodes agreed)", f("ok"))
	case "lease-lost":
		return fmt.Sprintf("learns that its lease %s is gone", f("lease"))
	case "read-refused":
		return "has its read refused: " + f("err")
	// the world
	case "pauses":
		return fmt.Sprintf("pauses (%s) for %s", f("why"), f("for"))
	case "resumes":
		return fmt.Sprintf("wakes up; %s events were waiting for it", f("held-events"))
	case "crashes":
		return "crashes"
	case "loses power":
		return "loses power"
	case "restarts":
		return "restarts"
	case "clock-step":
		return "wall clock steps " + signed(f("by"))
	case "clock-slew":
		return "wall clock starts slewing by " + signed(f("by"))
	case "clock-rate":
		return "clock rate error becomes " + f("ppm") + " ppm"
	// Redis nodes
	case "starts":
		switch f("keys") {
		case "0":
			return fmt.Sprintf("starts as %s with an empty keyspace (persistence %s)", f("role"), f("persistence"))
		case "1":
			return fmt.Sprintf("starts as %s with 1 key (persistence %s)", f("role"), f("persistence"))
		}
		return fmt.Sprintf("starts as %s with %s keys (persistence %s)", f("role"), f("keys"), f("persistence"))
	case "sets":
		return fmt.Sprintf("sets the %s key (value %s, expires when its wall clock reads %s)", f("key"), Value(f("value")), f("expire"))
	case "expires":
		return fmt.Sprintf("expires the %s key (value %s)", f("key"), Value(f("value")))
	case "deletes":
		return fmt.Sprintf("deletes the %s key (value %s)", f("key"), Value(f("value")))
	case "refuses":
		return fmt.Sprintf("refuses %s from %s: %s", f("cmd"), f("from"), f("err"))
	case "full-sync":
		return fmt.Sprintf("sends a full sync to %s (%s keys)", f("to"), f("keys"))
	case "synced":
		return fmt.Sprintf("is in sync with master %s (%s keys)", f("master"), f("keys"))
	case "promoted":
		return "is promoted to master (was a replica of " + f("was_replica_of") + ")"
	case "replicaof":
		if has("node") {
			return fmt.Sprintf("tells %s to replicate %s", f("node"), f("master"))
		}
		return "becomes a replica of " + f("master")
	case "master-down":
		return fmt.Sprintf("declares master %s down after %s; promotes %s", f("master"), f("down_after"), f("promoting"))
	// the resource
	case "read":
		return fmt.Sprintf("serves %s's read (version %s)", f("by"), f("version"))
	case "write":
		s := fmt.Sprintf("accepts %s's write (element %s, version %s)", f("by"), Value(f("element")), f("version"))
		if d := strings.Trim(f("drops"), "[]"); d != "" {
			var names []string
			for _, e := range strings.Fields(d) {
				names = append(names, Value(e))
			}
			s += "; the update of " + strings.Join(names, ", ") + " is lost"
		}
		return s
	case "reject":
		return fmt.Sprintf("rejects %s's write: %s", f("by"), f("reason"))
	// the consensus store
	case "lease-grant":
		return fmt.Sprintf("grants lease %s (ttl %s) to %s", f("lease"), f("ttl"), f("to"))
	case "lock":
		return fmt.Sprintf("gives the %s key to %s (lease %s, revision %s)", f("key"), f("to"), f("lease"), f("rev"))
	case "lock-wait":
		return fmt.Sprintf("queues %s for the %s key (lease %s)", f("by"), f("key"), f("lease"))
	case "lease-expired":
		if has("key") {
			return fmt.Sprintf("expires lease %s and deletes the %s key (revision %s)", f("lease"), f("key"), f("rev"))
		}
		return fmt.Sprintf("expires lease %s", f("lease"))
	case "lease-revoked":
		if has("key") {
			return fmt.Sprintf("revokes lease %s and deletes the %s key (revision %s)", f("lease"), f("key"), f("rev"))
		}
		return fmt.Sprintf("revokes lease %s", f("lease"))
	case "no-lease":
		return fmt.Sprintf("answers %s's %s: lease %s is gone", f("by"), f("op"), f("lease"))
	case "unavailable":
		return "loses its leader (requests wait)"
	case "available":
		return "has a leader again and renews every lease"
	case "keepalive":
		return ""
	// the network
	case "partition":
		return "partition: " + f("cuts")
	case "heal":
		return "heals: every link works again"
	case "drop":
		return fmt.Sprintf("drops a message %s→%s (%s)", f("from"), f("to"), f("reason"))
	}
	return r.Kind + fieldText(r.Fields)
}

// dur rounds a duration field to the microsecond for reading.
func dur(s string) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	return d.Round(time.Microsecond).String()
}

func signed(s string) string {
	if s != "" && s[0] != '-' && s[0] != '+' {
		return "+" + s
	}
	return s
}

func fieldText(fs []sim.Field) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, " %s=%s", f.Key, f.Value)
	}
	return b.String()
}
