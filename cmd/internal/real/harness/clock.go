package harness

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/cmd/internal/real/clockshim"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/sim"
)

// scaleClock divides every time of a clock spec by f: the offset, and the
// times and amounts of its steps, slews and rate changes. Rates stay, so
// a slew at the same ppm takes 1/f of the time to move 1/f of the amount.
func scaleClock(s clocks.Spec, f float64) clocks.Spec {
	s.Offset = scaled(s.Offset, f)
	s.Steps = slices.Clone(s.Steps)
	for i := range s.Steps {
		s.Steps[i].At, s.Steps[i].By = scaled(s.Steps[i].At, f), scaled(s.Steps[i].By, f)
	}
	s.Slews = slices.Clone(s.Slews)
	for i := range s.Slews {
		s.Slews[i].At, s.Slews[i].By = scaled(s.Slews[i].At, f), scaled(s.Slews[i].By, f)
	}
	s.RateChanges = slices.Clone(s.RateChanges)
	for i := range s.RateChanges {
		s.RateChanges[i].At = scaled(s.RateChanges[i].At, f)
	}
	return s
}

// processClock is the clock of the process called name in cfg, as the
// model's world builds it: spec with cfg's clock faults on name folded in
// (model.WithClockFault, in the scenario's order), then the rate spread
// drawn from the stream the world draws it from ("clock:" + name of the
// run seed), so that a real run of seed s gives each process the clock
// the simulated run of seed s does. ok is false when the process's clock
// is the machine's: no offset, rate, step, slew or spread.
func processClock(cfg *model.Config, name string, spec clocks.Spec, spread float64, seed uint64) (clocks.Spec, bool) {
	for _, f := range cfg.Faults {
		if f.Target == name {
			spec, _ = model.WithClockFault(spec, f)
		}
	}
	if spread > 0 {
		r := sim.NewStream(seed, "clock:"+name)
		spec.RatePPM += (2*r.Float64() - 1) * spread
	}
	set := spec.Offset != 0 || spec.RatePPM != 0 || len(spec.Steps)+len(spec.Slews)+len(spec.RateChanges) > 0
	return spec, set
}

// clockResolution says which of cfg's clock changes scale f brings below
// what a real run resolves (clockshim.Resolution): a node's or a client's
// clock table, or a clock fault.
func clockResolution(cfg *model.Config, f float64) []error {
	var errs []error
	check := func(what string, d time.Duration) {
		if d != 0 && scaled(d, f).Abs() < clockshim.Resolution {
			errs = append(errs, fmt.Errorf("--scale %g makes %s %v, below the %v a real redis-server resolves (Redis keeps expiry in whole milliseconds; largest scale: %.3g)",
				f, what, scaled(d, f), clockshim.Resolution, float64(d.Abs())/float64(clockshim.Resolution)))
		}
	}
	table := func(who string, s clocks.Spec) {
		for _, c := range clockshim.Changes(s) {
			check(who+".clock."+c.Key, c.By)
		}
	}
	for _, n := range cfg.Nodes {
		table("nodes."+n.Name, n.Clock)
	}
	for _, c := range cfg.Clients {
		table("clients."+c.Name, c.Clock)
	}
	for i, ft := range cfg.Faults {
		if ft.Kind == model.ClockStep || ft.Kind == model.ClockSlew {
			check(fmt.Sprintf("faults[%d].by (%v on %s)", i, ft.Kind, ft.Target), ft.By)
		}
	}
	return errs
}

// ownClock is a client process's own pair of clocks, read in the process
// from the same segments a node's clock library reads: true time is
// CLOCK_MONOTONIC - T0, and a reading is the clock's Local at it. It is
// how the raw client measures elapsed time on a wall clock that the
// scenario steps, slews or skews: Go reads the machine's clock without
// going through libc, so LD_PRELOAD cannot reach a Go process.
type ownClock struct {
	p  *clocks.Process
	t0 atomic.Int64 // CLOCK_MONOTONIC ns at true time 0, once known
}

// newOwnClock makes the clocks spec describes; nil means ideal clocks,
// which read true time.
func newOwnClock(spec *clocks.Spec) (*ownClock, error) {
	var s clocks.Spec
	if spec != nil {
		s = *spec
	}
	p, err := clocks.NewProcess(s)
	if err != nil {
		return nil, fmt.Errorf("the client's clock: %w", err)
	}
	return &ownClock{p: p}, nil
}

func (c *ownClock) clock(which proto.Clock) *clocks.Clock {
	if which == proto.Wall {
		return c.p.Wall
	}
	return c.p.Mono
}

// trueNow is the run's true time now.
func (c *ownClock) trueNow() time.Duration {
	return min(max(0, time.Duration(monoNow()-c.t0.Load())), clocks.Horizon)
}

// read is clock which's reading now.
func (c *ownClock) read(which proto.Clock) time.Duration {
	return c.clock(which).Local(c.trueNow())
}

// when is the CLOCK_MONOTONIC ns at which clock which first reads local,
// from now on: where a validity timer set on that clock fires, as the
// model's timers on a process clock do (a wall clock stepped back during
// the hold moves it later).
func (c *ownClock) when(which proto.Clock, local time.Duration) int64 {
	t := c.clock(which).When(local, c.trueNow())
	if t == clocks.Never {
		t = clocks.Horizon
	}
	return c.t0.Load() + int64(t)
}

// nodeClock is the nodeSetup that gives a redis-server its node's clock:
// when the node's clock is not the machine's, it writes the clock's
// segments to a clock file in a directory of the node's own (not its data
// directory, which another setup may mount), preloads the clock library
// (compiled on first use; a missing compiler is a *proc.MissingError) and
// starts the file's clock at T0. A restart reuses the environment, so a
// restarted node reads the same clock.
func nodeClock(r *run, cfg model.NodeConfig, n *redisNode) error {
	spec, ok := processClock(r.cfg, cfg.Name, cfg.Clock, cfg.RateSpread, r.opt.Seed)
	if !ok {
		return nil
	}
	c, err := clocks.New(spec)
	if err != nil {
		return fmt.Errorf("the node's clock: %w", err)
	}
	lib, err := clockshim.Library()
	if err != nil {
		return err
	}
	dir, err := r.dir(cfg.Name + "-clock")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "clock")
	if err := clockshim.Write(path, c); err != nil {
		return err
	}
	n.env = append(n.env, clockshim.Env(lib, path)...)
	r.atT0 = append(r.atT0, func(t0 time.Time, t0mono int64) error {
		return clockshim.Start(path, t0mono, t0)
	})
	return nil
}

// clockRefusals lists what of cfg's clocks cannot run for real, and notes
// on how the rest does. Every redis node's clock runs (nodeClock), and
// the raw client's (ownClock); a Go lock client (redsync, the failover
// and etcd drivers) reads Go's own clock, which no clock file reaches, so
// its clock is a note: it times everything on the monotonic clock, which
// a wall-clock step cannot move (as the model's monotonic client) but
// which runs at the machine's rate. The store and the Sentinel have no
// clock file either.
func clockRefusals(cfg *model.Config) (refused []*RefusedError, notes []string) {
	var nodes, raw []string
	for _, n := range cfg.Nodes {
		if spec, ok := processClock(cfg, n.Name, n.Clock, n.RateSpread, 0); ok {
			nodes = append(nodes, n.Name)
			if slices.ContainsFunc(spec.Steps, func(s clocks.Step) bool { return s.By < 0 }) ||
				slices.ContainsFunc(spec.Slews, func(s clocks.Slew) bool { return s.By < 0 }) {
				notes = append(notes, fmt.Sprintf("%s's wall clock goes back: Redis takes that, and its keys live longer, as in the model", n.Name))
			}
		}
	}
	if len(nodes) > 0 {
		notes = append(notes, fmt.Sprintf("the clocks of %s run for real: each redis-server reads its node's clock through the clock library (LD_PRELOAD) from a clock file", strings.Join(nodes, ", ")))
	}
	driver := ChooseDriver(cfg.Lock)
	rawClient := driver == DriverRawRedlock || driver == DriverRawSingle
	for _, c := range cfg.Clients {
		spec, ok := processClock(cfg, c.Name, c.Clock, c.RateSpread, 0)
		switch {
		case !ok:
		case rawClient:
			raw = append(raw, c.Name)
		case spec.RatePPM != 0 || len(spec.RateChanges) > 0:
			notes = append(notes, fmt.Sprintf("%s's monotonic clock runs at the machine's rate, not its scenario's rate: a Go lock client reads Go's monotonic clock, which no clock file reaches", c.Name))
		default:
			notes = append(notes, fmt.Sprintf("%s's wall clock is not moved, and need not be: its lock client times validity on Go's monotonic clock, which no wall-clock step moves, as the model's monotonic client", c.Name))
		}
	}
	if len(raw) > 0 {
		notes = append(notes, fmt.Sprintf("the clocks of %s run for real: the raw client reads them through their segments from CLOCK_MONOTONIC, in its own process", strings.Join(raw, ", ")))
	}
	if _, ok := processClock(cfg, "store", cfg.Store.Clock, 0, 0); ok && cfg.Lock.Algorithm.Store() {
		refused = append(refused, &RefusedError{What: "store.clock", Reason: storeReasonsOf(cfg).clock})
	}
	return refused, notes
}

// storeReasons says, for each algorithm whose consensus store runs here,
// why a real run cannot move the store's clock or hold it leaderless, in
// the words of the servers it runs.
type storeReasons struct{ clock, election string }

var storeReasonsByAlgorithm = map[client.Algorithm]storeReasons{
	client.Lease: {
		clock:    "etcd is a Go program, which reads the machine's clock without libc, so the clock library cannot reach it",
		election: "etcd cannot be held leaderless for a set time: a paused or killed leader is replaced within the election timeout; pause the store instead",
	},
	client.ZooKeeper: {
		clock:    "the ZooKeeper servers are JVMs that the harness starts without the clock library, so their ticks and session expiries run on the machine's clock",
		election: "a ZooKeeper ensemble cannot be held leaderless for a set time: its followers elect a new leader once the old one is silent for syncLimit ticks; pause the store instead",
	},
}

// storeReasonsOf is cfg's algorithm's storeReasons; an algorithm with no
// store here is refused by systemOf before these are read, and gets
// words that name no server.
func storeReasonsOf(cfg *model.Config) storeReasons {
	if r, ok := storeReasonsByAlgorithm[cfg.Lock.Algorithm]; ok {
		return r
	}
	return storeReasons{
		clock:    "no server of the " + cfg.Lock.Algorithm.String() + " lock runs here, so its clock cannot be moved",
		election: "no server of the " + cfg.Lock.Algorithm.String() + " lock runs here to hold leaderless",
	}
}

// refuseClock is the rule of the clock faults: on a node or a client they
// fold into its clock (clockRefusals); on anything else there is no clock
// to move.
func refuseClock(cfg *model.Config, f model.Fault) (*RefusedError, string) {
	if slices.ContainsFunc(cfg.Nodes, func(n model.NodeConfig) bool { return n.Name == f.Target }) ||
		slices.ContainsFunc(cfg.Clients, func(c model.ClientConfig) bool { return c.Name == f.Target }) {
		return nil, ""
	}
	reason := "only a redis node's and a client's clock can be moved for real"
	if f.Target == "store" {
		reason = storeReasonsOf(cfg).clock
	}
	return &RefusedError{What: f.Kind.String() + " fault on " + f.Target, Reason: reason}, ""
}

// scheduleClock only narrates a clock fault at its time, in the model's
// words: the fault is in its target's clock already (processClock), which
// the clock file or the raw client's own clock reads, so nothing is
// signalled.
func scheduleClock(r *run, f model.Fault, add adder) {
	add(f.At, f.Kind.String()+" "+f.Target, func() error {
		r.tell(f.Target, story.Clock(f.Kind.Record(), story.Text(f.By), story.Text(f.PPM)))
		return nil
	})
}
