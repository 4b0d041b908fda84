package explore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// Options are explore's flags.
type Options struct {
	Base       *scenarios.Base
	Sets       []scenarios.Override // --set, applied to the base and kept in written files
	Property   Property
	Kinds      []string // nil: every kind the base's algorithm can meet, but those drawn only when named
	MaxFaults  int
	Bounds     []string // key=lo..hi
	Runs       int      // how many schedules; 0 with Time
	Time       time.Duration
	Seed       uint64
	Workers    int
	Out        string        // the directory counterexamples are written to; "" writes none
	Liveness   time.Duration // the liveness limit; 0 means the base's liveness_limit, else scenarios.DefaultLivenessLimit
	MaxShrinks int           // how many violations to shrink at most; 0 means 20
	Command    string        // the command line, recorded in written files
	Progress   func(done, todo int)
	// Margin, when positive, counts a mutual-exclusion violation only when
	// one overlap lasts at least this long: what a real run can resolve
	// (explore --confirm-real), so that shrinking stops short of overlaps
	// too brief for a real replay to show. It applies to the mutex
	// property only.
	Margin time.Duration
	// Seeds, when above 1, counts a schedule as violating only when it
	// breaks the property on the base's seed and on a majority of the
	// seeds base..base+Seeds-1: a real replay draws its own retry delays
	// and latencies, so a counterexample that hangs on the simulator's
	// draws cannot be expected to show for real, and shrinking must stop
	// before it comes to hang on them. (Every seed is too strict: another
	// seed's turn-taking moves every hold, and a pause drawn at one of the
	// base's holds then hits nobody.)
	Seeds int
	// OnAcquire makes the shrinker try, for each pause of a client, the
	// same pause on acquisition (model.Fault.OnAcquire), and keep it where
	// the schedule still breaks the property: a pause at a fixed time
	// strikes a hold only where the seed's turn-taking has the client
	// holding then, which a real replay's turn-taking does not repeat
	// (explore --confirm-real), while a pause on acquisition strikes
	// whatever the turn-taking.
	OnAcquire bool
	// Differential makes an explorer that only draws, runs and shrinks
	// schedules for another judge (compare --explore): Property may be 0
	// and the base need not keep it without drawn faults.
	Differential bool
}

// Explorer runs schedules on one base.
type Explorer struct {
	base   *scenarios.Base
	sets   []scenarios.Override
	sc     *scenarios.Scenario
	space  *Space
	prop   Property
	limit  time.Duration
	margin time.Duration
	seeds  int
	// onAcquire: shrinking ties client pauses to acquisitions (Options).
	onAcquire bool
	clients   int // the base's clients, before shrinking dropped any
	roles     map[string]string
}

// New checks the options against the base and runs the base once without
// drawn faults: its holds are the moments faults are drawn near, and it
// must keep the property, or there is nothing to search for.
func New(opt Options) (*Explorer, error) {
	sc, err := opt.Base.Apply(opt.Sets...)
	if err != nil {
		return nil, err
	}
	if opt.Property == 0 && !opt.Differential {
		return nil, fmt.Errorf("--property: name one of mutex, resource, liveness")
	}
	sp, err := NewSpace(&sc.Config, opt.Kinds, opt.MaxFaults, opt.Bounds)
	if err != nil {
		return nil, err
	}
	if opt.Margin < 0 || (opt.Margin > 0 && opt.Property != Mutex) {
		return nil, fmt.Errorf("a margin applies to the mutex property only, and must be positive")
	}
	e := &Explorer{base: opt.Base, sets: opt.Sets, sc: sc, space: sp, prop: opt.Property, limit: opt.Liveness, margin: opt.Margin, seeds: opt.Seeds, onAcquire: opt.OnAcquire}
	if e.limit == 0 {
		// The base's own liveness_limit, as run judges the base by it;
		// else the default.
		e.limit = sc.LivenessLimit
	}
	if e.limit == 0 {
		e.limit = scenarios.DefaultLivenessLimit(sc.Config.Lock.TTL)
	}
	e.clients = len(sc.Config.Clients)
	// Narrated, for its holds, whose moments the space draws faults at: a
	// fast run keeps no history.
	r, err := sc.Plan.RunTracedWithin(sc.Seed, 0)
	if err != nil {
		return nil, err
	}
	if !opt.Differential { // a differential explorer has no property of its own to keep
		if bad, what := e.verdict(&r); bad {
			return nil, fmt.Errorf("%s breaks %s without any drawn fault (%s): there is nothing to search for", sc.Name, e.prop, what)
		}
	}
	for _, h := range r.History.Holds {
		sp.moments = append(sp.moments, moment{h.Start, h.Client}, moment{h.End, h.Client})
	}
	slices.SortStableFunc(sp.moments, func(a, b moment) int { return int(a.at - b.at) })
	return e, nil
}

// Scenario is the base with the --set overrides applied.
func (e *Explorer) Scenario() *scenarios.Scenario { return e.sc }

// Space is what the explorer draws from.
func (e *Explorer) Space() *Space { return e.space }

// Config is the base's configuration with s's faults after its own.
func (e *Explorer) Config(s Schedule) model.Config {
	c := e.sc.Config
	c.Faults = s.Faults(c.Faults, c.Network.Loss)
	// A heal (or a loss's end) that would fall after the run is left out:
	// the model takes faults only before the end.
	c.Faults = slices.DeleteFunc(c.Faults, func(f model.Fault) bool { return f.At >= c.Duration })
	return c
}

// judge runs s on the base's seed and judges it. A schedule the model
// rejects is not a violation.
func (e *Explorer) judge(s Schedule) (bad bool, what string, err error) {
	cfg := e.Config(s)
	r, err := sweeprun.Guard(e.sc.Seed, func() (model.Result, error) { return model.RunFast(cfg, e.sc.Seed) })
	if err != nil {
		return false, "", err
	}
	if bad, what = e.verdict(&r); !bad || e.seeds <= 1 {
		return bad, what, nil
	}
	// Robust: a majority of the seeds base..base+Seeds-1 must break it too.
	n := 1
	for k := 1; k < e.seeds; k++ {
		seed := e.sc.Seed + uint64(k)
		r, err := sweeprun.Guard(seed, func() (model.Result, error) { return model.RunFast(cfg, seed) })
		if err != nil {
			return false, "", err
		}
		if b, _ := e.verdict(&r); b {
			n++
		}
	}
	return 2*n > e.seeds, what, nil
}

// verdict judges one run against the property, with the explorer's
// liveness limit and margin.
func (e *Explorer) verdict(r *model.Result) (bad bool, what string) {
	bad, what = e.prop.verdict(r, e.limit)
	if bad && e.margin > 0 && r.Report.MutexOverlapMax < e.margin {
		return false, ""
	}
	return bad, what
}

// Margin is the shortest overlap that counts (Options.Margin), 0 for any.
func (e *Explorer) Margin() time.Duration { return e.margin }

// Violates reports whether s breaks the property on the base's seed.
func (e *Explorer) Violates(s Schedule) bool {
	bad, _, _ := e.judge(s)
	return bad
}

// Shrink makes a violating schedule 1-minimal; see the package comment.
// It returns the explorer the result violates on: e, or e with clients
// dropped.
func (e *Explorer) Shrink(s Schedule) (Schedule, *Explorer) {
	out, on, _, err := e.shrink(context.Background(), s)
	if err != nil {
		panic(err) // a bug in the model, which the run paths report
	}
	return out, on
}

// DrawRun is run i's schedule for the explore seed.
func (e *Explorer) DrawRun(seed uint64, i int) Schedule {
	return e.space.Draw(rand.New(rand.NewPCG(seed, uint64(i))))
}

// Role is what a fault target is: client, node, store or resource.
func (e *Explorer) Role(name string) string {
	if name == "resource" {
		return name
	}
	return e.space.role(name)
}

// Finding is one distinct minimal counterexample.
type Finding struct {
	Run        int // the first run whose schedule shrank to it (0-based)
	Drawn      Schedule
	Minimal    Schedule
	Shape      string
	What       string     // what the minimal schedule's run shows
	File       string     // the scenario file written, "" without --out
	ShrinkRuns int        // runs the shrinking made
	Same       int        // further violations that shrank to the same shape
	Clients    int        // the clients left after shrinking
	Real       *RealCheck // the minimal schedule replayed for real (explore --confirm-real), or nil
	on         *Explorer
}

// RealCheck is a finding's minimal schedule replayed with real processes:
// how many of Runs real runs broke the property, or why a real run must
// refuse it (then it is neither confirmed nor unconfirmed).
type RealCheck struct {
	Runs, Showed int
	Refused      string
	Client       string  // the real lock client
	Scale        float64 // the real runs' scale
	Date         string  // when, as YYYY-MM-DD
}

// String is the summary's "real" line.
func (c *RealCheck) String() string {
	if c.Refused != "" {
		return "not run for real: " + c.Refused
	}
	return fmt.Sprintf("%d of %d showed it (%s, scale %.3g, %s)", c.Showed, c.Runs, c.Client, c.Scale, c.Date)
}

// Rewrite writes f's file again (f.File), its lesson ending with what the
// real replay showed (f.Real).
func (f Finding) Rewrite(command string) error {
	if f.File == "" || f.Real == nil {
		return nil
	}
	name := strings.TrimSuffix(filepath.Base(f.File), ".toml")
	data, err := f.on.renderLesson(name, f.Minimal, command, f.Run, f.Real.lesson(f.on.prop))
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	_, err = atomicfile.Write(f.File, data)
	return err
}

func (c *RealCheck) lesson(p Property) string {
	if c.Refused != "" {
		return fmt.Sprintf("It was not replayed for real: %s.\n", c.Refused)
	}
	return fmt.Sprintf("Replayed for real (redlocksim explore --confirm-real) on %s: %d of %d real runs broke %s,\nwith %s at scale %.3g.\n", c.Date, c.Showed, c.Runs, p, c.Client, c.Scale)
}

// Config is the world the finding's file describes.
func (f Finding) Config() model.Config { return f.on.Config(f.Minimal) }

// Seed is the seed the finding's file runs on: the base's.
func (f Finding) Seed() uint64 { return f.on.sc.Seed }

// Property is what the finding breaks, and Limit the liveness limit it is
// judged by.
func (f Finding) Property() Property   { return f.on.prop }
func (f Finding) Limit() time.Duration { return f.on.limit }

// Summary is what an exploration found.
type Summary struct {
	Runs, Violating int
	Rejected        int    // drawn schedules the model refused (counted in Runs, never violations)
	FirstRejection  string // why the first was refused
	Shrunk          int    // violations shrunk (the first of each drawn shape, up to MaxShrinks)
	Findings        []Finding
	Interrupted     bool
}

// Explore draws and runs schedules until opt.Runs are done or opt.Time has
// passed, shrinking violations as they come, in run order. When ctx ends it
// returns what it has, with Interrupted set; a shrink under way keeps its
// last violating schedule.
func (e *Explorer) Explore(ctx context.Context, opt Options) (Summary, error) {
	workers := max(opt.Workers, 1)
	maxShrinks := opt.MaxShrinks
	if maxShrinks == 0 {
		maxShrinks = 20
	}
	var deadline time.Time
	if opt.Time > 0 {
		deadline = time.Now().Add(opt.Time)
	}
	batch := 32 * workers
	res := make([]outcome, batch)
	var sum Summary
	seenDrawn := map[string]bool{}
	for sum.Runs < opt.Runs || (opt.Runs == 0 && time.Now().Before(deadline)) {
		if ctx.Err() != nil {
			sum.Interrupted = true
			break
		}
		n := batch
		if opt.Runs > 0 {
			n = min(n, opt.Runs-sum.Runs)
		}
		e.runBatch(ctx, opt.Seed, sum.Runs, res[:n], workers)
		start := sum.Runs
		for i := range n {
			o := res[i]
			if !o.done {
				sum.Interrupted = true
				break
			}
			sum.Runs++
			if ie := (*sweeprun.InternalError)(nil); errors.As(o.err, &ie) {
				ie.Replay = fmt.Sprintf("the explore command again: run %d's schedule is %s", start+i, e.DrawRun(opt.Seed, start+i))
				return sum, ie
			}
			if o.err != nil {
				if sum.Rejected == 0 {
					sum.FirstRejection = o.err.Error()
				}
				sum.Rejected++
				continue
			}
			if !o.bad {
				continue
			}
			sum.Violating++
			drawn := e.DrawRun(opt.Seed, start+i)
			shape := drawn.Shape(e.Role)
			if seenDrawn[shape] || sum.Shrunk >= maxShrinks {
				continue
			}
			seenDrawn[shape] = true
			sum.Shrunk++
			minimal, on, runs, err := e.shrink(ctx, drawn)
			if err != nil {
				return sum, err
			}
			f := Finding{Run: start + i, Drawn: drawn, Minimal: minimal, Shape: minimal.Shape(e.Role), ShrinkRuns: runs, Clients: len(on.sc.Config.Clients), on: on}
			if j := slices.IndexFunc(sum.Findings, func(g Finding) bool { return g.Shape == f.Shape && g.Clients == f.Clients }); j >= 0 {
				sum.Findings[j].Same++
				continue
			}
			_, f.What, _ = on.judge(minimal)
			if opt.Out != "" {
				path, err := on.write(opt, e.FileName(len(sum.Findings)+1), f)
				if err != nil {
					return sum, err
				}
				f.File = path
			}
			sum.Findings = append(sum.Findings, f)
		}
		if opt.Progress != nil {
			opt.Progress(sum.Runs, opt.Runs)
		}
		if sum.Interrupted {
			break
		}
	}
	return sum, nil
}

// outcome is one drawn run's judgement in a batch: done is false for a
// run that ctx's end left unmade.
type outcome struct {
	done, bad bool
	err       error
}

// runBatch judges the runs start, start+1, ... of the explore seed on
// workers goroutines, into res (one per run, in run order), until they are
// all made or ctx ends.
func (e *Explorer) runBatch(ctx context.Context, seed uint64, start int, res []outcome, workers int) {
	clear(res)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(res) {
					return
				}
				bad, _, err := e.judge(e.DrawRun(seed, start+i))
				res[i] = outcome{done: true, bad: bad, err: err}
			}
		}()
	}
	wg.Wait()
}

// FileName is the name a finding's scenario file gets.
func (e *Explorer) FileName(n int) string {
	return fmt.Sprintf("%s-%s-%d", e.sc.Name, e.prop, n)
}

// Render writes the base with a schedule as a scenario file of its own
// through the scenarios package's writer: the --set overrides, the
// schedule's faults after the base's own, and a description, lesson,
// expectation and seed that say what it shows. The base's [debate] is
// dropped: its argument is about the base, whose verdict may differ.
func (e *Explorer) Render(name string, s Schedule, command string, run int) ([]byte, error) {
	return e.renderLesson(name, s, command, run, "")
}

// renderLesson is Render with more lesson text after its own.
func (e *Explorer) renderLesson(name string, s Schedule, command string, run int, more string) ([]byte, error) {
	c := e.Config(s)
	r, err := model.RunFast(c, e.sc.Seed)
	if err != nil {
		return nil, err
	}
	_, what := e.verdict(&r)
	desc := fmt.Sprintf("found by redlocksim explore on %s: %s breaks %s", e.sc.Name, s, e.prop)
	lesson := fmt.Sprintf(`A minimal counterexample to %s on %s, seed %d: %s.
It shows: %s.
redlocksim explore drew a schedule at run %d and shrank it on the same
seed until it was 1-minimal: without any one of its faults, or with any
magnitude or time one step (1 ms, 1 ppm, 0.001) nearer zero, the run keeps
%s. The base's own faults, if any, come first and were not shrunk.
Found by: %s
`, e.prop, e.sc.Name, e.sc.Seed, s, what, run, e.prop, command)
	if n := len(e.sc.Config.Clients); n < e.clients {
		lesson += fmt.Sprintf("It runs %d of the base's %d clients: with fewer it keeps %s.\n", n, e.clients, e.prop)
	}
	if e.prop == Liveness {
		lesson += fmt.Sprintf("The liveness limit is %v after the faults heal; run judges it, as the file\nrecords property = \"liveness\".\n", e.limit)
	}
	return e.render(name, c, &r, desc, lesson+more)
}

// RenderWith writes the base with a schedule as Render does, with the
// description and lesson given; the expectation is the simulator's own
// verdict on the base's seed, and no property is recorded unless the
// explorer has one. A description that does not name the base gets the
// base's name after it, since the file keeps no [debate] of the base's.
func (e *Explorer) RenderWith(name string, s Schedule, desc, lesson string) ([]byte, error) {
	c := e.Config(s)
	r, err := model.RunFast(c, e.sc.Seed)
	if err != nil {
		return nil, err
	}
	return e.render(name, c, &r, desc, lesson)
}

func (e *Explorer) render(name string, c model.Config, r *model.Result, desc, lesson string) ([]byte, error) {
	if !strings.Contains(desc, e.sc.Name) {
		desc = fmt.Sprintf("%s (a schedule on %s)", desc, e.sc.Name)
	}
	faults, err := scenarios.FaultsOverride(c.Faults, "explore")
	if err != nil {
		return nil, err
	}
	verdict := func(ok bool) string {
		if ok {
			return scenarios.Safe
		}
		return scenarios.Violation
	}
	// The base's [debate] argues the base's verdict, not the schedule's:
	// the file names the base in its description instead.
	o := []scenarios.Override{
		scenarios.Delete("debate", "explore"),
		{Key: "name", Value: name},
		{Key: "description", Value: desc},
		{Key: "lesson", Value: lesson},
		{Key: "seed", Value: int64(e.sc.Seed)},
	}
	if e.prop != 0 {
		o = append(o, scenarios.Override{Key: "property", Value: e.prop.String()})
	}
	o = append(o, scenarios.Override{Key: "expect", Value: map[string]any{"mutex": verdict(r.MutexSafe()), "resource": verdict(r.ResourceSafe())}}, faults)
	if e.prop == Liveness {
		o = append(o, scenarios.Override{Key: "liveness_limit", Value: e.limit.String()})
	}
	for i := range o {
		o[i].File = "explore"
	}
	return e.base.Render(slices.Concat(e.sets, o)...)
}

func (e *Explorer) write(opt Options, name string, f Finding) (string, error) {
	data, err := e.Render(name, f.Minimal, opt.Command, f.Run)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(opt.Out, name+".toml")
	_, err = atomicfile.Write(path, data)
	return path, err
}
