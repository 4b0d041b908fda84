package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/redlocksim/redlocksim/model"
)

// maxEventsFlag adds --max-events, each run's budget of events (and with
// it of history), to fs.
func maxEventsFlag(fs *flag.FlagSet) *uint64 {
	n := new(uint64)
	fs.Func("max-events", fmt.Sprintf("each run's budget of events, and with it, for a narrated run, of history (%d bytes per event; a fast run keeps none); a run whose estimate exceeds it is refused (default %d, about 1 GB of memory)", model.HistoryBytesPerEvent, model.DefaultMaxEvents), func(s string) error {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil || v == 0 {
			return fmt.Errorf("--max-events is a positive whole number of events, got %q", s)
		}
		*n = v
		return nil
	})
	return n
}
