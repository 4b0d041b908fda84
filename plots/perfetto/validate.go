package perfetto

import (
	"encoding/json"
	"fmt"
)

// Validate checks Trace Event JSON against the format's required fields,
// phase by phase, and that both ends of every flow bind to an event (the
// binding rule: same cat, pid, tid and ts). It returns the number of
// events by "phase:category", so that a test can compare them with the
// run. It knows the phases this package writes, and refuses others.
func Validate(data []byte) (map[string]int, error) {
	var f struct {
		TraceEvents     []map[string]any `json:"traceEvents"`
		DisplayTimeUnit string           `json:"displayTimeUnit"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if f.TraceEvents == nil {
		return nil, fmt.Errorf("no traceEvents array")
	}
	if f.DisplayTimeUnit != "ms" && f.DisplayTimeUnit != "ns" {
		return nil, fmt.Errorf("displayTimeUnit %q is neither ms nor ns", f.DisplayTimeUnit)
	}
	counts := map[string]int{}
	type bind struct {
		cat      string
		pid, tid float64
		ts       float64
	}
	bound := map[bind]bool{}
	var flows []map[string]any
	for i, e := range f.TraceEvents {
		name, ok := e["name"].(string)
		if !ok {
			return nil, fmt.Errorf("event %d: no name", i)
		}
		ph, _ := e["ph"].(string)
		for _, k := range []string{"ts", "pid", "tid"} {
			if _, ok := e[k].(float64); !ok {
				return nil, fmt.Errorf("event %d (%s): %s is not a number", i, name, k)
			}
		}
		cat, _ := e["cat"].(string)
		switch ph {
		case "M":
			args, _ := e["args"].(map[string]any)
			if args["name"] == nil && args["sort_index"] == nil {
				return nil, fmt.Errorf("event %d: metadata %s without args", i, name)
			}
		case "X":
			d, ok := e["dur"].(float64)
			if !ok || d < 0 {
				return nil, fmt.Errorf("event %d (%s): complete event without a non-negative dur", i, name)
			}
		case "i":
			if s := e["s"]; s != "g" && s != "p" && s != "t" {
				return nil, fmt.Errorf("event %d (%s): instant scope %v", i, name, s)
			}
		case "s", "f":
			if _, ok := e["id"].(string); !ok {
				return nil, fmt.Errorf("event %d (%s): flow without an id", i, name)
			}
			flows = append(flows, e)
		default:
			return nil, fmt.Errorf("event %d (%s): phase %q is not one this exporter writes", i, name, ph)
		}
		if ph == "X" || ph == "i" {
			bound[bind{cat, e["pid"].(float64), e["tid"].(float64), e["ts"].(float64)}] = true
		}
		counts[ph+":"+cat]++
	}
	starts := map[string]float64{}
	for _, e := range flows {
		cat, _ := e["cat"].(string)
		if !bound[bind{cat, e["pid"].(float64), e["tid"].(float64), e["ts"].(float64)}] {
			return nil, fmt.Errorf("flow %v binds to no event", e)
		}
		id := e["id"].(string)
		if e["ph"] == "s" {
			starts[id] = e["ts"].(float64)
		} else if t, ok := starts[id]; !ok || t > e["ts"].(float64) {
			return nil, fmt.Errorf("flow %s ends before it starts or without a start", id)
		} else if e["bp"] != "e" {
			return nil, fmt.Errorf("flow %s's end does not bind to its enclosing slice", id)
		}
	}
	return counts, nil
}
