package sim

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Field is one key/value pair of a trace record.
type Field struct {
	Key   string
	Value string
}

// F builds a Field, formatting the value with %v (durations print in Go's
// stable Duration format).
func F(key string, value any) Field {
	switch v := value.(type) {
	case string:
		return Field{key, v}
	case time.Duration:
		return Field{key, v.String()}
	default:
		return Field{key, fmt.Sprint(v)}
	}
}

// Record is one structured trace entry: what happened, to whom, at which true
// time.
type Record struct {
	At     time.Duration
	Actor  string
	Kind   string
	Fields []Field
}

// Get returns the value of field key and whether it is present.
func (r Record) Get(key string) (string, bool) {
	for _, f := range r.Fields {
		if f.Key == key {
			return f.Value, true
		}
	}
	return "", false
}

// String is the record's stable one-line text form:
//
//	12.000250000s c1 acquire key=lock validity=9.89s
//
// Field order is the order the recorder was given, so the form is stable as
// long as the code that records is.
func (r Record) String() string {
	var b strings.Builder
	b.WriteString(FormatTime(r.At))
	b.WriteByte(' ')
	b.WriteString(r.Actor)
	b.WriteByte(' ')
	b.WriteString(r.Kind)
	for _, f := range r.Fields {
		b.WriteByte(' ')
		b.WriteString(f.Key)
		b.WriteByte('=')
		if strings.ContainsAny(f.Value, " \t\n\"=") || f.Value == "" {
			fmt.Fprintf(&b, "%q", f.Value)
		} else {
			b.WriteString(f.Value)
		}
	}
	return b.String()
}

// FormatTime prints a true time as seconds with nanosecond precision, fixed
// width after the point, so that golden traces line up and sort as text.
func FormatTime(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign = "-"
		d = -d
	}
	return fmt.Sprintf("%s%d.%09ds", sign, d/time.Second, d%time.Second)
}

// Recorder collects trace records. A nil *Recorder is a valid, disabled
// recorder: Add does nothing, so tracing costs one nil check when off.
// Callers that build fields should test Kernel.Tracing first so that the
// fields are not built at all.
type Recorder struct {
	records []Record

	// A recorder made by NewSpanRecorder records only inside its spans,
	// and hands each record to its sink instead of keeping it.
	windowed bool
	spans    []Span
	next     int // the first span that has not ended by the last check
	sink     func(Record)
}

// Span is a closed interval of true time.
type Span struct{ From, To time.Duration }

// NewRecorder returns an empty, enabled recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// NewSpanRecorder returns a recorder that records only at true times inside
// spans (closed intervals, sorted, not overlapping) and hands each record
// to sink instead of keeping it. Outside the spans Kernel.Tracing is
// false, so that callers build no record there at all: a run narrated only
// where it will be read costs little more than one not narrated, and keeps
// only what sink keeps. It panics on spans out of order.
func NewSpanRecorder(spans []Span, sink func(Record)) *Recorder {
	for i, s := range spans {
		if s.To < s.From || (i > 0 && s.From <= spans[i-1].To) {
			panic(fmt.Sprintf("sim: span %d [%v, %v] is empty or not after the one before", i, s.From, s.To))
		}
	}
	if sink == nil {
		panic("sim: NewSpanRecorder with a nil sink")
	}
	return &Recorder{windowed: true, spans: spans, sink: sink}
}

// on reports whether the recorder records at true time now, which never
// goes back.
func (r *Recorder) on(now time.Duration) bool {
	if !r.windowed {
		return true
	}
	for r.next < len(r.spans) && r.spans[r.next].To < now {
		r.next++
	}
	return r.next < len(r.spans) && r.spans[r.next].From <= now
}

// Add appends a record, or hands it to the sink of a span recorder.
func (r *Recorder) Add(rec Record) {
	if r == nil {
		return
	}
	if r.sink != nil {
		r.sink(rec)
		return
	}
	r.records = append(r.records, rec)
}

// Records returns the records so far, in the order they were added (which is
// true-time order, because the kernel fires events in time order).
func (r *Recorder) Records() []Record {
	if r == nil {
		return nil
	}
	return r.records
}

// WriteTo writes the stable text form, one record per line.
func (r *Recorder) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, rec := range r.Records() {
		m, err := io.WriteString(w, rec.String()+"\n")
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// SetTrace attaches a recorder to the kernel (nil turns tracing off).
func (k *Kernel) SetTrace(r *Recorder) { k.trace = r }

// Trace returns the kernel's recorder; it is nil (and disabled) when tracing
// is off.
func (k *Kernel) Trace() *Recorder { return k.trace }

// Tracing reports whether the kernel records a trace now: it has a
// recorder, and, for a span recorder, the current time is in one of its
// spans. It does not change within one instant.
func (k *Kernel) Tracing() bool { return k.trace != nil && k.trace.on(k.now) }

// Record adds a record stamped with the current true time. With tracing off
// it returns at once; callers should still guard calls that build fields with
// Tracing() so that the variadic slice is never built.
func (k *Kernel) Record(actor, kind string, fields ...Field) {
	if !k.Tracing() {
		return
	}
	k.trace.Add(Record{At: k.now, Actor: actor, Kind: kind, Fields: fields})
}
