package scenarios

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomldoc"
)

// Render writes the base with the overrides applied as a scenario file of
// its own, through the one TOML writer (Base.TOML): a tool that changes a
// scenario (the explorer replacing its faults and its description) writes
// what the loader reads back. The overrides are applied as Apply applies
// them, and the result is decoded and validated first, so that Render
// never writes a file that would not load; the error is Apply's.
func (b *Base) Render(overrides ...Override) ([]byte, error) {
	if _, err := b.Apply(overrides...); err != nil {
		return nil, err
	}
	raw := tomldoc.Clone(b.raw).(map[string]any)
	for _, o := range overrides {
		if _, err := o.set(raw); err != nil {
			return nil, err // Apply succeeded, so this cannot happen
		}
	}
	absDataPaths(raw, filepath.Dir(b.file))
	edited := &Base{file: b.file, raw: raw, pos: b.pos, prefix: b.prefix}
	return edited.TOML(), nil
}

// absDataPaths makes the data files of v (a decoded document) absolute:
// a relative one is relative to the scenario file's directory dir, and a
// rendered file is written elsewhere (explore's counterexamples/), where
// it must still find them.
func absDataPaths(v any, dir string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p, ok := e.(string)
			isData := ok && (k == "file" && x["kind"] == "empirical" || k == "chrony")
			if isData && !filepath.IsAbs(p) {
				if abs, err := filepath.Abs(filepath.Join(dir, p)); err == nil {
					x[k] = abs
				}
				continue
			}
			absDataPaths(e, dir)
		}
	case []any:
		for _, e := range x {
			absDataPaths(e, dir)
		}
	case []map[string]any:
		for _, e := range x {
			absDataPaths(e, dir)
		}
	}
}

// FaultValue is a fault as the table a scenario file's [[faults]] element
// holds, which the loader reads back to f: the keys the fault's kind takes,
// each written when it is set or the kind needs it. A crash's or power
// loss's restart delay is always written, as 0s too, since an absent one
// means the node's restart_delay.
func FaultValue(f model.Fault) (map[string]any, error) {
	takesKeys, needsKeys := faultUses(f.Kind)
	if !f.Kind.Valid() {
		return nil, fmt.Errorf("fault kind %v has no scenario-file form", f.Kind)
	}
	m := map[string]any{"at": f.At.String(), "kind": f.Kind.String()}
	if f.AtSpread != 0 {
		m["at_spread"] = f.AtSpread.String()
	}
	if f.ForSpread != 0 {
		m["for_spread"] = f.ForSpread.String()
	}
	takes := func(k string) bool { return slices.Contains(takesKeys, k) }
	needs := func(k string) bool { return slices.Contains(needsKeys, k) }
	if takes("target") && f.Target != "" {
		m["target"] = f.Target
	}
	if takes("to") && f.To != "" {
		m["to"] = f.To
	}
	restarts := takes("no_restart") // an absent for means the node's restart_delay
	switch {
	case f.NoRestart && takes("no_restart"):
		m["no_restart"] = true
	case takes("for") && (f.For != 0 || needs("for") || restarts):
		m["for"] = f.For.String()
	}
	if takes("by") && (f.By != 0 || needs("by")) {
		m["by"] = signed(f.By)
	}
	if takes("ppm") && (f.PPM != 0 || needs("ppm")) {
		m["ppm"] = f.PPM
	}
	if takes("max_ppm") && f.MaxPPM != 0 {
		m["max_ppm"] = f.MaxPPM
	}
	if takes("partition") && f.Partition != 0 {
		m["partition"] = f.Partition.String()
	}
	if takes("groups") && len(f.Groups) > 0 {
		groups := make([]any, len(f.Groups))
		for i, g := range f.Groups {
			names := make([]any, len(g))
			for j, n := range g {
				names[j] = n
			}
			groups[i] = names
		}
		m["groups"] = groups
	}
	if takes("prob") && (f.Prob != 0 || needs("prob")) {
		m["prob"] = f.Prob
	}
	if takes("on_acquire") && f.OnAcquire {
		m["on_acquire"] = true
	}
	return m, nil
}

// FaultsOverride replaces a scenario's whole faults array with faults.
func FaultsOverride(faults []model.Fault, file string) (Override, error) {
	arr := make([]any, len(faults))
	for i, f := range faults {
		m, err := FaultValue(f)
		if err != nil {
			return Override{}, fmt.Errorf("faults[%d]: %w", i, err)
		}
		arr[i] = m
	}
	return Override{Key: "faults", Value: arr, File: file}, nil
}

// signed writes a step with its sign, as the library's files do ("+9s").
func signed(d time.Duration) string {
	if d > 0 {
		return "+" + d.String()
	}
	return d.String()
}

// RateOverrides are the overrides, to go after sets, that pin clock rates
// a run drew from their spreads (model.SampledRates) in a scenario file
// on b: each process's own entry ([[nodes.node]] or [[clients.client]],
// found by name in the file as sets leave it) gets clock.rate_ppm, the
// drawn rate, and clock.rate_spread_ppm = 0, so that a plain run of the
// file has the clocks the drawn run had. A process without an entry gets
// one at the end of its list. A process whose own clock reads a chrony
// log is left as it is (chrony sets its rate from the log): its rate is
// drawn again.
func (b *Base) RateOverrides(rates []model.DrawnRate, sets []Override, file string) ([]Override, error) {
	raw := tomldoc.Clone(b.raw).(map[string]any)
	for _, o := range sets {
		if _, err := o.set(raw); err != nil {
			return nil, err
		}
	}
	var out []Override
	for _, list := range []struct {
		key  string
		node bool
	}{{"nodes.node", true}, {"clients.client", false}} {
		v, _ := tomldoc.Get(raw, list.key)
		elems, _ := tomldoc.TableArray(v)
		var added []any
		for _, r := range rates {
			if r.Node != list.node {
				continue
			}
			j := slices.IndexFunc(elems, func(e any) bool {
				m, ok := e.(map[string]any)
				return ok && m["name"] == r.Proc
			})
			if j < 0 {
				added = append(added, map[string]any{"name": r.Proc, "clock": map[string]any{"rate_ppm": r.RatePPM, "rate_spread_ppm": 0.0}})
				continue
			}
			if c, ok := elems[j].(map[string]any)["clock"].(map[string]any); ok && c["chrony"] != nil {
				continue
			}
			at := fmt.Sprintf("%s[%d].clock.", list.key, j)
			out = append(out, Override{Key: at + "rate_ppm", Value: r.RatePPM, File: file}, Override{Key: at + "rate_spread_ppm", Value: 0.0, File: file})
		}
		if len(added) > 0 {
			all := append(tomldoc.Clone(elems).([]any), added...)
			out = append(out, Override{Key: list.key, Value: all, File: file})
		}
	}
	return out, nil
}
