package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/scenarios"
)

// exploreFlags are explore's options.
type exploreFlags struct {
	kinds, property          string
	maxFaults, runs, shrinks int
	confirm, robust          int
	bounds                   []string
	budget, liveness, margin time.Duration
	seed                     seedFlag
	workers                  workersFlag
	out                      outFlag
	json                     jsonFlag
	sets                     setFlags
}

func parseExploreFlags(args []string, stderr io.Writer) (*exploreFlags, []string, error) {
	fs := newFlagSet("explore", fmt.Sprintf(`usage: redlocksim explore NAME|FILE [flags]

Draws random fault schedules over a base scenario (swarm-style: each run
enables a random subset of the fault kinds), runs each on the base's seed,
and shrinks every violation to a 1-minimal schedule, written as a scenario
file that 'redlocksim run FILE' replays. Prints the violation rate with its
95%% interval and the distinct minimal counterexamples; with none, an upper
bound on the rate.

Fault kinds: %s.
Bound keys:  %s.

flags:
`, strings.Join(kindNames(), ", "), strings.Join(explore.BoundKeys(), ", ")), stderr)
	f := &exploreFlags{}
	fs.StringVar(&f.kinds, "faults", "", "comma-separated fault `kinds` to draw (default: all that the base's algorithm can meet)")
	fs.IntVar(&f.maxFaults, "max-faults", 3, "most faults in one schedule")
	fs.Var((*repeated)(&f.bounds), "bound", "limit a magnitude, `key=lo..hi` like pause.for=0s..20s (repeatable)")
	fs.StringVar(&f.property, "property", "mutex", "what must hold: mutex, resource or liveness")
	fs.IntVar(&f.runs, "runs", 0, "how many schedules to run (default 1000, or as many as --time allows)")
	fs.DurationVar(&f.budget, "time", 0, "run schedules for this long instead of --runs")
	f.seed.register(fs, "the explore seed: run i's schedule comes from (seed, i) (default 1)")
	f.workers.register(fs)
	f.out.register(fs, "counterexamples", "the `directory` minimal counterexamples are written to")
	f.json.register(fs, "print the summary as one JSON object")
	fs.DurationVar(&f.liveness, "liveness", 0, "the liveness limit after the faults heal (default: the base's liveness_limit, else 3 TTLs)")
	fs.IntVar(&f.shrinks, "shrink", 20, "shrink at most this many violations (the first of each drawn shape)")
	fs.IntVar(&f.confirm, "confirm-real", 0, "replay each minimal counterexample `N` times with real processes (see 'redlocksim help real'); a client's pause then shrinks to a pause on its next acquisition")
	fs.DurationVar(&f.margin, "margin", -1, "count an overlap only when it lasts at least this long (mutex only; default 0, or with --confirm-real 10 ms of wall time at the real run's scale)")
	fs.IntVar(&f.robust, "robust", 0, "count a schedule only when it breaks the property on the base's seed and a majority of `K` seeds from it (default 1, or 3 with --confirm-real)")
	f.sets.register(fs)
	tuneGCForManyRuns()
	rest, err := parseArgs(fs, args)
	if err != nil {
		return nil, nil, err
	}
	if len(rest) != 1 {
		return nil, nil, badExplore("name one base scenario (a built-in name or a .toml file)")
	}
	switch {
	case f.runs < 0, f.budget < 0:
		return nil, nil, badExplore("--runs and --time must not be negative")
	case f.runs > 0 && f.budget > 0:
		return nil, nil, badExplore("give --runs or --time, not both")
	case f.runs == 0 && f.budget == 0:
		f.runs = 1000
	}
	if err := f.workers.check(); err != nil {
		return nil, nil, badExplore("%v", err)
	}
	if f.shrinks < 1 {
		return nil, nil, badExplore("--shrink must be at least 1, got %d", f.shrinks)
	}
	return f, rest, nil
}

func badExplore(format string, a ...any) error {
	return badInputf("redlocksim explore: "+format, a...)
}

// explorer makes the explorer of base (a name or a file) and its options.
func (f *exploreFlags) explorer(base, command string) (*explore.Explorer, explore.Options, error) {
	var opt explore.Options
	prop, err := explore.ParseProperty(f.property)
	if err != nil {
		return nil, opt, badExplore("%v", err)
	}
	b, err := scenarios.LoadBase(base)
	if err != nil {
		return nil, opt, badExplore("%v", err)
	}
	overrides, err := f.sets.overrides()
	if err != nil {
		return nil, opt, badExplore("%v", err)
	}
	opt = explore.Options{
		Base: b, Sets: overrides, Property: prop, MaxFaults: f.maxFaults, Bounds: f.bounds,
		Runs: f.runs, Time: f.budget, Seed: f.seed.or(1), Workers: int(f.workers), Out: string(f.out),
		Liveness: f.liveness, MaxShrinks: f.shrinks, Command: command,
	}
	if f.kinds != "" {
		opt.Kinds = strings.Split(f.kinds, ",")
	}
	if f.confirm < 0 {
		return nil, opt, badExplore("--confirm-real must be at least 0, got %d", f.confirm)
	}
	switch {
	case f.margin >= 0:
		opt.Margin = f.margin
	case f.confirm > 0 && prop == explore.Mutex:
		if opt.Margin, err = realMargin(b, overrides); err != nil {
			return nil, opt, badExplore("%v", err)
		}
	}
	// A real replay's clients take turns as they will: a pause counts for
	// real when it strikes a hold whatever the turn-taking.
	opt.OnAcquire = f.confirm > 0
	switch {
	case f.robust < 0:
		return nil, opt, badExplore("--robust must be at least 1, got %d", f.robust)
	case f.robust > 0:
		opt.Seeds = f.robust
	case f.confirm > 0:
		opt.Seeds = 3
	}
	ex, err := explore.New(opt)
	if err != nil {
		return nil, opt, badExplore("%v", err)
	}
	return ex, opt, nil
}

// cmdExplore searches fault schedules drawn over a base scenario for runs
// that break a property, shrinks each to a 1-minimal schedule and writes it
// as a scenario file that `redlocksim run` replays. Interrupted, it keeps
// and prints what it found so far.
func cmdExplore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, rest, err := parseExploreFlags(args, stderr)
	if err != nil {
		return err
	}
	ex, opt, err := f.explorer(rest[0], recordedCommand("explore", args))
	if err != nil {
		return err
	}
	start := time.Now()
	sum, err := runExplore(ctx, ex, opt, stderr)
	if err != nil {
		return badExplore("%w", err) // a file it cannot write
	}
	if f.confirm > 0 {
		if err := confirmFindings(ctx, &sum, f.confirm, opt.Command, stderr); err != nil {
			return err
		}
	}
	if f.json {
		if err := ex.WriteJSON(stdout, sum, opt); err != nil {
			return badExplore("%v", err)
		}
	} else {
		ex.WriteText(stdout, sum, opt)
	}
	if wall := time.Since(start).Seconds(); wall > 0 {
		// Timing goes to stderr: stdout is the same for any --workers.
		fmt.Fprintf(stderr, "explore: %d runs in %.1fs, %.0f runs/s\n", sum.Runs, wall, float64(sum.Runs)/wall)
	}
	if sum.Interrupted {
		return interrupted(ctx)
	}
	return nil
}

// runExplore runs the search, with a progress bar on a terminal.
func runExplore(ctx context.Context, ex *explore.Explorer, opt explore.Options, stderr io.Writer) (explore.Summary, error) {
	var bar *progressbar.ProgressBar
	if isTerminal(stderr) {
		opt.Progress = func(done, todo int) {
			if bar == nil {
				if todo == 0 {
					todo = -1 // --time: a spinner with the count
				}
				bar = newBar(stderr, todo, ex.Scenario().Name)
				bar.Describe("explore " + ex.Scenario().Name)
			}
			bar.Set(done)
		}
	}
	sum, err := ex.Explore(ctx, opt)
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(stderr)
	}
	return sum, err
}

func kindNames() []string {
	out := make([]string, len(explore.Kinds))
	for i, k := range explore.Kinds {
		out[i] = k.String()
	}
	return out
}

// recordedCommand is the command line a written file records, without
// --workers, which changes nothing in what explore finds: the files are
// the same for any number of workers.
func recordedCommand(name string, args []string) string {
	var kept []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--workers" || a == "-workers":
			i++
		case strings.HasPrefix(a, "--workers=") || strings.HasPrefix(a, "-workers="):
		default:
			kept = append(kept, shellQuote(a))
		}
	}
	return "redlocksim " + name + " " + strings.Join(kept, " ")
}
