package scenarios

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomlpos"
)

// CheckNesting refuses a document whose arrays and inline tables nest
// deeper than any scenario or sweep spec needs (tomlpos.MaxDepth), as an
// *Error at the line where it goes too deep. It runs before the decoder,
// in one pass and constant memory, so that a hostile file is refused in
// microseconds instead of taking gigabytes to decode and position.
func CheckNesting(file string, data []byte) error {
	var de *tomlpos.DepthError
	if err := tomlpos.CheckDepth(string(data)); errors.As(err, &de) {
		return &Error{File: file, Line: de.Line, Msg: fmt.Sprintf("arrays and inline tables nest more than %d deep here; no scenario needs more than 3", tomlpos.MaxDepth)}
	}
	return nil
}

// MinPeriod is the shortest period, or mean interval, the loader accepts
// for what recurs through a whole run (pauses, fsyncs, sentinel pings): a
// shorter one has no physical meaning (no process is paused a million
// times a second) and only makes a run's events, and its memory, without
// bound.
const MinPeriod = time.Millisecond

// busyLoop reports a workload that asks for the lock again at once, without
// end: no think time, no retry delay, and no limit on iterations. Such a
// client's requests are limited only by the network's latency (by
// nothing, with zero latency).
func (d *decoder) busyLoop(cfg *model.Config) {
	w, l := cfg.Work, cfg.Lock
	if w.Iterations > 0 || w.Think >= MinPeriod || l.RetryDelay >= MinPeriod {
		return
	}
	key := "workload.think"
	if d.pos.Line(key) == 0 && d.pos.Line("lock.retry_delay") > 0 {
		key = "lock.retry_delay"
	}
	d.errAt(key, "think = %v with retry_delay = %v has every client ask for the lock again at once, without end: set think or lock.retry_delay to at least %v, or limit workload.iterations", w.Think, l.RetryDelay, MinPeriod)
}

// MaxFileBytes bounds a scenario or sweep file. The largest built-in file
// is under 8 KiB; a file of more than a mebibyte is not a scenario someone
// wrote, and decoding one (a gigabyte took 44 s and 7 GB) would cost more
// than any run it could describe. ReadFile reads no more than this (and one
// byte), whatever the file's size.
const MaxFileBytes = 1 << 20

// Limits on text fields, in bytes: a name is a word, a description one
// line, and a lesson, claim or answer a few paragraphs (the library's
// longest lesson is under 2 KiB).
const (
	MaxNameBytes        = 64
	MaxDescriptionBytes = 500
	MaxTextBytes        = 16 << 10
)

// TextLimit is the length limit of the text field key (a top-level name,
// description, lesson, or a debate's claim or answer); what does not name
// one of these gets MaxTextBytes.
func TextLimit(key string) int {
	switch key {
	case "name":
		return MaxNameBytes
	case "description":
		return MaxDescriptionBytes
	}
	return MaxTextBytes
}

// CheckText is the error message for a text field over its limit, or "".
func CheckText(key, s string) string {
	lim := TextLimit(key)
	if len(s) <= lim {
		return ""
	}
	what := "a text field"
	switch key {
	case "name":
		what = "a name"
	case "description":
		what = "a description (one line; put more in lesson)"
	}
	return fmt.Sprintf("is %d bytes long: at most %d bytes for %s", len(s), lim, what)
}

// CheckSize refuses a document of more than MaxFileBytes, as an *Error
// naming file, before anything decodes it.
func CheckSize(file string, n int64) error {
	if n > MaxFileBytes {
		return &Error{File: file, Msg: fmt.Sprintf("the file is %s: too large, a scenario or sweep file may be at most %d bytes (1 MiB)", sizeText(n), MaxFileBytes)}
	}
	return nil
}

// sizeText is a file size for a message; a file read only up to the
// limit is "more than 1 MiB".
func sizeText(n int64) string {
	switch {
	case n == MaxFileBytes+1:
		return "more than 1 MiB"
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// ReadFile reads a scenario or sweep file, refusing one over MaxFileBytes
// at once: from its size where the file has one, and by reading at most
// one byte more than the limit otherwise (a pipe, a device), so that time
// and memory stay bounded whatever path is given.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if err := CheckSize(path, fi.Size()); err != nil {
			return nil, err
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if err := CheckSize(path, int64(len(data))); err != nil {
		return nil, err
	}
	return data, nil
}
