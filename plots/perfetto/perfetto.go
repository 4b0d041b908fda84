package perfetto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Trace is the plain data of one run.
type Trace struct {
	Title    string
	Tracks   []string // the processes, in display order
	Slices   []Slice
	Instants []Instant
	Messages []Message
}

// Slice is an interval on one track.
type Slice struct {
	Track      string
	Cat        string // hold, key, pause, down
	Name       string
	Start, End time.Duration
	Args       map[string]string
}

// Instant is a moment on one track, or on every track when Track is "".
type Instant struct {
	Track string
	Cat   string // clock, write, reject, partition, heal, promotion, election
	Name  string
	At    time.Duration
	Args  map[string]string
}

// Message is one delivered message.
type Message struct {
	From, To string
	Sent, At time.Duration
	Kind     string
	Req      uint64 // the request id a reply echoes; 0 for neither
	Reply    bool
}

// Slice categories' threads.
const (
	tidLock   = 1
	tidFaults = 2
	tidEvents = 3
)

var threadNames = map[int]string{tidLock: "lock", tidFaults: "faults", tidEvents: "events"}

func sliceThread(cat string) int {
	switch cat {
	case "pause", "down":
		return tidFaults
	}
	return tidLock
}

// Event is one trace event. Field names and the omitempty choices follow
// the format: ts and pid and tid are always present.
type Event struct {
	Name string   `json:"name"`
	Cat  string   `json:"cat,omitempty"`
	Ph   string   `json:"ph"`
	Ts   float64  `json:"ts"`
	Dur  *float64 `json:"dur,omitempty"`
	Pid  int      `json:"pid"`
	Tid  int      `json:"tid"`
	S    string   `json:"s,omitempty"`
	ID   string   `json:"id,omitempty"`
	Bp   string   `json:"bp,omitempty"`
	Args any      `json:"args,omitempty"`
}

// File is the JSON object the format calls the "JSON Object Format".
type File struct {
	TraceEvents     []Event           `json:"traceEvents"`
	DisplayTimeUnit string            `json:"displayTimeUnit"`
	OtherData       map[string]string `json:"otherData,omitempty"`
}

// us converts true time to the format's microseconds, keeping nanoseconds
// as the fraction.
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// Encode returns the trace as Trace Event JSON. The output depends only on
// t: events come in a fixed order and args are maps, which encoding/json
// writes in key order.
func Encode(t Trace) ([]byte, error) {
	pid := map[string]int{}
	var evs []Event
	for i, name := range t.Tracks {
		if _, dup := pid[name]; dup {
			return nil, fmt.Errorf("perfetto: track %q listed twice", name)
		}
		pid[name] = i + 1
		evs = append(evs,
			Event{Name: "process_name", Ph: "M", Pid: i + 1, Args: map[string]any{"name": name}},
			Event{Name: "process_sort_index", Ph: "M", Pid: i + 1, Args: map[string]any{"sort_index": i}})
		for _, tid := range []int{tidLock, tidFaults, tidEvents} {
			evs = append(evs, Event{Name: "thread_name", Ph: "M", Pid: i + 1, Tid: tid, Args: map[string]any{"name": threadNames[tid]}})
		}
	}
	track := func(name string) (int, error) {
		p, ok := pid[name]
		if !ok {
			return 0, fmt.Errorf("perfetto: %q is not one of the tracks", name)
		}
		return p, nil
	}
	for _, s := range t.Slices {
		p, err := track(s.Track)
		if err != nil {
			return nil, err
		}
		if s.End < s.Start {
			return nil, fmt.Errorf("perfetto: slice %q on %s ends (%v) before it starts (%v)", s.Name, s.Track, s.End, s.Start)
		}
		dur := us(s.End) - us(s.Start)
		evs = append(evs, Event{Name: s.Name, Cat: s.Cat, Ph: "X", Ts: us(s.Start), Dur: &dur, Pid: p, Tid: sliceThread(s.Cat), Args: anyArgs(s.Args)})
	}
	for _, in := range t.Instants {
		e := Event{Name: in.Name, Cat: in.Cat, Ph: "i", Ts: us(in.At), Args: anyArgs(in.Args)}
		if in.Track == "" {
			e.S = "g"
		} else {
			p, err := track(in.Track)
			if err != nil {
				return nil, err
			}
			e.Pid, e.Tid, e.S = p, tidEvents, "t"
		}
		evs = append(evs, e)
	}
	msgEvs, err := messages(t.Messages, track)
	if err != nil {
		return nil, err
	}
	evs = append(evs, msgEvs...)
	f := File{TraceEvents: evs, DisplayTimeUnit: "ms"}
	if t.Title != "" {
		f.OtherData = map[string]string{"title": t.Title}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// anyArgs is m as an event's args; nil when empty, so that omitempty
// leaves it out.
func anyArgs(m map[string]string) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// messageArgs are a message instant's args: a struct rather than a map,
// because a long run has hundreds of thousands of them.
type messageArgs struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	SentUs    float64 `json:"sent_us"`
	LatencyUs float64 `json:"latency_us"`
	Req       uint64  `json:"req,omitempty"`
}

// messages draws each message as an instant on its receiver and joins each
// reply to its request with a flow. A reply pairs with the latest request
// from its receiver to its sender with the same Req that has no reply yet.
func messages(ms []Message, track func(string) (int, error)) ([]Event, error) {
	type key struct {
		client, server string
		req            uint64
	}
	open := map[key][]int{} // → indices in evs of request instants awaiting a reply
	evs := make([]Event, 0, len(ms))
	var flows []Event
	nextFlow := 1
	for _, m := range ms {
		p, err := track(m.To)
		if err != nil {
			return nil, err
		}
		if _, err := track(m.From); err != nil {
			return nil, err
		}
		args := &messageArgs{From: m.From, To: m.To, SentUs: us(m.Sent), LatencyUs: us(m.At - m.Sent), Req: m.Req}
		evs = append(evs, Event{Name: m.Kind + " from " + m.From, Cat: "message", Ph: "i", Ts: us(m.At), Pid: p, Tid: tidEvents, S: "t", Args: args})
		if m.Req == 0 {
			continue
		}
		if !m.Reply {
			k := key{m.From, m.To, m.Req}
			open[k] = append(open[k], len(evs)-1)
			continue
		}
		k := key{m.To, m.From, m.Req}
		q := open[k]
		if len(q) == 0 {
			continue // its request was never delivered as such (cannot happen in a run, but input is data)
		}
		req := evs[q[len(q)-1]]
		open[k] = q[:len(q)-1]
		id := fmt.Sprint(nextFlow)
		nextFlow++
		// Flow events bind to the event with the same cat, pid, tid and
		// ts: the request's and the reply's instants.
		flows = append(flows,
			Event{Name: "request → reply", Cat: "message", Ph: "s", Ts: req.Ts, Pid: req.Pid, Tid: req.Tid, ID: id},
			Event{Name: "request → reply", Cat: "message", Ph: "f", Ts: us(m.At), Pid: p, Tid: tidEvents, ID: id, Bp: "e"})
	}
	return slices.Concat(evs, flows), nil
}
