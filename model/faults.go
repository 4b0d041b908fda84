package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
	"github.com/redlocksim/redlocksim/sim/field"
)

// Fault is one fault applied at a true time: a printable value (the loader
// reads it from a [[faults]] table and scenarios.FaultValue writes it back)
// of which each kind reads only its own fields (see FaultKind.Fields).
type Fault struct {
	At        time.Duration
	Kind      FaultKind
	Target    string
	To        string
	For       time.Duration
	NoRestart bool
	By        time.Duration
	PPM       float64
	MaxPPM    float64
	Partition network.PartitionKind
	Groups    [][]string // explicit groups; for the other kinds, the endpoints partitioned (default: the nodes)
	Prob      float64
	// OnAcquire, for a pause or crash of a client: it starts when Target
	// next acquires the lock at or after At, not at At, so that it strikes
	// a hold whatever the turn-taking before it (see Pause).
	OnAcquire bool
	// AtSpread and ForSpread make the fault's time and length random: it
	// happens at At + U·AtSpread and lasts For + V·ForSpread, U and V
	// uniform on [0, 1) from the fault's own stream (FaultStream, sites
	// "at" and "for"), which importance sampling can tilt. Like At and
	// Kind they are no kind's fields: every kind but the clock faults
	// (folded into the clock before the run) and the message faults
	// (armed at the start) takes AtSpread, the kinds with a For take
	// ForSpread.
	AtSpread, ForSpread time.Duration
}

// FaultStream is the random stream of fault i's AtSpread and ForSpread.
func FaultStream(i int) string { return "fault:" + strconv.Itoa(i) }

// Random reports whether the fault's time or length is drawn.
func (f *Fault) Random() bool { return f.AtSpread > 0 || f.ForSpread > 0 }

// draw sets the fault's time and length as a run draws them from s, its
// stream: U at site "at" if AtSpread is set, then V at site "for" if
// ForSpread is; and clears the spreads.
func (f *Fault) draw(s *sim.Stream) {
	if f.AtSpread > 0 {
		f.At += time.Duration(s.Uniform("at") * float64(f.AtSpread))
	}
	if f.ForSpread > 0 {
		f.For += time.Duration(s.Uniform("for") * float64(f.ForSpread))
	}
	f.AtSpread, f.ForSpread = 0, 0
}

// SampledFaults is cfg's faults as a run with seed drawn with tilts makes
// them (see Plan.RunSampledWithin): every random time and length drawn,
// so that the list replays the run's faults with no spread.
func SampledFaults(cfg *Config, seed uint64, tilts []sim.Tilt) []Fault {
	k := sim.New(seed)
	if tilts != nil {
		k.SetSampling(&sim.Sampling{Tilts: tilts})
	}
	out := slices.Clone(cfg.Faults)
	for i := range out {
		if out[i].Random() {
			out[i].draw(k.Stream(FaultStream(i)))
		}
	}
	return out
}

// checkSpreads checks AtSpread and ForSpread.
func (c *faultCheck) checkSpreads(duration time.Duration) {
	f, k := c.f, faultKinds[c.f.Kind]
	switch {
	case f.AtSpread < 0:
		c.errf("AtSpread", "must not be negative")
	case f.AtSpread > 0 && k.fold != nil:
		c.errf("AtSpread", "a clock fault is folded into its clock before the run, so its time cannot be drawn")
	case f.AtSpread > 0 && k.atStart:
		c.errf("AtSpread", "a %v fault is armed before the run for the first message at or after at, so its time cannot be drawn", f.Kind)
	case f.AtSpread > 0 && f.At+f.AtSpread > duration:
		c.errf("AtSpread", "at + at_spread = %v is after the end of the run (%v)", f.At+f.AtSpread, duration)
	}
	switch {
	case f.ForSpread < 0:
		c.errf("ForSpread", "must not be negative")
	case f.ForSpread > 0 && !slices.Contains(k.takes, "For"):
		c.errf("ForSpread", "a %v fault has no for, so no for_spread", f.Kind)
	case f.ForSpread > 0 && f.NoRestart:
		c.errf("ForSpread", "no_restart = true never restarts the node, so for_spread means nothing")
	}
}

// faultFields are Fault's fields besides At and Kind, in their order: the
// names FaultKind.Fields speaks in.
var faultFields = []string{"Target", "To", "For", "NoRestart", "By", "PPM", "MaxPPM", "Partition", "Groups", "Prob", "OnAcquire"}

// FaultKind is what a fault does. The zero value is invalid.
type FaultKind uint8

const (
	_           FaultKind = iota
	Crash                 // process crash of Target (what was written to the OS survives); restart after For unless NoRestart
	PowerLoss             // power loss of Target (only what was fsynced survives); restart as Crash
	Pause                 // stop-the-world pause of Target for For, from At or, with OnAcquire, from Target's next acquisition at or after At
	ClockStep             // Target's wall clock jumps by By
	ClockRate             // Target's clock rate error becomes PPM
	ClockSlew             // Target's wall clock is slewed by By at most MaxPPM
	Partition             // cut the network as Partition says
	Heal                  // remove every cut
	Spike                 // messages sent from Target (or all if empty) to To (or all) during For get By extra delay
	Loss                  // from At on, the default loss probability becomes Prob
	Election              // the consensus store has no leader for For
	Cut                   // one-way cut: messages from Target to To are dropped until Heal
	HoldMessage           // the first message Target sends To at or after At arrives For after its send (held, or delivered early)
	DropMessage           // the first message Target sends To at or after At is dropped
	maxFaultKind
)

// faultKind is one kind of fault, whole: every rule of the kind is here and
// nowhere else. The validator, the world, the loader (through Fields) and
// the tests read this table.
type faultKind struct {
	name string
	// takes are the Fault fields the kind reads besides At and Kind, and
	// needs those of them that must be given; the loader refuses any other
	// key and names these.
	takes, needs []string
	// record is the kind of the record apply emits, whose sentence
	// model/story keeps; "" when the parts the fault acts through (the
	// network, the store) narrate it themselves.
	record string
	// check reports the kind's problems with a fault, each at its field;
	// At and Kind are checked for every kind.
	check func(c *faultCheck)
	// fold, for a clock fault, folds it into its target's clock spec at
	// Compile (clocks are fixed functions of true time); nil for the rest.
	fold func(s clocks.Spec, f Fault) clocks.Spec
	// apply performs the fault at f.At, with its names resolved, and
	// records it (see record): the timeline is drawn from the records. It
	// touches the world only through s (faultScope), so the entry shows
	// what the kind acts on.
	apply func(s faultScope, f *plannedFault)
	// atStart: apply runs as the world is built, before any process
	// starts, not at At. The kind acts on a message sent at or after At,
	// and a message sent at At by an event that was scheduled before the
	// fault's would otherwise escape it.
	atStart bool
}

// faultKinds is the table of every kind, by its constant.
var faultKinds = [maxFaultKind]faultKind{
	Crash: {
		name: "crash", takes: []string{"Target", "For", "NoRestart", "OnAcquire"}, needs: []string{"Target"},
		record: story.Crashes, check: checkCrash, apply: applyCrash,
	},
	PowerLoss: {
		name: "power-loss", takes: []string{"Target", "For", "NoRestart"}, needs: []string{"Target"},
		record: story.LosesPower, check: checkCrash, apply: applyCrash,
	},
	Pause: {
		name: "pause", takes: []string{"Target", "For", "OnAcquire"}, needs: []string{"Target", "For"},
		record: story.Pauses,
		check: func(c *faultCheck) {
			// Every process can stop, the fixed ones too, as Jepsen's
			// nemesis paused etcd's servers: every endpoint is a process.
			c.target("process", c.v.endpoints)
			if c.f.For <= 0 {
				c.errf("For", "a pause needs a positive length")
			}
			if c.f.OnAcquire && c.f.Target != "" && !slices.Contains(c.v.clients, c.f.Target) {
				c.errf("OnAcquire", "only a client acquires the lock, and %q is not one (clients: %s)", c.f.Target, strings.Join(c.v.clients, ", "))
			}
		},
		apply: func(s faultScope, f *plannedFault) {
			if f.OnAcquire {
				// Kleppmann's pause strikes a client while it holds the
				// lock. A pause at a fixed time does so only when the
				// seed's turn-taking has the client holding then, which
				// another seed, or a real run, does not repeat; this one
				// waits for the hold (see World.acquired).
				s.pauseOnAcquire(f.target, f.For)
				return
			}
			s.pause(f.target, f.For, "GC")
		},
	},
	ClockStep: {
		name: "clock-step", takes: []string{"Target", "By"}, needs: []string{"Target", "By"},
		record: story.ClockStep, check: checkClockBy, apply: narrateClock(story.ClockStep),
		fold: func(s clocks.Spec, f Fault) clocks.Spec {
			s.Steps = insertByTime(s.Steps, clocks.Step{At: f.At, By: f.By}, func(x clocks.Step) time.Duration { return x.At })
			return s
		},
	},
	ClockRate: {
		name: "clock-rate", takes: []string{"Target", "PPM"}, needs: []string{"Target", "PPM"},
		record: story.ClockRate, apply: narrateClock(story.ClockRate),
		check: func(c *faultCheck) { c.target("node, client or store", c.v.processes) },
		fold: func(s clocks.Spec, f Fault) clocks.Spec {
			s.RateChanges = insertByTime(s.RateChanges, clocks.RateChange{At: f.At, RatePPM: f.PPM}, func(x clocks.RateChange) time.Duration { return x.At })
			return s
		},
	},
	ClockSlew: {
		name: "clock-slew", takes: []string{"Target", "By", "MaxPPM"}, needs: []string{"Target", "By"},
		record: story.ClockSlew, apply: narrateClock(story.ClockSlew),
		check: func(c *faultCheck) {
			checkClockBy(c)
			if c.f.MaxPPM < 0 {
				c.errf("MaxPPM", "must not be negative (0 means the default %d ppm), got %v", clocks.DefaultSlewPPM, c.f.MaxPPM)
			}
		},
		fold: func(s clocks.Spec, f Fault) clocks.Spec {
			s.Slews = insertByTime(s.Slews, clocks.Slew{At: f.At, By: f.By, MaxPPM: f.MaxPPM}, func(x clocks.Slew) time.Duration { return x.At })
			return s
		},
	},
	Partition: {
		name: "partition", takes: []string{"Partition", "Target", "Groups"}, needs: []string{"Partition"},
		check: func(c *faultCheck) {
			f := c.f
			if f.Partition == 0 {
				c.errf("Partition", "must be set")
			}
			for g, group := range f.Groups {
				for j, n := range group {
					c.v.endpoint(c.path.Join(field.Of("Groups", g, j)), n)
				}
			}
			switch {
			case f.Partition == network.PartitionIsolate && f.Target == "":
				c.errf("Target", "required: an isolate partition needs the target it cuts off")
			case f.Partition == network.PartitionIsolate:
				c.target("endpoint", c.v.endpoints)
			case f.Target != "":
				c.errf("Target", "only partition = \"isolate\" takes a target, not %q", f.Partition)
			}
			switch {
			case f.Partition == network.PartitionGroups && len(f.Groups) == 0:
				c.errf("Groups", `required: partition = "groups" needs the groups, like [["n1", "n2"], ["n3", "n4", "n5"]]`)
			case f.Partition == network.PartitionGroups && len(f.Groups) < 2:
				c.errf("Groups", "partition = \"groups\" needs at least two groups, got %d", len(f.Groups))
			case f.Partition != network.PartitionGroups && len(f.Groups) > 1:
				c.errf("Groups", "partition = %q takes one group: the endpoints it splits (default: the nodes); got %d groups", f.Partition, len(f.Groups))
			}
		},
		apply: func(s faultScope, f *plannedFault) {
			s.net().Apply(grudge(s.nodes(), f), story.Fields(story.Cut{Mode: f.Partition.String(), Target: f.Target})...)
		},
	},
	Heal: {
		name:  "heal",
		check: func(*faultCheck) {},
		apply: func(s faultScope, _ *plannedFault) {
			s.net().Heal()
		},
	},
	Spike: {
		name: "spike", takes: []string{"Target", "To", "For", "By"}, needs: []string{"For", "By"},
		record: story.Spike,
		check: func(c *faultCheck) {
			if c.f.Target != "" {
				c.v.endpoint(c.at("Target"), c.f.Target)
			}
			if c.f.To != "" {
				c.v.endpoint(c.at("To"), c.f.To)
			}
			if c.f.For <= 0 {
				c.errf("For", "a spike needs a positive window, got %v", c.f.For)
			}
			if c.f.By <= 0 {
				c.errf("By", "a spike needs a positive extra delay, got %v", c.f.By)
			}
		},
		apply: func(s faultScope, f *plannedFault) {
			s.net().AddSpike(f.target, f.to, f.At, f.At+f.For, f.By)
			if s.tracing() {
				s.tell("net", story.DelaySpike{From: orAll(f.Target), To: orAll(f.To), For: story.Text(f.For), By: story.Text(f.By)})
			}
		},
	},
	Loss: {
		name: "loss", takes: []string{"Prob"}, needs: []string{"Prob"},
		record: story.Loss,
		check: func(c *faultCheck) {
			if c.f.Prob < 0 || c.f.Prob >= 1 {
				c.errf("Prob", "must be in [0, 1), got %v", c.f.Prob)
			}
		},
		apply: func(s faultScope, f *plannedFault) {
			s.net().SetDefaultLoss(f.Prob)
			if s.tracing() {
				s.tell("net", story.LoseMessages{Prob: story.Text(f.Prob)})
			}
		},
	},
	Election: {
		name: "election", takes: []string{"For"}, needs: []string{"For"},
		check: func(c *faultCheck) {
			if alg := c.v.c.Lock.Algorithm; !alg.Store() {
				c.errf("", "an election means nothing with algorithm = %q: only the consensus store has a leader to lose (algorithm = %s)", alg, client.StoreAlgorithms())
			}
			if c.f.For <= 0 {
				c.errf("For", "an election needs a positive length")
			}
		},
		apply: func(s faultScope, f *plannedFault) {
			if s.tracing() {
				s.tell("store", story.Elect{For: story.Text(f.For)})
			}
			s.setStoreAvailable(false)
			s.after(f.For, func() { s.setStoreAvailable(true) })
		},
	},
	Cut: {
		name: "cut", takes: []string{"Target", "To"}, needs: []string{"Target", "To"},
		check: func(c *faultCheck) {
			c.target("endpoint", c.v.endpoints)
			if c.f.To == "" {
				c.errf("To", "a cut needs the receiving endpoint")
			} else if c.v.endpoint(c.at("To"), c.f.To) && c.f.To == c.f.Target {
				c.errf("To", "a cut joins two different endpoints; target and to are both %q", c.f.To)
			}
		},
		apply: func(s faultScope, f *plannedFault) {
			s.net().Apply(network.Cut([]network.Endpoint{f.target}, []network.Endpoint{f.to}),
				story.Fields(story.Cut{Mode: "cut", Target: f.Target, To: f.To})...)
		},
	},
	// The lab's student as the adversary: one message, picked on the
	// diagram by its sender, receiver and send time, held or delivered
	// early (HoldMessage) or dropped (DropMessage). The network narrates
	// what it does to the message when it is sent.
	HoldMessage: {
		name: "hold-message", takes: []string{"Target", "To", "For"}, needs: []string{"Target", "To", "For"},
		atStart: true,
		check: func(c *faultCheck) {
			checkOneMessage(c)
			if c.f.For <= 0 {
				c.errf("For", "the time from the message's send to its arrival must be positive, got %v", c.f.For)
			}
		},
		apply: func(s faultScope, f *plannedFault) { s.net().Tamper(f.target, f.to, f.At, f.For, false) },
	},
	DropMessage: {
		name: "drop-message", takes: []string{"Target", "To"}, needs: []string{"Target", "To"},
		atStart: true, check: checkOneMessage,
		apply: func(s faultScope, f *plannedFault) { s.net().Tamper(f.target, f.to, f.At, 0, true) },
	},
}

// checkOneMessage checks the link of a one-message fault: from its target
// to another endpoint.
func checkOneMessage(c *faultCheck) {
	c.target("endpoint, the message's sender", c.v.endpoints)
	if c.f.To == "" {
		c.errf("To", "required: the endpoint the message is sent to")
	} else if c.v.endpoint(c.at("To"), c.f.To) && c.f.To == c.f.Target {
		c.errf("To", "a message goes between two different endpoints; target and to are both %q", c.f.To)
	}
}

func checkCrash(c *faultCheck) {
	if c.f.Kind == Crash && slices.Contains(c.v.clients, c.f.Target) {
		// A client's crash is its process ending for good: the model
		// has no client restart (a new process would be a new client).
		if !c.f.NoRestart {
			c.errf("NoRestart", "a crashed client does not restart: set no_restart = true for %q", c.f.Target)
		}
	} else if alg := c.v.c.Lock.Algorithm; c.f.Target == "store" && alg.Store() {
		// A crash of the whole ensemble would need its persistence
		// modelled; a member's crash is what pause and election stand for.
		c.errf("Target", "the model does not %v the store: with algorithm = %q it stands for a whole ensemble, which outlives a member's crash; pause it (a member or its leader stopping) or take its leader away (kind = \"election\")", c.f.Kind, alg)
	} else {
		c.target("node", c.v.nodes)
		if c.f.OnAcquire && c.f.Target != "" {
			c.errf("OnAcquire", "only a client acquires the lock, and %q is not one (clients: %s)", c.f.Target, strings.Join(c.v.clients, ", "))
		}
	}
	if c.f.For < 0 {
		c.errf("For", "restart delay must not be negative")
	}
}

// applyCrash crashes the target now or, with OnAcquire, a client as it
// next acquires the lock: the crash of a holder, which a crash at a
// fixed time hits only when the seed's turn-taking has it holding then.
func applyCrash(s faultScope, f *plannedFault) {
	if f.OnAcquire {
		s.crashOnAcquire(f.target)
		return
	}
	s.crash(f.target, f.Fault)
}

func checkClockBy(c *faultCheck) {
	c.target("node, client or store", c.v.processes)
	if c.f.By == 0 {
		c.errf("By", "a %v of zero does nothing", c.f.Kind)
	}
}

// narrateClock tells a clock fault as a record of kind record under its
// target's name. It touches no clock: Compile folded the fault into the
// target's clock spec (fold), as clocks are fixed functions of true time.
func narrateClock(record string) func(s faultScope, f *plannedFault) {
	return func(s faultScope, f *plannedFault) {
		if s.tracing() {
			s.tell(s.name(f.target), story.Clock(record, story.Text(f.By), story.Text(f.PPM)))
		}
	}
}

// orAll is a spike's end as its record names it: "*" for every endpoint.
func orAll(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// grudge is the cut a partition fault makes: among the nodes, or among
// the one group it names, as its Partition mode says.
func grudge(nodes []network.Endpoint, f *plannedFault) network.Grudge {
	universe := nodes
	if len(f.groups) == 1 {
		universe = f.groups[0]
	}
	switch f.Partition {
	case network.PartitionIsolate:
		x := f.target
		if !slices.Contains(universe, x) {
			universe = append(slices.Clone(universe), x)
		}
		return network.Isolate(universe, x)
	case network.PartitionMajorityMinority:
		return network.MajorityMinority(universe)
	case network.PartitionBridge:
		return network.Bridge(universe)
	case network.PartitionRing:
		return network.MajoritiesRing(universe)
	default:
		return network.Groups(f.groups)
	}
}

// faultCheck is one fault under validation, for its kind's check.
type faultCheck struct {
	v    *validator
	f    Fault
	path Path // of the fault: Faults[i]
}

// at is the path of the fault's field name.
func (c *faultCheck) at(name string) Path { return c.path.Join(field.Of(name)) }

// errf reports a problem at the fault's field name ("" for the fault as a
// whole).
func (c *faultCheck) errf(name, format string, a ...any) {
	p := c.path
	if name != "" {
		p = c.at(name)
	}
	c.v.add(p, format, a...).Subject = fmt.Sprintf("%v at %v", c.f.Kind, c.f.At)
}

// target checks that the fault names a target, one of list (what says
// which: "node").
func (c *faultCheck) target(what string, list []string) {
	if c.f.Target == "" {
		c.errf("Target", "a %v fault needs a target (%s)", c.f.Kind, what)
		return
	}
	c.v.oneOf(c.at("Target"), c.f.Target, what, list)
}

// Valid reports whether k is one of the kinds.
func (k FaultKind) Valid() bool { return k > 0 && k < maxFaultKind }

func (k FaultKind) String() string {
	if k.Valid() {
		return faultKinds[k].name
	}
	return fmt.Sprintf("FaultKind(%d)", k)
}

// FaultKinds lists the valid names.
func FaultKinds() []string {
	out := make([]string, 0, maxFaultKind-1)
	for k := FaultKind(1); k < maxFaultKind; k++ {
		out = append(out, k.String())
	}
	return out
}

// ParseFaultKind is the inverse of String.
func ParseFaultKind(s string) (FaultKind, error) {
	for k := FaultKind(1); k < maxFaultKind; k++ {
		if faultKinds[k].name == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown fault kind %q (valid: %s)", s, strings.Join(FaultKinds(), ", "))
}

// FaultFields lists Fault's fields besides At and Kind, by their Go names,
// in their order.
func FaultFields() []string { return slices.Clone(faultFields) }

// Fields lists the Fault fields the kind reads besides At and Kind, and
// those of them it needs, by their Go names ("Target", "For"); none for an
// invalid kind.
func (k FaultKind) Fields() (takes, needs []string) {
	if !k.Valid() {
		return nil, nil
	}
	return slices.Clone(faultKinds[k].takes), slices.Clone(faultKinds[k].needs)
}

// Takes reports whether the kind reads the Fault field name.
func (k FaultKind) Takes(name string) bool {
	return k.Valid() && slices.Contains(faultKinds[k].takes, name)
}

// Clock reports whether the kind changes its target's clock: such faults
// are folded into the clock at Compile (see WithClockFault), and two of one
// process at one instant are refused.
func (k FaultKind) Clock() bool { return k.Valid() && faultKinds[k].fold != nil }

// Record is the kind of the trace record a fault of this kind emits when
// it is applied, "" when the network or the store narrate it.
func (k FaultKind) Record() string {
	if !k.Valid() {
		return ""
	}
	return faultKinds[k].record
}

// WithClockFault returns s with the clock fault f folded in, and true; or s
// unchanged and false when f is not a clock fault. The entry goes after
// those at or before its time, so folding a spec's faults one by one builds
// exactly the clock the world runs. The caller's lists are never written.
func WithClockFault(s clocks.Spec, f Fault) (clocks.Spec, bool) {
	if !f.Kind.Valid() || faultKinds[f.Kind].fold == nil {
		return s, false
	}
	return faultKinds[f.Kind].fold(s, f), true
}

// insertByTime inserts x after the entries of list at or before its time,
// into a copy (Clip makes Insert reallocate rather than write list's array).
func insertByTime[T any](list []T, x T, at func(T) time.Duration) []T {
	i := len(list)
	for i > 0 && at(list[i-1]) > at(x) {
		i--
	}
	return slices.Insert(slices.Clip(list), i, x)
}
