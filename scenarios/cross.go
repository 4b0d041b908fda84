package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomlpos"
)

// world is who exists in a decoded Config, for the checks across keys.
type world struct {
	nodes, clients []string
	processes      []string // what a pause or a clock fault can hit
	endpoints      []string // what the network connects
	lease          bool
	failover       bool
}

func newWorld(cfg *model.Config) *world {
	w := &world{
		lease:    cfg.Lock.Algorithm == client.Lease,
		failover: cfg.Lock.Algorithm == client.Failover,
	}
	for _, n := range cfg.Nodes {
		w.nodes = append(w.nodes, n.Name)
	}
	for _, c := range cfg.Clients {
		w.clients = append(w.clients, c.Name)
	}
	w.processes = append(slices.Clone(w.nodes), w.clients...)
	if w.lease {
		w.processes = append(w.processes, "store")
	}
	w.endpoints = append(slices.Clone(w.processes), "resource")
	if w.failover {
		w.endpoints = append(w.endpoints, "sentinel")
	}
	return w
}

// unknown explains that no what in list is called name.
func (w *world) unknown(name, what string, list []string) string {
	msg := fmt.Sprintf("no %s is called %q (valid: %s)", what, name, listNames(list))
	switch {
	case name == "store" && !w.lease:
		msg += `; the store exists only with algorithm = "lease"`
	case name == "sentinel" && !w.failover:
		msg += `; the sentinel exists only with algorithm = "failover"`
	}
	return msg
}

func listNames(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	if len(list) > 12 {
		return strings.Join(list[:12], ", ") + fmt.Sprintf(", … (%d in all)", len(list))
	}
	return strings.Join(list, ", ")
}

// cross checks what spans several tables and model.Config.Validate does
// not: endpoint names against the processes that will exist, and clock
// faults against the clocks they change. It runs on a Config that decoded
// without errors.
func (d *decoder) cross(cfg *model.Config) {
	w := newWorld(cfg)
	d.uniqueNames(w)
	for i, l := range cfg.Network.Links {
		path := tomlpos.Index("network.link", i)
		if !slices.Contains(w.endpoints, l.From) {
			d.errAt(path+".from", "%s", w.unknown(l.From, "endpoint", w.endpoints))
		}
		if !slices.Contains(w.endpoints, l.To) {
			d.errAt(path+".to", "%s", w.unknown(l.To, "endpoint", w.endpoints))
		} else if l.To == l.From {
			d.errAt(path+".to", "a link joins two different endpoints; from and to are both %q", l.To)
		}
	}
	for i, f := range cfg.Faults {
		path := tomlpos.Index("faults", i)
		check := func(key, name, what string, list []string) {
			if !slices.Contains(list, name) {
				d.errAt(path+"."+key, "%s", w.unknown(name, what, list))
			}
		}
		switch f.Kind {
		case model.Crash, model.PowerLoss:
			check("target", f.Target, "node", w.nodes)
		case model.Pause, model.ClockStep, model.ClockRate, model.ClockSlew:
			check("target", f.Target, "node, client or store", w.processes)
		case model.Partition:
			if f.Partition == network.PartitionIsolate {
				check("target", f.Target, "endpoint", w.endpoints)
			}
			for g, group := range f.Groups {
				for j, n := range group {
					if !slices.Contains(w.endpoints, n) {
						d.errAt(tomlpos.Index(tomlpos.Index(path+".groups", g), j), "%s", w.unknown(n, "endpoint", w.endpoints))
					}
				}
			}
		case model.Spike, model.Cut:
			if f.Target != "" {
				check("target", f.Target, "endpoint", w.endpoints)
			}
			if f.To != "" {
				check("to", f.To, "endpoint", w.endpoints)
			}
			if f.Kind == model.Cut && f.Target == f.To {
				d.errAt(path+".to", "a cut joins two different endpoints; target and to are both %q", f.To)
			}
		}
	}
	if len(d.errs) == 0 {
		d.clockFaults(cfg, w)
	}
}

// uniqueNames reports node and client names that collide with each other
// or with the fixed endpoints, at the name the file wrote out (a names
// entry rather than a count).
func (d *decoder) uniqueNames(w *world) {
	fixed := map[string]string{"resource": "the resource", "store": "the store", "sentinel": "the sentinel"}
	where := func(kind string, i int) (string, bool) {
		o := d.origins[fmt.Sprintf("%s[%d]", kind, i)]
		return o.path, strings.Contains(o.path, ".names[")
	}
	for _, g := range []struct {
		kind  string
		names []string
	}{{"nodes", w.nodes}, {"clients", w.clients}} {
		for i, n := range g.names {
			if what, ok := fixed[n]; ok {
				path, _ := where(g.kind, i)
				d.errAt(path, "the name %q belongs to %s; choose another", n, what)
			}
		}
	}
	for i, c := range w.clients {
		j := slices.Index(w.nodes, c)
		if j < 0 {
			continue
		}
		path, explicit := where("clients", i)
		if !explicit {
			path, _ = where("nodes", j)
		}
		d.errAt(path, "%q names both a node and a client; names must be unique across nodes and clients", c)
	}
}

// clockFaults checks that each process's clock stays valid once the clock
// faults aimed at it are folded in, as the world folds them, and blames
// the first fault that breaks it.
func (d *decoder) clockFaults(cfg *model.Config, w *world) {
	specs := make(map[string]clocks.Spec)
	for _, n := range cfg.Nodes {
		specs[n.Name] = n.Clock
	}
	for _, c := range cfg.Clients {
		specs[c.Name] = c.Clock
	}
	if w.lease {
		specs["store"] = cfg.Store.Clock
	}
	for _, name := range w.processes {
		spec := specs[name]
		for i, f := range cfg.Faults {
			if f.Target != name || f.At >= cfg.Duration {
				continue // Validate reports a fault after the end
			}
			var folded bool
			if spec, folded = model.WithClockFault(spec, f); !folded {
				continue
			}
			if err := spec.Validate(); err != nil {
				d.errAt(tomlpos.Index("faults", i), "this %v makes %s's clock invalid, together with its clock table and earlier clock faults: %s",
					f.Kind, name, strings.TrimPrefix(err.Error(), "clocks: "))
				break
			}
		}
	}
}

// modelErrors reports the errors of model.Config.Validate at the file keys
// they come from.
func (d *decoder) modelErrors(err error) {
	for _, msg := range flatten(err) {
		d.modelError(msg)
	}
}

// flatten splits an error tree of errors.Join and %w wrapping into one
// message per leaf, each with the prefixes of the errors wrapping it.
func flatten(err error) []string {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []string
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	if inner := errors.Unwrap(err); inner != nil {
		msg, in := err.Error(), inner.Error()
		if prefix, ok := strings.CutSuffix(msg, in); ok {
			var out []string
			for _, m := range flatten(inner) {
				out = append(out, prefix+m)
			}
			return out
		}
	}
	return []string{err.Error()}
}

// subKeys are the keys that may follow an indexed model key in a message,
// as in "faults[1] (pause at 5s): target: no node ...".
func subKeys(key string) []string {
	switch {
	case strings.HasPrefix(key, "faults["):
		return faultKeys
	case strings.HasPrefix(key, "nodes["):
		return nodeOverrideKeys
	case strings.HasPrefix(key, "clients["):
		return clientOverrideKey
	case strings.HasPrefix(key, "network.links["):
		return linkKeys
	}
	return nil
}

// modelError reports one Validate message, "key (label): message".
func (d *decoder) modelError(msg string) {
	head, rest, ok := strings.Cut(msg, ": ")
	key := strings.TrimSpace(stripParens(head))
	key, _, _ = strings.Cut(key, "/") // "lock.retry_delay/retry_jitter"
	if !ok || !validPath(key) {
		d.errAt("", "%s", msg)
		return
	}
	if strings.HasSuffix(key, "]") {
		if sub, r, ok := strings.Cut(rest, ": "); ok && slices.Contains(subKeys(key), sub) {
			key, rest = key+"."+sub, r
		}
	}
	path, who := d.filePath(key)
	if who != "" {
		rest = "for " + who + ": " + rest
	}
	d.errAt(path, "%s", rest)
}

// filePath maps a model key to the file key it came from, and names the
// node or client when that file key is shared by several.
func (d *decoder) filePath(key string) (string, string) {
	for p := key; p != ""; p = tomlpos.Parent(p) {
		if o, ok := d.origins[p]; ok {
			return o.path + key[len(p):], o.who
		}
	}
	return key, ""
}

// stripParens removes parenthesised labels, nested or not: "nodes[2]
// (n3).clock" → "nodes[2].clock".
func stripParens(s string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return strings.ReplaceAll(b.String(), " .", ".")
}
