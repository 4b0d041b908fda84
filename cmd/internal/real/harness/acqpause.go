package harness

import (
	"fmt"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/real/resource"
	"github.com/redlocksim/redlocksim/model/check"
)

// acqPause is one pause on acquisition as it happened: the run records
// it so that each run can say where the stop fell in the paused hold's
// work (its read and its write), which decides what the hold does once
// it wakes.
type acqPause struct {
	client string
	lock   uint64        // the paused hold's lock value
	hold   time.Duration // its acquisition record
	stop   time.Duration // the SIGSTOP
	end    time.Duration // the SIGCONT
	how    string        // where in its work the client stopped itself
}

// acqPauseNotes says, for each pause on acquisition, when the stop came
// after the acquisition record, when the hold's read reached the
// resource (before the stop, after the wake, or never), and what became
// of its write: accepted (and on how old a read), refused, or not made,
// with the client's own word for why.
func (r *run) acqPauseNotes() []string {
	r.mu.Lock()
	pauses := append([]acqPause(nil), r.acqPauses...)
	r.mu.Unlock()
	if len(pauses) == 0 {
		return nil
	}
	ops := r.res.Ops()
	var out []string
	for _, p := range pauses {
		var read, write *resource.Op
		writesSince := 0
		for i := range ops {
			op := &ops[i]
			switch {
			case op.Client == p.client && op.Lock == p.lock && op.Kind == resource.Read && read == nil:
				read = op
			case op.Client == p.client && op.Lock == p.lock && op.Kind == resource.Write && write == nil:
				write = op
			case op.Kind == resource.Write && op.Accepted && read != nil && write == nil:
				writesSince++
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s's pause on acquisition: SIGSTOP %v after its acquisition record at %v (hold %s), taken by the client itself %s, SIGCONT at %v; its read ",
			p.client, (p.stop - p.hold).Round(time.Microsecond), p.hold.Round(time.Microsecond), check.ElementName(p.lock), p.how, p.end.Round(time.Millisecond))
		switch {
		case read == nil:
			b.WriteString("never reached the resource")
		case read.At < p.stop:
			fmt.Fprintf(&b, "reached the resource %v after the record, before the stop", (read.At - p.hold).Round(time.Microsecond))
		case read.At < p.end:
			// Sent before the stop took effect, it reached the resource
			// while the client was stopped: its reply and its deadline
			// were both due when the client woke.
			fmt.Fprintf(&b, "reached the resource %v after the record, during the pause", (read.At - p.hold).Round(time.Microsecond))
		default:
			fmt.Fprintf(&b, "reached the resource %v after the record, %v after the SIGCONT", (read.At - p.hold).Round(time.Microsecond), (read.At - p.end).Round(time.Microsecond))
		}
		switch {
		case write == nil:
			b.WriteString("; it made no write")
			if why := r.firstNote(p.client, p.hold); why != "" {
				b.WriteString(" (" + why + ")")
			}
		case write.Accepted:
			fmt.Fprintf(&b, "; its write was accepted at %v, on a read with %d accepted writes since", write.At.Round(time.Microsecond), writesSince)
		default:
			fmt.Fprintf(&b, "; its write was refused at %v: %s", write.At.Round(time.Microsecond), write.Reason)
		}
		out = append(out, b.String())
	}
	return out
}

// firstNote is client name's first note at or after at, "" if none.
func (r *run) firstNote(name string, at time.Duration) string {
	for _, cp := range r.clients {
		if cp.name != name {
			continue
		}
		cp.mu.Lock()
		defer cp.mu.Unlock()
		for _, ev := range cp.evs {
			if ev.Kind == EvNote && ev.At >= at {
				return ev.Text
			}
		}
	}
	return ""
}
