package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// isTerminal reports whether w is a terminal; tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// sweepFlags are sweep's options.
type sweepFlags struct {
	fs                       *flag.FlagSet
	out                      outFlag
	raw, shard               string
	analytic, resume         bool
	printBase, list          bool
	workers                  workersFlag
	seeds, maxRuns, maxSeeds int
	maxTime                  time.Duration
	ciWidth                  float64
	job                      *jobFlags
	maxEvents                *uint64
	rare                     rareFlags // --estimate and its settings
}

func parseSweepFlags(args []string, stderr io.Writer) (*sweepFlags, []string, error) {
	fs := newFlagSet("sweep", fmt.Sprintf(`usage: redlocksim sweep NAME|FILE --out results.csv [flags]

Runs a sweep: a base scenario at every point of a grid (or a list) of
settings, several seeds per point, in parallel, and writes one CSV row per
point with the violation rates and their 95%% confidence intervals.
NAME is a built-in sweep (see --list): %s.
FILE is a sweep spec (.toml; 'redlocksim help sweep' prints the format).

Before the first run a sweep prints its number of runs and an estimate
of its time (from a calibration of its first few runs); a sweep of more
than --max-runs runs, or estimated longer than --max-time, is refused.
With --ci-width W each point takes seeds in batches of %d until the 95%%
interval of its mutex violation rate is narrower than W (or --max-seeds).

An interrupted sweep (Ctrl-C, SIGTERM) keeps its finished runs in
OUT.partial; run the same command with --resume to continue it.

flags:
`, strings.Join(scenarios.SweepNames(), ", "), sweeprun.DefaultBatch), stderr)
	f := &sweepFlags{fs: fs, maxRuns: sweeprun.DefaultMaxRuns}
	f.out.register(fs, "", "the results `file`, one row per point (required)")
	fs.StringVar(&f.raw, "raw", "", "also write one row per run, with a replay command, to `file`")
	fs.BoolVar(&f.analytic, "analytic", false, "add the closed form's predicted onset per point for an axis key that has one (nodes.clock.rate_ppm, a node's clock step, a client's pause)")
	f.workers.register(fs)
	seedCountFlag(fs, "seeds", "runs per point", &f.seeds)
	fs.BoolVar(&f.resume, "resume", false, "continue the interrupted sweep whose journal is OUT.partial")
	fs.StringVar(&f.shard, "shard", "", "run only shard `K/N` of the points (K from 1), or auto: from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX (with REDLOCKSIM_SHARDS); join shards with 'redlocksim merge'")
	fs.BoolVar(&f.printBase, "print-base", false, "print the spec's base scenario as a scenario file and exit")
	fs.BoolVar(&f.list, "list", false, "list the built-in sweeps and exit")
	f.job = addJobFlags(fs)
	f.maxEvents = maxEventsFlag(fs)
	f.rare.register(fs)
	fs.Func("max-runs", fmt.Sprintf("refuse a sweep (or shard) of more runs than `N` (default %d)", sweeprun.DefaultMaxRuns), func(s string) error {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			return fmt.Errorf("--max-runs is a positive whole number of runs, got %q", s)
		}
		f.maxRuns = v
		return nil
	})
	fs.Func("max-time", "refuse a sweep whose estimate (from its first runs) is longer than `D`, like 2h (default: no limit)", func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fmt.Errorf("--max-time is a positive duration with a unit, like 30m or 2h, got %q", s)
		}
		f.maxTime = d
		return nil
	})
	fs.Func("ci-width", "sample adaptively: stop each point once the 95% Wilson interval of its mutex violation rate is narrower than `W` (between 0 and 1, like 0.05)", func(s string) error {
		w, err := strconv.ParseFloat(s, 64)
		if err != nil || !(w > 0 && w < 1) {
			return fmt.Errorf("--ci-width is a width between 0 and 1, like 0.05, got %q", s)
		}
		f.ciWidth = w
		return nil
	})
	seedCountFlag(fs, "max-seeds", "with --ci-width, the most seeds a point takes", &f.maxSeeds)
	pos, err := parseArgs(fs, args)
	return f, pos, err
}

// seedCountFlag defines --name, a count of seeds per point from 1 to
// sweep.MaxSeeds (default: the spec's seeds), stored in dst.
func seedCountFlag(fs *flag.FlagSet, name, usage string, dst *int) {
	fs.Func(name, fmt.Sprintf("%s, 1 to %d (default: the spec's seeds)", usage, sweep.MaxSeeds), func(s string) error {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > sweep.MaxSeeds {
			return fmt.Errorf("--%s must be between 1 and %d, got %s", name, sweep.MaxSeeds, s)
		}
		*dst = v
		return nil
	})
}

// check checks the flags that go with running spec, in the order their
// messages are given, and returns the shard to run.
func (f *sweepFlags) check(spec *sweep.Spec) (sweep.Shard, error) {
	var shard sweep.Shard
	switch {
	case f.out == "":
		return shard, f.out.required("sweep")
	case f.raw != "" && filepath.Clean(f.raw) == filepath.Clean(string(f.out)):
		return shard, badInputf("redlocksim sweep: --out and --raw name the same file")
	case f.maxSeeds > 0 && f.ciWidth == 0:
		return shard, badInputf("redlocksim sweep: --max-seeds goes with --ci-width (to give every point N seeds, use --seeds N)")
	}
	if f.seeds > 0 {
		spec.SetSeeds(f.seeds, fmt.Sprintf("--seeds %d", f.seeds))
	}
	if err := f.workers.check(); err != nil {
		return shard, badInputf("redlocksim sweep: %v", err)
	}
	if f.shard != "" {
		var err error
		if shard, err = sweep.ParseShard(f.shard, os.Getenv); err != nil {
			return shard, badInputf("redlocksim sweep: %v", err)
		}
	}
	return shard, nil
}

func cmdSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, pos, err := parseSweepFlags(args, stderr)
	switch {
	case err != nil:
		return err
	case f.list:
		return listSweeps(stdout)
	case len(pos) != 1:
		fmt.Fprintf(stderr, "redlocksim sweep: want one sweep (a built-in name or a .toml file), got %d arguments\n\n", len(pos))
		f.fs.Usage()
		return badInput(nil)
	}
	spec, err := loadSweep(pos[0])
	if err != nil {
		return badInput(err)
	}
	if f.printBase {
		stdout.Write(spec.BaseTOML())
		return nil
	}
	if ok, err := f.job.emit(f.fs, spec, pos[0], string(f.out), f.seeds, f.maxRuns, stdout); ok {
		return err
	}
	shard, err := f.check(spec)
	if err != nil {
		return err
	}
	if f.rare.on {
		return sweepEstimates(ctx, spec, shard, f, stderr)
	}
	opt := f.options(shard)
	if err := sweeprun.CheckRuns(spec, opt); err != nil {
		return badInputf("redlocksim sweep: %w", err)
	}
	// Only now, with the sweep within its budget: the loader's garbage
	// at the higher target would double what a refusal costs.
	tuneGCForManyRuns()
	sum, err := runSweep(ctx, spec, shard, opt, f, stderr)
	switch {
	case errors.Is(err, sweeprun.ErrInterrupted):
		return &interruptedError{sig: caughtSignal(ctx), msg: fmt.Errorf("sweep %s interrupted: %d of %d runs done, kept in %s; run the same command with --resume to continue",
			spec.Name, sum.Resumed+sum.Ran, sum.Runs, sum.Journal)}
	case err != nil:
		// A journal in use or of another sweep, an output that cannot be
		// written: what the user gave cannot be used.
		return badInputf("redlocksim sweep: %w", err)
	}
	for _, d := range sum.Direct {
		fmt.Fprintf(stderr, "redlocksim sweep: %s is not a regular file; it was written directly, not atomically\n", d)
	}
	meta := sweeprun.Meta{
		Version: version(), Spec: spec.Name, SpecHash: spec.Hash(), Command: append([]string{"redlocksim", "sweep"}, args...),
		Points: sum.Points, Seeds: spec.Seeds, Runs: sum.Runs, Resumed: sum.Resumed, Workers: int(f.workers),
		WallSeconds: sum.Wall.Seconds(), Shard: shard.String(),
	}
	if f.ciWidth > 0 {
		meta.Seeds = seedsOrMax(spec, f.maxSeeds)
		meta.CIWidth = f.ciWidth
	}
	if shard.IsZero() {
		meta.Shard = ""
	}
	if meta.DataFiles, err = sweeprun.SpecDataFiles(spec); err != nil {
		return badInputf("redlocksim sweep: %v", err)
	}
	if err := sweeprun.WriteMeta(string(f.out), meta); err != nil {
		return badInputf("redlocksim sweep: %v", err)
	}
	fmt.Fprintln(stderr, sweeprun.SummaryLine(spec, shard, sum, string(f.out), f.raw, f.ciWidth, seedsOrMax(spec, f.maxSeeds)))
	return nil
}

// options are the runner's options from the flags, for shard.
func (f *sweepFlags) options(shard sweep.Shard) sweeprun.Options {
	opt := sweeprun.Options{Out: string(f.out), Raw: f.raw, Workers: int(f.workers), Resume: f.resume, Shard: shard, MaxEvents: *f.maxEvents,
		MaxRuns: f.maxRuns, MaxTime: f.maxTime, CIWidth: f.ciWidth}
	if f.ciWidth > 0 {
		opt.MaxSeeds = f.maxSeeds
	}
	return opt
}

// runSweep runs the sweep with opt, with its estimate first and a
// progress bar on a terminal.
func runSweep(ctx context.Context, spec *sweep.Spec, shard sweep.Shard, opt sweeprun.Options, f *sweepFlags, stderr io.Writer) (sweeprun.Summary, error) {
	opt.Estimate = func(e sweeprun.Estimate) {
		fmt.Fprintln(stderr, sweeprun.EstimateLine(spec, shard, e, f.ciWidth))
	}
	if f.analytic {
		opt.Analytic = explore.SweepAnalytic(spec)
	}
	var bar *progressbar.ProgressBar
	if isTerminal(stderr) {
		opt.Progress = func(done, todo int) {
			if bar == nil {
				bar = newBar(stderr, todo, "sweep "+spec.Name)
			}
			bar.Set(done)
		}
	}
	sum, err := sweeprun.Run(ctx, spec, opt)
	if bar != nil {
		if err == nil {
			bar.Finish() // shows the final count and rate
		}
		fmt.Fprintln(stderr)
	}
	return sum, err
}

// seedsOrMax is an adaptive sweep's most seeds per point.
func seedsOrMax(spec *sweep.Spec, maxSeeds int) int {
	if maxSeeds > 0 {
		return maxSeeds
	}
	return spec.Seeds
}

func newBar(w io.Writer, todo int, name string) *progressbar.ProgressBar {
	return progressbar.NewOptions(todo,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(name),
		progressbar.OptionSetItsString("runs"),
		progressbar.OptionShowIts(),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
	)
}
