package differ

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// Outcome is what one run did to each property: true where it was
// violated.
type Outcome struct{ Mutex, Resource bool }

// Runner runs a configuration for real. The real harness is one
// (HarnessRunner); the tests use a stub, so that the bookkeeping and the
// shrinking can be checked deterministically.
type Runner interface {
	// Refused says why cfg cannot run for real, or nil.
	Refused(cfg *model.Config) error
	// Run runs cfg once for real, its random draws from seed.
	Run(ctx context.Context, cfg model.Config, seed uint64) (Outcome, error)
}

// Options are compare --explore's settings.
type Options struct {
	Explorer *explore.Explorer // drawn from, on the base's seed (explore.Options.Differential)
	Runner   Runner
	Runs     int    // schedules to draw
	Repeat   int    // real runs per schedule; 0 means 3
	Budget   int    // real runs per disagreement, its confirming batch included; 0 means 40
	Seed     uint64 // the explore seed: schedule i comes from PCG(Seed, i)
	// Resolution is the shortest fault time or magnitude, in scenario
	// time, that a real run resolves at its scale: a schedule with a
	// shorter nonzero one is refused, and the shrinker stops above it.
	Resolution time.Duration
	Out        string // the directory minimal disagreements are written to; "" writes none
	Command    string // the command line, recorded in written files
	Progress   func(done, todo int)
}

// Batch is Repeat real runs of one schedule: how many violated each
// property.
type Batch struct{ N, Mutex, Resource int }

func (b Batch) String() string {
	return fmt.Sprintf("mutex %d of %d violated, resource %d of %d", b.Mutex, b.N, b.Resource, b.N)
}

// Finding is one disagreement, flaky or confirmed.
type Finding struct {
	Run            int // the schedule's index in the draw
	Drawn, Minimal explore.Schedule
	Shape          string        // the minimal schedule's shape (explore.Schedule.Shape)
	Parts          []string      // how the drawn schedule disagreed, e.g. "mutex: sim safe, real violation"
	Sim            Outcome       // the simulator on the drawn schedule
	First, Second  Batch         // the batch that found it and the one that re-ran it
	MinSim         Outcome       // the simulator on the minimal schedule
	Final          Batch         // the minimal schedule's confirming batch
	Path           []string      // each schedule the shrink accepted, drawn first
	RealRuns       int           // real runs spent on it after the first batch
	Exhausted      bool          // the budget ran out before the shrink ended
	File           string        // the scenario file written, "" without Out
	Flaky          bool          // the second batch did not disagree
	Elapsed        time.Duration // wall time spent on it
}

// Summary is what a differential search found. Every drawn schedule is
// counted in exactly one of Agree, Disagree, Flaky and Refused.
type Summary struct {
	Schedules, Agree, Disagree, Flaky, Refused int
	FirstRefusal                               string
	Findings                                   []Finding // disagreements and flakes, in draw order
	RealRuns                                   int
	Interrupted                                bool
}

// RateBound is the 95% upper bound on the disagreement rate among the
// schedules that ran both ways (Wilson, as explore states it).
func (s Summary) RateBound() float64 {
	_, hi := results.Wilson(s.Disagree, s.Agree+s.Disagree+s.Flaky)
	return hi
}

// Search draws opt.Runs schedules and judges each both ways, in draw
// order, shrinking each confirmed disagreement. When ctx ends it returns
// what it has with Interrupted set (a shrink under way keeps the smallest
// schedule confirmed so far). A real run that fails ends the search with
// its error and what was found before it.
func Search(ctx context.Context, opt Options) (s Summary, err error) {
	if opt.Runs < 1 {
		return Summary{}, ErrNoRuns
	}
	if opt.Repeat == 0 {
		opt.Repeat = 3
	}
	if opt.Budget == 0 {
		opt.Budget = 40
	}
	if opt.Budget < opt.Repeat {
		return Summary{}, fmt.Errorf("the budget of %d real runs per disagreement is less than one batch of %d", opt.Budget, opt.Repeat)
	}
	d := &searcher{opt: opt, e: opt.Explorer}
	defer func() { s.RealRuns = d.realRuns }() // on every way out, the error's too
	for i := range opt.Runs {
		if ctx.Err() != nil {
			s.Interrupted = true
			break
		}
		err := d.one(ctx, &s, i)
		if ctx.Err() != nil {
			s.Interrupted = true
			break
		}
		if err != nil {
			return s, err
		}
		if opt.Progress != nil {
			opt.Progress(i+1, opt.Runs)
		}
	}
	return s, nil
}

type searcher struct {
	opt      Options
	e        *explore.Explorer
	realRuns int
	failed   error // the first real run that failed
}

// one judges schedule i and counts it.
func (d *searcher) one(ctx context.Context, s *Summary, i int) error {
	start := time.Now()
	sched := d.e.Space().Draw(rand.New(rand.NewPCG(d.opt.Seed, uint64(i))))
	s.Schedules++
	if why := d.refused(sched); why != "" {
		s.Refused++
		if s.FirstRefusal == "" {
			s.FirstRefusal = why
		}
		return nil
	}
	sim, err := d.sim(sched)
	if err != nil {
		return err
	}
	first, err := d.batch(ctx, sched)
	if err != nil {
		return err
	}
	parts := disagreement(sim, first)
	if len(parts) == 0 {
		s.Agree++
		return nil
	}
	f := Finding{Run: i, Drawn: sched, Minimal: sched, Parts: parts, Sim: sim, First: first, MinSim: sim}
	second, err := d.batch(ctx, sched)
	if err != nil {
		return err
	}
	f.Second, f.Final, f.RealRuns = second, second, d.opt.Repeat
	if !sameWay(parts, disagreement(sim, second)) {
		f.Flaky = true
		s.Flaky++
		f.Shape = sched.Shape(d.e.Role)
		f.Elapsed = time.Since(start)
		s.Findings = append(s.Findings, f)
		return nil
	}
	s.Disagree++
	d.shrink(ctx, &f)
	f.Shape = f.Minimal.Shape(d.e.Role)
	f.Elapsed = time.Since(start)
	if d.opt.Out != "" {
		if f.File, err = d.write(f); err != nil {
			return err
		}
	}
	s.Findings = append(s.Findings, f)
	return d.failed
}

// shrink makes f's schedule 1-minimal for "still disagrees the same way",
// within the budget.
func (d *searcher) shrink(ctx context.Context, f *Finding) {
	f.Path = []string{f.Drawn.String()}
	holds := func(t explore.Schedule) bool {
		if d.failed != nil || ctx.Err() != nil || d.refused(t) != "" {
			return false
		}
		if f.RealRuns+d.opt.Repeat > d.opt.Budget {
			f.Exhausted = true
			return false
		}
		sim, err := d.sim(t)
		if err != nil {
			return false
		}
		b, err := d.batch(ctx, t)
		f.RealRuns += b.N
		if err != nil {
			if d.failed == nil && ctx.Err() == nil {
				d.failed = err
			}
			return false
		}
		if !sameWay(f.Parts, disagreement(sim, b)) {
			return false
		}
		f.Path = append(f.Path, t.String())
		f.Minimal, f.MinSim, f.Final = t, sim, b
		return true
	}
	// The shrinker returns the last schedule holds accepted; f.Minimal is
	// that schedule, with the batch that confirmed it.
	d.e.ShrinkWhile(ctx, f.Drawn, holds)
}

// refused says why sched cannot run for real, or "".
func (d *searcher) refused(sched explore.Schedule) string {
	if r := d.opt.Resolution; r > 0 {
		for _, st := range sched {
			for _, v := range []time.Duration{st.For, st.By, st.Lasts} {
				if v != 0 && v.Abs() < r {
					return fmt.Sprintf("%s: %v is below the %v a real run resolves at this scale", st, v, r)
				}
			}
		}
	}
	cfg := d.e.Config(sched)
	if err := d.opt.Runner.Refused(&cfg); err != nil {
		// Refusals come joined, one a line: the first says why.
		first, _, _ := strings.Cut(err.Error(), "\n")
		return first
	}
	return ""
}

// sim runs sched in the simulator on the base's seed.
func (d *searcher) sim(sched explore.Schedule) (Outcome, error) {
	cfg := d.e.Config(sched)
	seed := d.e.Scenario().Seed
	r, err := sweeprun.Guard(seed, func() (model.Result, error) { return model.RunFast(cfg, seed) })
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Mutex: !r.MutexSafe(), Resource: !r.ResourceSafe()}, nil
}

// batch runs sched Repeat times for real, seeds base+0 .. base+Repeat-1.
func (d *searcher) batch(ctx context.Context, sched explore.Schedule) (Batch, error) {
	cfg := d.e.Config(sched)
	var b Batch
	for k := range d.opt.Repeat {
		o, err := d.opt.Runner.Run(ctx, cfg, d.e.Scenario().Seed+uint64(k))
		d.realRuns++
		if err != nil {
			return b, err
		}
		b.N++
		b.Mutex += b2i(o.Mutex)
		b.Resource += b2i(o.Resource)
	}
	return b, nil
}

// disagreement lists how one batch parts from the simulator: per
// property, a different majority verdict, or a Wilson interval that
// excludes the simulated outcome.
func disagreement(sim Outcome, b Batch) []string {
	var parts []string
	for _, p := range []struct {
		name     string
		violated bool
		k        int
	}{{"mutex", sim.Mutex, b.Mutex}, {"resource", sim.Resource, b.Resource}} {
		if _, parted := Judge(p.name, Side{K: b2i(p.violated), N: 1, Exact: true}, Side{K: p.k, N: b.N}); parted {
			parts = append(parts, fmt.Sprintf("%s: sim %s, real %d of %d violated", p.name, word(p.violated), p.k, b.N))
		}
	}
	return parts
}

// sameWay reports whether a later batch still parts from the simulator on
// a property the first did, with the simulator on the same side.
func sameWay(first, later []string) bool {
	for _, a := range first {
		for _, b := range later {
			if key(a) == key(b) {
				return true
			}
		}
	}
	return false
}

// key is a disagreement's property and simulated verdict ("mutex: sim safe").
func key(part string) string {
	if i := strings.Index(part, ", real"); i >= 0 {
		return part[:i]
	}
	return part
}

func word(violated bool) string {
	if violated {
		return "violation"
	}
	return "safe"
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// write renders f's minimal schedule as a scenario file in Out.
func (d *searcher) write(f Finding) (string, error) {
	name := fmt.Sprintf("%s-disagree-%d", d.e.Scenario().Name, f.Run)
	desc := fmt.Sprintf("found by redlocksim compare --explore on %s: the simulator and a real run part on %s", d.e.Scenario().Name, f.Minimal)
	lesson := fmt.Sprintf(`A minimal schedule on which the simulator and the real system part, on %s, seed %d:
%s.
The simulator says mutual exclusion %s, resource %s; the real runs: %s.
Drawn at run %d as %s (%s; re-run: %s), then shrunk with %d real runs
in all, each step confirmed by %d real runs%s. The shrink's path:
  %s
Found by: %s
`, d.e.Scenario().Name, d.e.Scenario().Seed, f.Minimal, word(f.MinSim.Mutex), word(f.MinSim.Resource), f.Final,
		f.Run, f.Drawn, f.First, f.Second, f.RealRuns, d.opt.Repeat, exhaustedNote(f.Exhausted),
		strings.Join(f.Path, "\n  "), d.opt.Command)
	data, err := d.e.RenderWith(name, f.Minimal, desc, lesson)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.MkdirAll(d.opt.Out, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(d.opt.Out, name+".toml")
	_, err = atomicfile.Write(path, data)
	return path, err
}

func exhaustedNote(ex bool) string {
	if ex {
		return " (the budget ran out: it may shrink further)"
	}
	return ""
}

// ErrNoRuns is returned for a search of no schedules.
var ErrNoRuns = errors.New("--runs must be at least 1")

// Dropped is a fault kind the search does not draw, and why.
type Dropped struct{ Kind, Why string }

// RealKinds is the fault kinds of opt's space that the runner can take on
// this base: a kind is kept when at least one of probes schedules drawn
// from it alone (explore seed seed) is not refused, so that the search
// spends its draws on schedules a real run can take. The rest are listed
// with the first refusal.
func RealKinds(opt explore.Options, r Runner, res time.Duration, probes int, seed uint64) (kept []string, dropped []Dropped, err error) {
	opt.Differential = true
	all, err := explore.New(opt)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range all.Space().Kinds {
		one := opt
		one.Kinds = []string{k.String()}
		e, err := explore.New(one)
		if err != nil {
			return nil, nil, err
		}
		d := &searcher{opt: Options{Runner: r, Resolution: res}, e: e}
		why := ""
		for i := range probes {
			w := d.refused(e.Space().Draw(rand.New(rand.NewPCG(seed, uint64(i)))))
			if w == "" {
				why = ""
				break
			}
			if why == "" {
				why = w
			}
		}
		if why == "" {
			kept = append(kept, k.String())
		} else {
			dropped = append(dropped, Dropped{Kind: k.String(), Why: why})
		}
	}
	return kept, dropped, nil
}
