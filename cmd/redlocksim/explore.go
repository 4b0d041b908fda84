package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/scenarios"
)

func init() {
	registerLegacy("explore", "search random fault schedules for counterexamples and shrink them to minimal scenario files", cmdExplore)
}

// cmdExplore searches fault schedules drawn over a base scenario for runs
// that break a property, shrinks each to a 1-minimal schedule and writes it
// as a scenario file that `redlocksim run` replays.
func cmdExplore(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `usage: redlocksim explore NAME|FILE [flags]

Draws random fault schedules over a base scenario (swarm-style: each run
enables a random subset of the fault kinds), runs each on the base's seed,
and shrinks every violation to a 1-minimal schedule, written as a scenario
file that 'redlocksim run FILE' replays. Prints the violation rate with its
95%% interval and the distinct minimal counterexamples; with none, an upper
bound on the rate.

Fault kinds: %s.
Bound keys:  %s.

flags:
`, strings.Join(kindNames(), ", "), strings.Join(explore.BoundKeys(), ", "))
		fs.PrintDefaults()
	}
	kinds := fs.String("faults", "", "comma-separated fault `kinds` to draw (default: all that the base's algorithm can meet)")
	maxFaults := fs.Int("max-faults", 3, "most faults in one schedule")
	var bounds []string
	fs.Func("bound", "limit a magnitude, `key=lo..hi` like pause.for=0s..20s (repeatable)", func(s string) error {
		bounds = append(bounds, s)
		return nil
	})
	property := fs.String("property", "mutex", "what must hold: mutex, resource or liveness")
	runs := fs.Int("runs", 0, "how many schedules to run (default 1000, or as many as --time allows)")
	budget := fs.Duration("time", 0, "run schedules for this long instead of --runs")
	var seed uint64 = 1
	fs.Func("seed", "the explore seed: run i's schedule comes from (seed, i) (default 1)", func(s string) error {
		v, err := parseSeed(s)
		seed = v
		return err
	})
	workers := fs.Int("workers", runtime.NumCPU(), "runs made at once")
	out := fs.String("out", "counterexamples", "the `directory` minimal counterexamples are written to")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object")
	liveness := fs.Duration("liveness", 0, "the liveness limit after the faults heal (default 3 TTLs)")
	shrinks := fs.Int("shrink", 20, "shrink at most this many violations (the first of each drawn shape)")
	confirm := fs.Int("confirm-real", 0, "replay each minimal counterexample `N` times with real processes (see 'redlocksim help real')")
	margin := fs.Duration("margin", -1, "count an overlap only when it lasts at least this long (mutex only; default 0, or with --confirm-real 10 ms of wall time at the real run's scale)")
	robust := fs.Int("robust", 0, "count a schedule only when it breaks the property on the base's seed and a majority of `K` seeds from it (default 1, or 3 with --confirm-real)")
	var sets []string
	fs.Func("set", "override a scenario key, `key=value` with a TOML value (repeatable)", func(s string) error {
		sets = append(sets, s)
		return nil
	})
	tuneGCForManyRuns()
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitBadInput
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "redlocksim explore: "+format+"\n", a...)
		return exitBadInput
	}
	if len(rest) != 1 {
		return bad("name one base scenario (a built-in name or a .toml file)")
	}
	switch {
	case *runs < 0, *budget < 0:
		return bad("--runs and --time must not be negative")
	case *runs > 0 && *budget > 0:
		return bad("give --runs or --time, not both")
	case *runs == 0 && *budget == 0:
		*runs = 1000
	case *workers < 1:
		return bad("--workers must be at least 1, got %d", *workers)
	case *shrinks < 1:
		return bad("--shrink must be at least 1, got %d", *shrinks)
	}
	prop, err := explore.ParseProperty(*property)
	if err != nil {
		return bad("%v", err)
	}
	base, err := scenarios.LoadBase(rest[0])
	if err != nil {
		return bad("%v", err)
	}
	overrides, err := scenarios.ParseOverrides(sets)
	if err != nil {
		return bad("%v", err)
	}
	opt := explore.Options{
		Base: base, Sets: overrides, Property: prop, MaxFaults: *maxFaults, Bounds: bounds,
		Runs: *runs, Time: *budget, Seed: seed, Workers: *workers, Out: *out,
		Liveness: *liveness, MaxShrinks: *shrinks, Command: recordedCommand("explore", args),
	}
	if *kinds != "" {
		opt.Kinds = strings.Split(*kinds, ",")
	}
	if *confirm < 0 {
		return bad("--confirm-real must be at least 0, got %d", *confirm)
	}
	switch {
	case *margin >= 0:
		opt.Margin = *margin
	case *confirm > 0 && prop == explore.Mutex:
		opt.Margin, err = realMargin(base, overrides)
		if err != nil {
			return bad("%v", err)
		}
	}
	switch {
	case *robust < 0:
		return bad("--robust must be at least 1, got %d", *robust)
	case *robust > 0:
		opt.Seeds = *robust
	case *confirm > 0:
		opt.Seeds = 3
	}
	ex, err := explore.New(opt)
	if err != nil {
		return bad("%v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal takes the default action: exit at once
	}()
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
	start := time.Now()
	sum, err := ex.Explore(ctx, opt)
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(stderr)
	}
	if err != nil {
		if status := internalStatus(stderr, err, exitBadInput); status != exitBadInput {
			return status
		}
		fmt.Fprintf(stderr, "redlocksim explore: %v\n", err) // a file it cannot write
		return exitBadInput
	}
	if *confirm > 0 {
		if status := confirmFindings(ctx, &sum, *confirm, opt.Command, stderr); status != exitOK {
			return status
		}
	}
	if *asJSON {
		if err := ex.WriteJSON(stdout, sum, opt); err != nil {
			fmt.Fprintf(stderr, "redlocksim explore: %v\n", err)
			return exitBadInput
		}
	} else {
		ex.WriteText(stdout, sum, opt)
	}
	if wall := time.Since(start).Seconds(); wall > 0 {
		// Timing goes to stderr: stdout is the same for any --workers.
		fmt.Fprintf(stderr, "explore: %d runs in %.1fs, %.0f runs/s\n", sum.Runs, wall, float64(sum.Runs)/wall)
	}
	if sum.Interrupted {
		return exitInterrupted
	}
	return 0
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
