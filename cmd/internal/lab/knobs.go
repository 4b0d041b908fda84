package lab

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redlocksim/redlocksim/scenarios"
)

// knobJSON is one control of the page: the scenario key it overrides
// (run's --set key), its value as the scenario has it now (with the
// overrides applied), and the choices of an enum.
type knobJSON struct {
	Key     string   `json:"key"`
	Label   string   `json:"label"`
	Group   string   `json:"group"` // "lock", "nodes", "resource", "clients", "fault N: KIND TARGET"
	Type    string   `json:"type"`  // duration, float, int, enum
	Value   string   `json:"value"`
	Options []string `json:"options,omitempty"`
}

// faultKnobKeys are the keys of a fault a knob changes, with their labels
// and types; the others (kind, groups, partition mode) are the fault's
// shape, which inject and the file change.
var faultKnobKeys = []struct{ key, label, typ string }{
	{"at", "at", "duration"},
	{"for", "for", "duration"},
	{"by", "by", "duration"},
	{"ppm", "ppm", "float"},
	{"max_ppm", "max ppm", "float"},
	{"prob", "probability", "float"},
	{"target", "target", "enum"},
	{"to", "to", "enum"},
}

// knobs are the controls for sc as loaded: the lock's TTL, drift factor
// and retries, the node count and persistence, the resource's protection,
// the client's elapsed-time clock, and each fault's time, length,
// magnitude and target.
func knobs(sc *scenarios.Scenario) []knobJSON {
	c := sc.Config
	l := c.Lock
	out := []knobJSON{
		{Key: "lock.ttl", Label: "TTL", Group: "lock", Type: "duration", Value: l.TTL.String()},
		{Key: "lock.drift_factor", Label: "drift factor", Group: "lock", Type: "float", Value: strconv.FormatFloat(l.DriftFactor, 'g', -1, 64)},
		{Key: "lock.retries", Label: "retries", Group: "lock", Type: "int", Value: strconv.Itoa(l.Retries)},
	}
	if k := l.Algorithm.TTLKey(); k != "" {
		// Timed by its own key (a session timeout), which takes no ttl,
		// and with no drift allowance.
		out = []knobJSON{
			{Key: "lock." + k, Label: strings.ReplaceAll(k, "_", " "), Group: "lock", Type: "duration", Value: l.TTL.String()},
			out[2],
		}
	}
	if l.Algorithm.Elapsed() {
		out = append(out, knobJSON{Key: "lock.elapsed_clock", Label: "client elapsed clock", Group: "lock", Type: "enum", Value: l.ElapsedClock.String(), Options: []string{"wall", "monotonic"}})
	}
	if len(c.Nodes) > 0 {
		out = append(out,
			knobJSON{Key: "nodes.count", Label: "nodes", Group: "nodes", Type: "int", Value: strconv.Itoa(len(c.Nodes))},
			knobJSON{Key: "nodes.persistence", Label: "persistence", Group: "nodes", Type: "enum", Value: c.Nodes[0].Redis.Persistence.String(), Options: []string{"none", "everysec", "always"}})
	}
	out = append(out, knobJSON{Key: "resource.mode", Label: "resource protection", Group: "resource", Type: "enum", Value: c.Resource.Mode.String(), Options: []string{"unprotected", "fencing", "compare-and-set"}})
	var procs []string
	for _, cl := range c.Clients {
		procs = append(procs, cl.Name)
	}
	for _, n := range c.Nodes {
		procs = append(procs, n.Name)
	}
	for i, f := range c.Faults {
		m, err := scenarios.FaultValue(f)
		if err != nil {
			continue // a kind without a file form has no knobs either
		}
		group := fmt.Sprintf("fault %d: %v", i+1, f.Kind)
		if f.Target != "" {
			group += " " + f.Target
		}
		for _, k := range faultKnobKeys {
			v, ok := m[k.key]
			if !ok {
				continue
			}
			kn := knobJSON{Key: fmt.Sprintf("faults[%d].%s", i, k.key), Label: k.label, Group: group, Type: k.typ}
			switch v := v.(type) {
			case string:
				kn.Value = v
			case float64:
				kn.Value = strconv.FormatFloat(v, 'g', -1, 64)
			default:
				kn.Value = fmt.Sprint(v)
			}
			if k.typ == "enum" {
				kn.Options = slices.Clone(procs)
				if !slices.Contains(kn.Options, kn.Value) {
					kn.Options = append(kn.Options, kn.Value)
				}
			}
			out = append(out, kn)
		}
	}
	return out
}
