package explore

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
)

// kindRule is how the explorer treats one fault kind, whole: whether it
// draws it, what it aims at, the magnitudes it draws and shrinks with
// their bounds, the fault that ends a step that lasts, and how a step is
// written. Every branch of the explorer on a kind is an entry here, and
// TestEveryFaultKindHasARule fails for a model.FaultKind without one.
type kindRule struct {
	// refused, when set, is why the explorer does not draw the kind;
	// --faults naming it is refused with this reason.
	refused string
	// named: drawn only when --faults names it, never by default, so that
	// an explore command recorded in a written counterexample (whose
	// --faults may be empty) draws the schedules it drew when it was
	// written.
	named bool
	// cannot says why the base cannot meet the kind ("" when it can).
	cannot func(sp *Space, k model.FaultKind) string
	// aim draws the step's target (and a partition's shape); nil for a
	// kind that aims at nothing.
	aim func(d *drawer, st *Step)
	// fields are the drawn magnitudes, in the order they are drawn and
	// shrunk; each key is a --bound key.
	fields []field
	// lasts: the step holds for Step.Lasts, then ends, the fault ends
	// returns following it.
	ends func(st Step, baseLoss float64) model.Fault
	// text writes the step for a reader ("pause c1 at 1.05s for 12s"),
	// given " at T".
	text func(st Step, at string) string
	// shape is the step's part of a Shape after its kind's name (":node");
	// nil: the role of its target, if any.
	shape func(st Step, roles func(string) string) string
}

// kindRules is the table of every fault kind, by its constant.
var kindRules = map[model.FaultKind]kindRule{
	model.Pause: {
		aim:    aimFocused(func(sp *Space) []string { return sp.processes }),
		fields: []field{durField(bounded{key: "pause.for", outlasts: true, def: Bound{0, 20e9}, unit: ms, nonZero: true}, forOf)},
		text: func(st Step, at string) string {
			if st.OnAcquire {
				return fmt.Sprintf("pause %s on its next acquisition from%s for %v", st.Target, strings.TrimPrefix(at, " at"), st.For)
			}
			return textFor(st, at)
		},
		shape: func(st Step, roles func(string) string) string {
			if st.OnAcquire {
				return ":" + roles(st.Target) + "-on-acquire"
			}
			return ":" + roles(st.Target)
		},
	},
	model.Crash: {
		cannot: noNode,
		aim:    func(d *drawer, st *Step) { st.Target = d.pick(d.sp.nodes) },
		fields: []field{durField(bounded{key: "crash.for", outlasts: true, def: Bound{0, 30e9}, unit: ms}, forOf)},
		text:   textFor,
	},
	model.PowerLoss: {
		cannot: noNode,
		aim:    func(d *drawer, st *Step) { st.Target = d.pick(d.sp.nodes) },
		fields: []field{durField(bounded{key: "power-loss.for", outlasts: true, def: Bound{0, 30e9}, unit: ms}, forOf)},
		text:   textFor,
	},
	model.Partition: {
		aim: func(d *drawer, st *Step) {
			st.Partition = d.sp.parts[d.rng.IntN(len(d.sp.parts))]
			if st.Partition == network.PartitionIsolate {
				aimFocused(func(sp *Space) []string { return sp.endpoints })(d, st)
				st.Groups = storeSide(d.sp, st.Target)
			}
		},
		fields: []field{durField(bounded{key: "partition.for", outlasts: true, def: Bound{0, 30e9}, unit: ms}, lastsOf)},
		ends:   heal,
		text: func(st Step, at string) string {
			what := st.Partition.String()
			if st.Partition == network.PartitionIsolate {
				what = "isolate " + st.Target
			}
			return fmt.Sprintf("partition (%s)%s for %v", what, at, st.Lasts)
		},
		shape: func(st Step, roles func(string) string) string {
			if st.Partition != network.PartitionIsolate {
				return ":" + st.Partition.String()
			}
			return ":" + roles(st.Target)
		},
	},
	model.ClockStep: {
		aim:    aimFocused(func(sp *Space) []string { return sp.processes }),
		fields: []field{durField(bounded{key: "clock-step.by", outlasts: true, def: Bound{-30e9, 30e9}, unit: ms, nonZero: true, signed: true}, byOf)},
		text: func(st Step, at string) string {
			return fmt.Sprintf("%v %s%s by %s", st.Kind, st.Target, at, signed(st.By))
		},
	},
	model.ClockRate: {
		aim: aimFocused(func(sp *Space) []string { return sp.processes }),
		fields: []field{{
			bounded: bounded{key: "clock-rate.ppm", def: Bound{-20000, 20000}, unit: 1, valid: func(lo, hi float64) error {
				if math.Max(-lo, hi) > 100000 {
					return fmt.Errorf("a clock rate lies within ±100000 ppm")
				}
				return nil
			}},
			get: func(s *Step) float64 { return s.PPM },
			set: func(s *Step, v float64) { s.PPM = v },
		}},
		text: func(st Step, at string) string {
			return fmt.Sprintf("%v %s%s to %g ppm", st.Kind, st.Target, at, st.PPM)
		},
	},
	model.ClockSlew: {
		refused: "a slew lasts |by|/max_ppm (a second at 500 ppm takes 2000s), longer than most runs, " +
			"and the model refuses another clock fault of its process while it lasts; " +
			"draw clock-rate for a rate error and clock-step for a jump",
	},
	model.Spike: {
		aim: func(d *drawer, st *Step) {
			if d.rng.IntN(3) > 0 {
				st.Target = d.pick(d.sp.endpoints)
			}
			if d.rng.IntN(3) > 0 {
				st.To = d.pick(d.sp.endpoints)
			}
		},
		fields: []field{
			durField(bounded{key: "spike.for", def: Bound{0, 10e9}, unit: ms, nonZero: true}, forOf),
			durField(bounded{key: "spike.by", outlasts: true, def: Bound{0, 10e9}, unit: ms, nonZero: true}, byOf),
		},
		text: func(st Step, at string) string {
			return fmt.Sprintf("spike %s->%s%s for %v by %v", orAll(st.Target), orAll(st.To), at, st.For, st.By)
		},
		shape: fromTo,
	},
	model.Loss: {
		fields: []field{{
			bounded: bounded{key: "loss.prob", def: Bound{0, 0.5}, unit: 0.001, valid: func(lo, hi float64) error {
				if lo < 0 || hi >= 1 {
					return fmt.Errorf("a loss probability lies in [0, 1)")
				}
				return nil
			}},
			get:  func(s *Step) float64 { return s.Prob },
			set:  func(s *Step, v float64) { s.Prob = math.Round(v*1000) / 1000 },
			draw: func(s *Step, v float64) { s.Prob = v },
		}, durField(bounded{key: "loss.for", outlasts: true, def: Bound{0, 30e9}, unit: ms}, lastsOf)},
		ends: func(st Step, baseLoss float64) model.Fault {
			return model.Fault{At: st.At + st.Lasts, Kind: model.Loss, Prob: baseLoss}
		},
		text: func(st Step, at string) string { return fmt.Sprintf("loss %g%s for %v", st.Prob, at, st.Lasts) },
	},
	model.Heal: {
		refused: "a heal is not drawn alone: each drawn partition and cut heals after its partition.for or cut.for",
	},
	model.HoldMessage: {
		refused: "a hold-message names one message by its send time, which a drawn schedule does not know; the explorer draws spikes and cuts",
	},
	model.DropMessage: {
		refused: "a drop-message names one message by its send time, which a drawn schedule does not know; the explorer draws loss and cuts",
	},
	model.Election: {
		named: true,
		cannot: func(sp *Space, k model.FaultKind) string {
			if !sp.store {
				return fmt.Sprintf("the %v lock has no consensus store to hold an %v", sp.algorithm, k)
			}
			return ""
		},
		fields: []field{durField(bounded{key: "election.for", outlasts: true, def: Bound{0, 30e9}, unit: ms, nonZero: true}, forOf)},
		text:   func(st Step, at string) string { return fmt.Sprintf("election%s for %v", at, st.For) },
	},
	model.Cut: {
		named: true,
		aim: func(d *drawer, st *Step) {
			st.Target = d.pick(d.sp.endpoints)
			st.To = d.pick(slices.DeleteFunc(slices.Clone(d.sp.endpoints), func(n string) bool { return n == st.Target }))
		},
		fields: []field{durField(bounded{key: "cut.for", outlasts: true, def: Bound{0, 30e9}, unit: ms}, lastsOf)},
		ends:   heal,
		text: func(st Step, at string) string {
			return fmt.Sprintf("cut %s->%s%s for %v", st.Target, st.To, at, st.Lasts)
		},
		shape: fromTo,
	},
}

// Kinds are the fault kinds the explorer draws, in the order --faults
// lists them: the table's kinds that are not refused.
var Kinds = []model.FaultKind{model.Pause, model.Crash, model.PowerLoss, model.Partition, model.ClockStep, model.ClockRate, model.Spike, model.Loss, model.Election, model.Cut}

// atKey is the bound of every step's time; its default is the base's
// duration.
var atKey = bounded{key: "at", duration: true, unit: ms}

// boundKeys are the keys --bound takes: at, then each drawn kind's
// magnitudes in the order of Kinds.
var boundKeys = func() []bounded {
	out := []bounded{atKey}
	for _, k := range Kinds {
		for _, f := range kindRules[k].fields {
			out = append(out, f.bounded)
		}
	}
	return out
}()

// drawer is what a kind's aim draws from: the space, the run's random
// stream and swarm, and whether this step aims at the focus's client.
type drawer struct {
	sp      *Space
	rng     interface{ IntN(int) int }
	sw      swarm
	focus   moment
	toFocus bool
}

// pick draws a target among from, of the run's roles where it has any.
func (d *drawer) pick(from []string) string {
	var in []string
	for _, n := range from {
		if slices.Contains(d.sw.roles, d.sp.role(n)) {
			in = append(in, n)
		}
	}
	if len(in) == 0 {
		in = from
	}
	return in[d.rng.IntN(len(in))]
}

// aimFocused aims at one of list, or at the focus's client when the step
// aims there (the draw among list is made either way).
func aimFocused(list func(sp *Space) []string) func(d *drawer, st *Step) {
	return func(d *drawer, st *Step) {
		st.Target = d.pick(list(d.sp))
		if d.toFocus {
			st.Target = d.focus.client
		}
	}
}

func noNode(sp *Space, k model.FaultKind) string {
	if len(sp.nodes) == 0 {
		return fmt.Sprintf("the %v lock has no Redis node to %v", sp.algorithm, k)
	}
	return ""
}

// storeSide is the group an isolate partition of target splits when the
// lock is on the consensus store: target and the store, or the store (or
// the resource) and the clients. Without a group a partition splits the
// Redis nodes, which hold nothing there, and the model refuses it. nil
// for the Redis locks.
func storeSide(sp *Space, target string) [][]string {
	switch {
	case !sp.store:
		return nil
	case slices.Contains(sp.clients, target):
		return [][]string{{target, "store"}}
	}
	return [][]string{append([]string{target}, sp.clients...)}
}

func heal(st Step, _ float64) model.Fault { return model.Fault{At: st.At + st.Lasts, Kind: model.Heal} }

func textFor(st Step, at string) string {
	return fmt.Sprintf("%v %s%s for %v", st.Kind, st.Target, at, st.For)
}

func fromTo(st Step, roles func(string) string) string {
	return ":" + roleOrAll(roles, st.Target) + "->" + roleOrAll(roles, st.To)
}

func forOf(s *Step) *time.Duration   { return &s.For }
func byOf(s *Step) *time.Duration    { return &s.By }
func lastsOf(s *Step) *time.Duration { return &s.Lasts }

// field is one magnitude of a step, as the explorer draws and the
// shrinker moves it.
type field struct {
	bounded
	get func(*Step) float64
	set func(*Step, float64)
	// draw sets a drawn value, already a whole number of steps; nil: set.
	draw func(*Step, float64)
}

func durField(b bounded, p func(*Step) *time.Duration) field {
	b.duration = true
	return field{bounded: b, get: func(s *Step) float64 { return float64(*p(s)) }, set: func(s *Step, v float64) { *p(s) = time.Duration(v) }}
}

// fields lists a step's magnitudes, then its time.
func fields(k model.FaultKind) []field {
	return append(slices.Clone(kindRules[k].fields), durField(atKey, func(s *Step) *time.Duration { return &s.At }))
}
