package story

import (
	"fmt"
	"io"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/sim"
)

// TraceOptions choose what the trace leaves out.
type TraceOptions struct {
	// Drops includes every message the network dropped; they are many
	// under a partition and usually not the point.
	Drops bool
}

// WriteTrace writes the narration of recs (see the package comment): a line
// per record that has a Sentence. clk gives each actor's clocks (nil or
// missing for actors without a clock of their own, like the network).
func WriteTrace(w io.Writer, recs []sim.Record, clk map[string]*clocks.Process, o TraceOptions) error {
	width := 0
	for _, r := range recs {
		width = max(width, len(r.Actor))
	}
	for _, r := range recs {
		if r.Kind == Drop && !o.Drops {
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

// TraceHeader is the column heading that goes with WriteTrace's lines.
func TraceHeader(recs []sim.Record) string {
	width := len("actor")
	for _, r := range recs {
		width = max(width, len(r.Actor))
	}
	return fmt.Sprintf("%13s  %-*s %13s  %s\n", "true time", width, "actor", "its wall clock", "event")
}

// Seconds prints a time as the trace does; the lab labels its own lines
// with it.
func Seconds(d time.Duration) string { return seconds(d) }

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
