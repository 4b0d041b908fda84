package estimate

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/scenarios"
)

// Pinned is the dominant failure path as a plain scenario: the random
// pauses of the path's run written as pause faults, random pauses off,
// its random fault times and clock rates written as fixed values, the
// run's seed. It has no weights: run replays it.
type Pinned struct {
	TOML     []byte
	Sentence string
	Replays  bool // a plain run of TOML violates the property
	// WhyNot says, when it does not replay, why not and what was tried.
	WhyNot string
	// Path is the path pinned (the one asked for, or the first of its
	// alternatives that replays) and Pauses its random pauses, in the
	// order of the pause faults that follow the scenario's own.
	Path   *Path
	Pauses []model.RandomPause
}

// Pin writes path as a scenario on base (with the command's overrides
// sets), named name. The pauses are the run's own (model.SampledPauses
// under the path's tilts, or a splitting particle's, whose branches drew
// them), and so are its fault times and clock rates (model.SampledFaults,
// model.SampledRates); the other inputs (latencies, loss, critical
// sections) are drawn plainly from the seed in the replay, so Replays
// says whether the pinned run still violates.
//
// A splitting particle's branches re-seeded every stream, so its
// latencies, critical sections and retry jitter after its first branch
// are not the ones its seed draws plainly, and no scenario key can pin
// them. Where they mattered, the particle does not violate when replayed;
// Pin then tries the path's alternatives (the next mildest violating
// particles) in order and pins the first that does. If none does, the
// result is the first, with Replays false and WhyNot saying so.
func Pin(base *scenarios.Base, sets []scenarios.Override, cfg *model.Config, path *Path, prop Property, name string) (*Pinned, error) {
	first, err := pinOne(base, sets, cfg, path, prop, name)
	if err != nil || first.Replays {
		return first, err
	}
	for _, alt := range path.alts {
		p, err := pinOne(base, sets, cfg, alt, prop, name)
		if err != nil || p.Replays {
			return p, err
		}
	}
	if len(path.alts) > 0 || path.Pauses != nil {
		first.WhyNot = fmt.Sprintf("none of the %d mildest violating particles violates when replayed with its pauses pinned: "+
			"splitting's branches re-seeded their other random inputs (latencies, critical sections, retry jitter), which a scenario cannot pin, and the plain draws of the seed miss", 1+len(path.alts))
	} else {
		first.WhyNot = "with its pauses pinned and its other inputs drawn plainly, it does not violate: the tilted latencies or loss matter too"
	}
	return first, nil
}

// pinOne is Pin of path alone.
func pinOne(base *scenarios.Base, sets []scenarios.Override, cfg *model.Config, path *Path, prop Property, name string) (*Pinned, error) {
	pauses := path.Pauses
	if pauses == nil {
		pauses = model.SampledPauses(cfg, path.Seed, path.Tilts)
	}
	faults := model.SampledFaults(cfg, path.Seed, path.Tilts) // random times as the run drew them
	for _, p := range pauses {
		faults = append(faults, model.Fault{Kind: model.Pause, Target: p.Client, At: p.At, For: p.For})
	}
	fo, err := scenarios.FaultsOverride(faults, "estimate")
	if err != nil {
		return nil, err
	}
	rates := model.SampledRates(cfg, path.Seed, path.Tilts) // clock rates as the run drew them
	ro, err := base.RateOverrides(rates, sets, "estimate")
	if err != nil {
		return nil, err
	}
	o := append(append([]scenarios.Override(nil), sets...),
		scenarios.Delete("debate", "estimate"),
		scenarios.Override{Key: "name", Value: name, File: "estimate"},
		scenarios.Override{Key: "seed", Value: int64(path.Seed), File: "estimate"},
		scenarios.Override{Key: "clients.pauses.every", Value: "0s", File: "estimate"},
		fo,
	)
	o = append(o, ro...)
	// A client of its own ([[clients.client]]) may set its pauses: turn
	// each off, as far as the file has elements.
	for i := 0; i < len(cfg.Clients); i++ {
		try := append(o, scenarios.Override{Key: fmt.Sprintf("clients.client[%d].pauses.every", i), Value: "0s", File: "estimate"})
		if _, err := base.Apply(try...); err != nil {
			break
		}
		o = try
	}
	sc, err := base.Apply(o...)
	if err != nil {
		return nil, err
	}
	r, err := sc.Plan.RunFastWithin(path.Seed, 0)
	if err != nil {
		return nil, err
	}
	replays := prop.violated(&r)
	verdict := func(ok bool) string { return scenarios.Verdict(ok) }
	sentence := describePath(cfg, pauses, path.Seed)
	if fs := describeDraws(cfg, faults, rates); fs != "" {
		sentence += "; the run drew " + fs
	}
	o = append(o,
		scenarios.Override{Key: "description", Value: "the dominant failure path of " + cfg.Name + ": " + sentence, File: "estimate"},
		scenarios.Override{Key: "expect", Value: map[string]any{"mutex": verdict(r.MutexSafe()), "resource": verdict(r.ResourceSafe())}, File: "estimate"},
	)
	data, err := base.Render(o...)
	if err != nil {
		return nil, err
	}
	return &Pinned{TOML: data, Sentence: sentence, Replays: replays, Path: path, Pauses: pauses}, nil
}

// describePath says the path in one sentence: its least likely pause, and
// how likely a pause that long is.
func describePath(cfg *model.Config, pauses []model.RandomPause, seed uint64) string {
	if len(pauses) == 0 {
		return fmt.Sprintf("seed %d, with no random pause: the other random inputs (latencies, loss, critical sections, clock rates, fault times) did it", seed)
	}
	worst, worstTail, known := -1, 2.0, false
	for i, p := range pauses {
		t, ok := tail(clientPauses(cfg, p.Client).Length, p.For)
		if ok && (!known || t < worstTail) {
			worst, worstTail, known = i, t, true
		}
	}
	if !known { // no closed-form tail (an empirical table): name the longest pause
		for i, p := range pauses {
			if worst < 0 || p.For > pauses[worst].For {
				worst = i
			}
		}
		p := pauses[worst]
		return fmt.Sprintf("%s pauses for %v at %v, the longest of %d random pauses in the run (%v) (seed %d)",
			p.Client, p.For.Round(time.Millisecond), p.At.Round(time.Millisecond), len(pauses), clientPauses(cfg, p.Client).Length, seed)
	}
	p := pauses[worst]
	return fmt.Sprintf("%s pauses for %v at %v, a pause the model draws this long with probability %.2g (%v), among %d random pauses in the run (seed %d)",
		p.Client, p.For.Round(time.Millisecond), p.At.Round(time.Millisecond), worstTail, clientPauses(cfg, p.Client).Length, len(pauses), seed)
}

// describeDraws says the run's randomly timed faults and its clock rates
// as it drew them (drawn is model.SampledFaults of the run, rates
// model.SampledRates), or "" if it has none.
func describeDraws(cfg *model.Config, drawn []model.Fault, rates []model.DrawnRate) string {
	var parts []string
	for _, r := range rates {
		parts = append(parts, fmt.Sprintf("%s's clock rate at %+.0f ppm (drawn in %s)", r.Proc, r.RatePPM, rateRange(cfg, r.Proc)))
	}
	for i, f := range cfg.Faults {
		if !f.Random() {
			continue
		}
		d := drawn[i]
		s := "the " + f.Kind.String()
		if f.Target != "" {
			s += " of " + f.Target
		}
		s += fmt.Sprintf(" at %v (drawn in %v..%v)", d.At.Round(time.Millisecond), f.At, f.At+f.AtSpread)
		if f.ForSpread > 0 {
			s += fmt.Sprintf(" for %v (drawn in %v..%v)", d.For.Round(time.Millisecond), f.For, f.For+f.ForSpread)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// rateRange is the range process name's clock rate is drawn in.
func rateRange(cfg *model.Config, name string) string {
	ppm, spread := 0.0, 0.0
	for _, n := range cfg.Nodes {
		if n.Name == name {
			ppm, spread = n.Clock.RatePPM, n.RateSpread
		}
	}
	for _, c := range cfg.Clients {
		if c.Name == name {
			ppm, spread = c.Clock.RatePPM, c.RateSpread
		}
	}
	return fmt.Sprintf("%+.0f..%+.0f ppm", ppm-spread, ppm+spread)
}

func clientPauses(cfg *model.Config, name string) model.PauseConfig {
	for _, c := range cfg.Clients {
		if c.Name == name {
			return c.Pauses
		}
	}
	return model.PauseConfig{}
}

// tail is P(X >= x) for X drawn from l, and whether the kind has a
// formula here.
func tail(l network.Latency, x time.Duration) (float64, bool) {
	switch l.Kind {
	case network.LatencyLognormal:
		if l.Sigma == 0 {
			return 1, true
		}
		return 0.5 * math.Erfc(math.Log(float64(x)/float64(l.Median))/l.Sigma/math.Sqrt2), true
	case network.LatencyExponential:
		if x <= l.Min {
			return 1, true
		}
		return math.Exp(-float64(x-l.Min) / float64(l.Mean-l.Min)), true
	}
	return 1, false
}
