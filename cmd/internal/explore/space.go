package explore

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/network"
)

// Bound is the closed range a drawn magnitude lies in: nanoseconds for a
// duration, ppm for a clock rate, a probability for a loss.
type Bound struct{ Lo, Hi float64 }

// bounded is one magnitude the explorer draws and shrinks.
type bounded struct {
	key      string
	duration bool
	def      Bound
	unit     float64 // one shrink step: 1 ms, 1 ppm, 0.001
	nonZero  bool    // the model rejects zero (a pause of 0s, a step of 0s)
	signed   bool    // a duration that may be negative (a clock step back)
	// valid, when set, checks a --bound's range beyond lo <= hi and sign.
	valid func(lo, hi float64) error
	// outlasts marks a duration that breaks a lock by outlasting it (a
	// pause, an outage, a clock step, a delay): its default bound reaches
	// at least twice the base's TTL, so that a 30s lock is not explored
	// with pauses that stop at 20s.
	outlasts bool
}

// defaultBound is b's default range on a base whose lock has ttl: the
// fixed default, widened to ±2 ttl for a magnitude that outlasts the
// lock. A TTL up to half the fixed bound leaves it as it was.
func (b bounded) defaultBound(ttl time.Duration) Bound {
	d := b.def
	if b.outlasts {
		reach := 2 * float64(ttl)
		d.Hi = math.Max(d.Hi, reach)
		if b.signed {
			d.Lo = math.Min(d.Lo, -reach)
		}
	}
	return d
}

const ms = float64(time.Millisecond)

func boundKey(key string) (bounded, bool) {
	i := slices.IndexFunc(boundKeys, func(b bounded) bool { return b.key == key })
	if i < 0 {
		return bounded{}, false
	}
	return boundKeys[i], true
}

// BoundKeys lists the keys --bound takes.
func BoundKeys() []string {
	out := make([]string, len(boundKeys))
	for i, b := range boundKeys {
		out[i] = b.key
	}
	return out
}

// moment is an instant of the base's fault-free run that faults are drawn
// near: a hold's start or end, with its client.
type moment struct {
	at     time.Duration
	client string
}

// Space is what one base scenario lets the explorer draw.
type Space struct {
	Kinds     []model.FaultKind
	MaxFaults int
	bounds    map[string]Bound
	duration  time.Duration
	ttl       time.Duration
	clients   []string
	nodes     []string // Redis nodes; none for the lease lock
	processes []string // what a pause or a clock fault may hit
	endpoints []string // what a partition may isolate, a spike join
	parts     []network.PartitionKind
	moments   []moment
	algorithm client.Algorithm
	store     bool // the base has the consensus store
}

// NewSpace reads the explorer's flags against a base configuration. kinds
// nil means every kind the base's algorithm can meet but those drawn only
// when named (see kindRule.named); bounds are
// "key=lo..hi". Every error says what would be valid.
func NewSpace(cfg *model.Config, kinds []string, maxFaults int, bounds []string) (*Space, error) {
	sp := &Space{MaxFaults: maxFaults, bounds: map[string]Bound{}, duration: cfg.Duration, ttl: cfg.Lock.TTL, algorithm: cfg.Lock.Algorithm}
	if maxFaults < 1 {
		return nil, fmt.Errorf("--max-faults: must be at least 1, got %d", maxFaults)
	}
	lease := cfg.Lock.Algorithm.Store()
	for _, c := range cfg.Clients {
		sp.clients = append(sp.clients, c.Name)
	}
	if !lease {
		for _, n := range cfg.Nodes {
			sp.nodes = append(sp.nodes, n.Name)
		}
	}
	sp.processes = slices.Concat(sp.clients, sp.nodes)
	if lease {
		sp.processes = append(sp.processes, "store")
		sp.store = true
	}
	sp.endpoints = append(slices.Clone(sp.processes), "resource")
	if len(sp.nodes) >= 2 {
		sp.parts = []network.PartitionKind{network.PartitionMajorityMinority, network.PartitionBridge, network.PartitionRing}
		// Each shape has its own least number of nodes; keep those the
		// model accepts on this base.
		sp.parts = slices.DeleteFunc(sp.parts, func(k network.PartitionKind) bool {
			c := *cfg
			c.Faults = []model.Fault{{At: 0, Kind: model.Partition, Partition: k}}
			_, err := model.RunFast(withDuration(c, time.Millisecond), 1)
			return err != nil
		})
	}
	sp.parts = append(sp.parts, network.PartitionIsolate)

	meets := func(k model.FaultKind) error {
		if r := kindRules[k]; r.cannot != nil {
			if why := r.cannot(sp, k); why != "" {
				return errors.New(why)
			}
		}
		return nil
	}
	if kinds == nil {
		for _, k := range Kinds {
			if !kindRules[k].named && meets(k) == nil {
				sp.Kinds = append(sp.Kinds, k)
			}
		}
	}
	for _, name := range kinds {
		k, err := model.ParseFaultKind(name)
		if err != nil {
			return nil, fmt.Errorf("--faults: the explorer does not draw %q; valid: %s", name, kindList())
		}
		rule, ok := kindRules[k]
		switch {
		case !ok:
			return nil, fmt.Errorf("--faults: the explorer does not draw %q; valid: %s (it has no rule for %v yet)", name, kindList(), k)
		case rule.refused != "":
			return nil, fmt.Errorf("--faults: the explorer does not draw %q; valid: %s (%s)", name, kindList(), rule.refused)
		}
		if err := meets(k); err != nil {
			return nil, fmt.Errorf("--faults: %s: %w", name, err)
		}
		if !slices.Contains(sp.Kinds, k) {
			sp.Kinds = append(sp.Kinds, k)
		}
	}
	if len(sp.Kinds) == 0 {
		return nil, fmt.Errorf("--faults: name at least one of %s", kindList())
	}
	for _, b := range boundKeys {
		sp.bounds[b.key] = b.defaultBound(cfg.Lock.TTL)
	}
	sp.bounds["at"] = Bound{0, float64(cfg.Duration - time.Millisecond)}
	for _, s := range bounds {
		key, b, err := ParseBound(s)
		if err != nil {
			return nil, err
		}
		sp.bounds[key] = b
	}
	if at := sp.bounds["at"]; at.Hi >= float64(cfg.Duration) {
		return nil, fmt.Errorf("--bound at=%v..%v: faults must fall before the end of the run (%v)", time.Duration(at.Lo), time.Duration(at.Hi), cfg.Duration)
	}
	return sp, nil
}

func withDuration(c model.Config, d time.Duration) model.Config {
	c.Duration = d
	return c
}

func kindList() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = k.String()
	}
	return strings.Join(names, ", ")
}

// ParseBound reads "key=lo..hi", like pause.for=0s..20s or
// clock-rate.ppm=-500..500.
func ParseBound(s string) (string, Bound, error) {
	key, rng, ok := strings.Cut(s, "=")
	b, known := boundKey(key)
	if !ok {
		return "", Bound{}, fmt.Errorf("--bound %q: want key=lo..hi, like pause.for=0s..20s", s)
	}
	if !known {
		return "", Bound{}, fmt.Errorf("--bound %q: unknown key %q; valid: %s", s, key, strings.Join(BoundKeys(), ", "))
	}
	los, his, ok := strings.Cut(rng, "..")
	if !ok {
		return "", Bound{}, fmt.Errorf("--bound %q: want lo..hi after the =, like %s=0s..20s", s, key)
	}
	parse := func(v string) (float64, error) {
		if b.duration {
			d, err := time.ParseDuration(v)
			if err != nil {
				return 0, fmt.Errorf("%q is not a duration (write a number with a unit, like 10s)", v)
			}
			return float64(d), nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("%q is not a number", v)
		}
		return f, nil
	}
	lo, err := parse(los)
	if err == nil {
		var hi float64
		hi, err = parse(his)
		if err == nil {
			switch {
			case lo > hi:
				err = fmt.Errorf("lo %s is greater than hi %s", los, his)
			case b.duration && lo < 0 && !b.signed:
				err = fmt.Errorf("%s must not be negative", key)
			case b.valid != nil:
				err = b.valid(lo, hi)
			}
			if err == nil {
				return key, Bound{lo, hi}, nil
			}
		}
	}
	return "", Bound{}, fmt.Errorf("--bound %q: %w", s, err)
}

// zero is the value a magnitude shrinks toward: 0 moved into its bound, or
// one step away from zero, on cur's side, where the model rejects zero.
func (sp *Space) zero(b bounded, cur float64) float64 {
	r := sp.bounds[b.key]
	z := min(max(0, r.Lo), r.Hi)
	if b.nonZero && z == 0 {
		z = math.Copysign(b.unit, cur)
	}
	return z
}

// draw is a value in the bound scaled toward its zero, on the run's side
// of zero where the bound spans it, rounded to the key's step.
func (sp *Space) draw(rng *rand.Rand, b bounded, sw swarm) float64 {
	r := sp.bounds[b.key]
	z := min(max(0, r.Lo), r.Hi)
	lo, hi := z+(r.Lo-z)*sw.scale, z+(r.Hi-z)*sw.scale
	switch {
	case lo < 0 && hi > 0 && sw.sign > 0:
		lo = 0
	case lo < 0 && hi > 0 && sw.sign < 0:
		hi = 0
	}
	v := math.Round((lo+(hi-lo)*rng.Float64())/b.unit) * b.unit
	v = min(max(v, r.Lo), r.Hi)
	if b.nonZero && v == 0 {
		v = math.Copysign(b.unit, hi)
		if hi <= 0 {
			v = -b.unit
		}
	}
	return v
}

// swarm is one run's draw of the explorer's own parameters: the swarm
// testing idea applied beyond the kinds, so that runs differ in how they
// aim as well as in what they break.
type swarm struct {
	scale float64 // magnitudes in the whole bound, or its half or quarter nearest zero
	sign  int     // for a bound across zero: both sides (0), above (1) or below (-1)
	near  float64 // the odds that a fault falls near the focus
	roles []string
}

// Draw draws run's schedule, swarm-style: a random non-empty subset of the
// allowed kinds and of the target roles (clients, nodes, the store), 1 to
// MaxFaults faults, one magnitude scale (the whole bound, its half or its
// quarter nearest zero), one side of zero for a bound across it (either,
// above, below), and one focus: a hold's start or end in the base's
// fault-free run. Each fault falls near the focus with the run's odds (0,
// 1/2 or 1), within a spread after it (a hundredth of the TTL, a tenth, or
// a whole TTL), or else anywhere in the bound of at; a fault that can hit
// a client hits the focus's client with even odds.
func (sp *Space) Draw(rng *rand.Rand) Schedule {
	var enabled []model.FaultKind
	for _, k := range sp.Kinds {
		if rng.IntN(2) == 0 {
			enabled = append(enabled, k)
		}
	}
	if len(enabled) == 0 {
		enabled = []model.FaultKind{sp.Kinds[rng.IntN(len(sp.Kinds))]}
	}
	n := 1 + rng.IntN(sp.MaxFaults)
	sw := swarm{
		scale: [...]float64{1, 0.5, 0.25}[rng.IntN(3)],
		sign:  rng.IntN(3) - 1,
		near:  [...]float64{0, 0.5, 1}[rng.IntN(3)],
	}
	for _, r := range []string{"client", "node", "store"} {
		if rng.IntN(2) == 0 {
			sw.roles = append(sw.roles, r)
		}
	}
	var focus moment
	if len(sp.moments) > 0 {
		focus = sp.moments[rng.IntN(len(sp.moments))]
	}
	spread := [...]time.Duration{sp.ttl / 100, sp.ttl / 10, sp.ttl}[rng.IntN(3)]
	at := sp.bounds["at"]
	s := make(Schedule, 0, n)
	for range n {
		k := enabled[rng.IntN(len(enabled))]
		var st Step
		st.Kind = k
		t := at.Lo + (at.Hi-at.Lo)*rng.Float64()
		if len(sp.moments) > 0 && rng.Float64() < sw.near {
			t = float64(focus.at) + float64(spread)*rng.Float64()
		}
		st.At = time.Duration(math.Round(min(max(t, at.Lo), at.Hi)/ms) * ms)
		d := drawer{sp: sp, rng: rng, sw: sw, focus: focus}
		d.toFocus = focus.client != "" && slices.Contains(sw.roles, "client") && rng.IntN(2) == 0
		rule := kindRules[k]
		if rule.aim != nil {
			rule.aim(&d, &st)
		}
		for _, f := range rule.fields {
			v := sp.draw(rng, f.bounded, sw)
			if f.draw != nil {
				f.draw(&st, v)
			} else {
				f.set(&st, v)
			}
		}
		// Two clock faults of one process at one instant are refused by
		// the model; a later one moves to the nearest free millisecond.
		clash := func(t time.Duration) bool {
			return slices.ContainsFunc(s, func(o Step) bool {
				return o.Kind.Clock() && o.Target == st.Target && o.At == t
			})
		}
		if st.Kind.Clock() {
			orig := st.At
			for d := time.Millisecond; clash(st.At); d += time.Millisecond {
				if t := orig + d; float64(t) <= at.Hi {
					st.At = t
				} else {
					st.At = orig - d
				}
				if t := orig - d; clash(st.At) && float64(t) >= at.Lo {
					st.At = t
				}
			}
		}
		s = append(s, st)
	}
	return s
}

// role is what a target is: client, node or store (the resource is none
// of the roles a run draws, so it is drawn whatever they are).
func (sp *Space) role(name string) string {
	switch {
	case slices.Contains(sp.clients, name):
		return "client"
	case slices.Contains(sp.nodes, name):
		return "node"
	case name == "store":
		return "store"
	}
	return ""
}
