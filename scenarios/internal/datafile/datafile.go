package datafile

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The formats a file may have, as scenario files spell them.
const (
	Durations    = "durations"
	JVMGC        = "jvm-gc"
	GoGCTrace    = "go-gctrace"
	RedisLatency = "redis-latency"
)

// Formats lists the formats, in the order the docs give them.
var Formats = []string{Durations, JVMGC, GoGCTrace, RedisLatency}

// want says, per format, what its lines look like, for errors.
var want = map[string]string{
	Durations:    `one duration per line, like "12ms" (or a CSV file with column set)`,
	JVMGC:        `JVM unified logging (-Xlog:gc) pause lines, like "[0.215s][info][gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(256M) 3.456ms"`,
	GoGCTrace:    `GODEBUG=gctrace=1 lines, like "gc 1 @0.012s 2%: 0.015+1.2+0.003 ms clock, ..."`,
	RedisLatency: `redis-cli --latency-history lines, like "min: 0, max: 1, avg: 0.19 (1367 samples) -- 15.01 seconds range"`,
	ChronyTracking: `chrony tracking.log lines, like "2017-08-22 13:22:36 203.0.113.15 2 -3.541 0.075 -8.621e-06 N 2 2.940e-03 ..." ` +
		`(date, time, reference, stratum, Freq ppm, Skew ppm, Offset, ...)`,
}

// Want is what a file of format looks like, for messages.
func Want(format string) string { return want[format] }

// Options are a table's settings for the durations format.
type Options struct {
	Column string        // the CSV column to read; "" for one duration per line
	Unit   time.Duration // what a bare number means; 0 refuses bare numbers
}

// Data is what a file gave.
type Data struct {
	Samples []time.Duration
	// At is, when the format has timestamps (jvm-gc with an uptime
	// decoration, go-gctrace), each sample's time since the log's start;
	// nil otherwise.
	At []time.Duration
}

// LineError is a problem at one line of a data file.
type LineError struct {
	Line int
	Text string
	Msg  string
}

func (e *LineError) Error() string {
	return fmt.Sprintf("line %d: %s: %s", e.Line, quote(e.Text), e.Msg)
}

func quote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return strconv.Quote(s)
}

// Parse reads data as format. A file that gives no samples, or fails to
// parse, and looks like another format is reported as that: the usual
// mistake is the wrong format, not a broken file.
func Parse(format string, data []byte, opt Options) (Data, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Data{}, fmt.Errorf("the file is empty; want %s", want[format])
	}
	var d Data
	var err error
	switch format {
	case Durations:
		d, err = durations(data, opt)
	case JVMGC:
		d, err = jvm(data)
	case GoGCTrace:
		d, err = gctrace(data)
	case RedisLatency:
		d, err = redisLatency(data)
	default:
		return Data{}, fmt.Errorf("unknown format %q; want one of %s", format, strings.Join(Formats, ", "))
	}
	if err == nil && len(d.Samples) == 0 {
		err = fmt.Errorf("no %s lines in the file; want %s", format, want[format])
	}
	if err != nil {
		if other, line := Detect(data); other == ChronyTracking {
			return Data{}, fmt.Errorf("this looks like a chrony tracking.log, not %s (line %d: %s): a clock table reads it, as chrony = \"FILE\"", format, line.n, quote(line.text))
		} else if other != "" && other != format {
			return Data{}, fmt.Errorf("this looks like a %s file, not %s (line %d: %s): set format = %q", other, format, line.n, quote(line.text), other)
		}
		return Data{}, err
	}
	return d, nil
}

type line struct {
	n    int
	text string
}

// lines splits data into numbered lines; a carriage return also ends one
// (redis-cli --latency redraws its line with them), keeping the number.
func lines(data []byte) []line {
	var out []line
	for i, l := range strings.Split(string(data), "\n") {
		for _, part := range strings.Split(l, "\r") {
			out = append(out, line{i + 1, part})
		}
	}
	return out
}

var (
	goLine     = regexp.MustCompile(`^gc (\d+) @(\d+(?:\.\d+)?)s \d+%: `)
	goClock    = regexp.MustCompile(`^gc \d+ @(\d+(?:\.\d+)?)s \d+%: (\d+(?:\.\d+)?)\+(\d+(?:\.\d+)?)\+(\d+(?:\.\d+)?) ms clock`)
	jvmPause   = regexp.MustCompile(`GC\(\d+\) (?:[YO]: )?Pause .*?(\d+(?:\.\d+)?)(ms|s|us|ns)\s*$`)
	jvmAny     = regexp.MustCompile(`\[gc[,\]]|GC\(\d+\)`)
	jvmUptime  = regexp.MustCompile(`\[(\d+(?:\.\d+)?)s\]`)
	jvmLegacy  = regexp.MustCompile(`\[(?:Full )?GC \(`)
	redisLine  = regexp.MustCompile(`^min: (\d+(?:\.\d+)?), max: (\d+(?:\.\d+)?), avg: (\d+(?:\.\d+)?) \((\d+) samples\)`)
	redisStart = regexp.MustCompile(`^min: .*avg:`)
)

// Detect is the format data looks like, with the first line that says so,
// from its first 2000 lines: the format most of them match. "" when none
// does.
func Detect(data []byte) (string, line) {
	counts := map[string]int{}
	first := map[string]line{}
	for i, l := range lines(data) {
		if i >= 2000 {
			break
		}
		t := strings.TrimSpace(l.text)
		f := ""
		switch {
		case goLine.MatchString(t):
			f = GoGCTrace
		case chronyLine.MatchString(t):
			f = ChronyTracking
		case jvmAny.MatchString(t) || jvmLegacy.MatchString(t):
			f = JVMGC
		case redisStart.MatchString(t):
			f = RedisLatency
		case t != "" && !strings.HasPrefix(t, "#"):
			if _, err := time.ParseDuration(t); err == nil {
				f = Durations
			}
		}
		if f != "" {
			if counts[f] == 0 {
				first[f] = l
			}
			counts[f]++
		}
	}
	best := ""
	for _, f := range slices.Concat(Formats, []string{ChronyTracking}) {
		if counts[f] > counts[best] {
			best = f
		}
	}
	return best, first[best]
}

// gctrace reads the stop-the-world phases of each gc line: the first
// (sweep termination) and third (mark termination) of the wall-clock
// triple; the second is the concurrent mark, which does not stop the
// program. Other lines (the program's own output) are skipped.
func gctrace(data []byte) (Data, error) {
	var d Data
	err := eachMatch(data, goLine, goClock, `want "gc N @Ts P%: A+B+C ms clock, ..." (A and C the stop-the-world phases)`, func(m []string) {
		at, _ := strconv.ParseFloat(m[1], 64)
		for _, s := range []string{m[2], m[4]} {
			ms, _ := strconv.ParseFloat(s, 64)
			d.Samples = append(d.Samples, fromFloat(ms, time.Millisecond))
			d.At = append(d.At, fromFloat(at, time.Second))
		}
	})
	if err != nil {
		return Data{}, err
	}
	return d, nil
}

// eachMatch reads a tool's output line by line: a line that starts is one
// of the tool's records, and must then match full, whose submatches go to
// each; want says what full expects. Other lines (a program's own output)
// are skipped.
func eachMatch(data []byte, starts, full *regexp.Regexp, want string, each func(m []string)) error {
	for _, l := range lines(data) {
		t := strings.TrimSpace(l.text)
		if !starts.MatchString(t) {
			continue
		}
		m := full.FindStringSubmatch(t)
		if m == nil {
			return &LineError{l.n, t, want}
		}
		each(m)
	}
	return nil
}

// jvm reads the pause lines of unified logging: "GC(n) Pause ..." ending
// in the pause's length, which G1, Parallel, Serial and Shenandoah write
// at [gc] and ZGC at [gc,phases]. Concurrent phases are not pauses and
// are skipped.
func jvm(data []byte) (Data, error) {
	var d Data
	timed := true
	gcLines := 0
	for _, l := range lines(data) {
		t := strings.TrimSpace(l.text)
		if jvmAny.MatchString(t) {
			gcLines++
		}
		if jvmLegacy.MatchString(t) && !jvmAny.MatchString(t) {
			return Data{}, &LineError{l.n, t, "an old-style -XX:+PrintGC log; this reads JVM unified logging: run java with -Xlog:gc (JDK 9 or later)"}
		}
		m := jvmPause.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return Data{}, &LineError{l.n, t, "want a pause length like 3.456ms at the end"}
		}
		unit := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "us": time.Microsecond, "ns": 1}[m[2]]
		d.Samples = append(d.Samples, fromFloat(v, unit))
		if u := jvmUptime.FindStringSubmatch(t); u != nil && timed {
			s, _ := strconv.ParseFloat(u[1], 64)
			d.At = append(d.At, fromFloat(s, time.Second))
		} else {
			timed = false
		}
	}
	if !timed {
		d.At = nil
	}
	if len(d.Samples) == 0 && gcLines > 0 {
		return Data{}, fmt.Errorf("%d GC lines but no pause lines (\"GC(n) Pause ... 1.234ms\"); ZGC logs its pauses at gc+phases: run java with -Xlog:gc,gc+phases", gcLines)
	}
	return d, nil
}

// redisLatency reads redis-cli --latency-history windows. The output
// gives each window's min, max and average round trip, not the single
// round trips, so each window gives one sample: half its average, the
// one-way delay a latency table means.
func redisLatency(data []byte) (Data, error) {
	var d Data
	err := eachMatch(data, redisStart, redisLine, `want "min: A, max: B, avg: C (N samples)" in milliseconds`, func(m []string) {
		avg, _ := strconv.ParseFloat(m[3], 64)
		d.Samples = append(d.Samples, fromFloat(avg/2, time.Millisecond))
	})
	if err != nil {
		return Data{}, err
	}
	return d, nil
}

// durations reads one duration per line, or a CSV column.
func durations(data []byte, opt Options) (Data, error) {
	var d Data
	value := func(n int, s string) error {
		s = strings.TrimSpace(s)
		v, err := time.ParseDuration(s)
		if err != nil {
			f, ferr := strconv.ParseFloat(s, 64)
			switch {
			case ferr == nil && opt.Unit == 0:
				return &LineError{n, s, fmt.Sprintf("a bare number: write a unit (%q), or set unit = \"ms\" (or another unit) in the table", s+"ms")}
			case ferr == nil && !math.IsNaN(f) && !math.IsInf(f, 0):
				v = fromFloat(f, opt.Unit)
			default:
				return &LineError{n, s, `want a duration like "12ms" or "1.5s"`}
			}
		}
		if v < 0 {
			return &LineError{n, s, "a duration here must not be negative"}
		}
		d.Samples = append(d.Samples, v)
		return nil
	}
	if opt.Column == "" {
		for _, l := range lines(data) {
			t := strings.TrimSpace(l.text)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if strings.Contains(t, ",") {
				return Data{}, &LineError{l.n, t, "a CSV line: set column to the column to read"}
			}
			if err := value(l.n, t); err != nil {
				return Data{}, err
			}
		}
		return d, nil
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		return Data{}, csvError(err)
	}
	col := slices.Index(header, opt.Column)
	if col < 0 {
		hl, _ := r.FieldPos(0)
		return Data{}, &LineError{hl, strings.Join(header, ","), fmt.Sprintf("no column %q in the header; the columns are %s", opt.Column, strings.Join(header, ", "))}
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return d, nil
		}
		if err != nil {
			return Data{}, csvError(err)
		}
		n, _ := r.FieldPos(0)
		if col >= len(rec) {
			return Data{}, &LineError{n, strings.Join(rec, ","), fmt.Sprintf("%d fields; column %q is field %d", len(rec), opt.Column, col+1)}
		}
		if err := value(n, rec[col]); err != nil {
			return Data{}, err
		}
	}
}

func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &LineError{pe.Line, "", "not valid CSV: " + pe.Err.Error()}
	}
	return err
}

// fromFloat converts v units to a Duration, rounding to the nanosecond.
func fromFloat(v float64, unit time.Duration) time.Duration {
	ns := v * float64(unit)
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(math.Round(ns))
}
