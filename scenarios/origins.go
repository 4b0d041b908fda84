package scenarios

import (
	"strings"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/internal/keypath"
)

// origin is where in the file a Config field came from. who names the node
// or client when path is shared by several of them; explicit says the file
// wrote the value there itself (a names entry), rather than the loader
// deriving it (names from a count).
type origin struct {
	path     string
	who      string
	explicit bool
}

// fileNames are the Config fields whose file key is not their Go name in
// snake case, by their path from the root without indices.
var fileNames = map[string]string{
	"Work":           "workload",
	"Work.Tokens":    "resource.tokens",
	"Work.FenceNode": "resource.token_node",
	"Work.FenceKey":  "resource.token_key",
	"Network.Links":  "network.link",
	"Lock.KeepAlive": "lock.keepalive",
	// A distribution is written where the fixed time goes.
	"Work.CriticalSectionDist": "workload.critical_section",
	"Work.ThinkDist":           "workload.think",
	// The bugs come only from the presets named after them.
	"Lock.DriftAdded":         "lock.preset",
	"Lock.QuorumOfReached":    "lock.preset",
	"Lock.ExpiryFromFirstTry": "lock.preset",
}

// modelErrors reports the problems model.Compile found at the file keys
// their fields came from. A problem with a key that several processes share
// is reported once, naming every process it hits.
func (d *decoder) modelErrors(err error) {
	type at struct{ path, msg string }
	var order []at
	whos := make(map[at][]string)
	for _, fe := range model.FieldErrors(err) {
		o := d.origin(fe.Path)
		if !o.explicit && fe.Other != nil {
			// Blame the name the file wrote out over one it derived.
			if other := d.origin(fe.Other); other.explicit {
				o = other
			}
		}
		k := at{o.path, fe.Err.Error()}
		if _, seen := whos[k]; !seen {
			order = append(order, k)
			whos[k] = nil
		}
		if o.who != "" {
			whos[k] = append(whos[k], o.who)
		}
	}
	for _, k := range order {
		msg := k.msg
		if w := whos[k]; len(w) > 0 {
			msg = "for " + strings.Join(w, ", ") + ": " + msg
		}
		d.errAt(k.path, "%s", msg)
	}
}

// origin is where the field at p came from: the longest prefix of p with a
// recorded origin, followed by the rest of p as file keys; or p itself as
// file keys.
func (d *decoder) origin(p model.Path) origin {
	for n := len(p); n > 0; n-- {
		if o, ok := d.origins[p[:n].String()]; ok {
			switch rest := fileKey(p[n:], false); {
			case rest == "" || strings.HasPrefix(rest, "["):
				o.path += rest
			default:
				o.path += "." + rest
			}
			return o
		}
	}
	return origin{path: fileKey(p, true)}
}

// fileKey writes a Config path as file keys: names in snake case, except
// fileNames' (which apply to paths from the root).
func fileKey(p model.Path, fromRoot bool) string {
	var out, goKey string
	for _, e := range p {
		if e.Name == "" {
			out = keypath.Index(out, e.Index)
			continue
		}
		goKey = keypath.Join(goKey, e.Name)
		if f, ok := fileNames[goKey]; ok && fromRoot {
			out = f
			continue
		}
		out = keypath.Join(out, snake(e.Name))
	}
	return out
}

// snake writes a Go field name in snake case: RetryDelay → retry_delay,
// RatePPM → rate_ppm, TTL → ttl.
func snake(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			lowerBefore := i > 0 && name[i-1] >= 'a' && name[i-1] <= 'z'
			upperRunEnds := i > 0 && name[i-1] >= 'A' && name[i-1] <= 'Z' && i+1 < len(name) && name[i+1] >= 'a' && name[i+1] <= 'z'
			if lowerBefore || upperRunEnds {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
