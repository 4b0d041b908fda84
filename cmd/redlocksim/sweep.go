package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

func init() {
	register("sweep", "run a scenario over a grid of settings and seeds; write violation rates as CSV", cmdSweep)
}

// exitInterrupted is sweep's status when a signal stopped it (128 + SIGINT,
// as a shell reports it); the finished runs are in the journal.
const exitInterrupted = 130

// sweepSignals are what interrupt a sweep gracefully. A second signal
// kills the process at once (the journal still has every finished run).
var sweepSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// isTerminal reports whether w is a terminal; tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func cmdSweep(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `usage: redlocksim sweep NAME|FILE --out results.csv [flags]

Runs a sweep: a base scenario at every point of a grid (or a list) of
settings, several seeds per point, in parallel, and writes one CSV row per
point with the violation rates and their 95%% confidence intervals.
NAME is a built-in sweep (see --list): %s.
FILE is a sweep spec (.toml; see scenarios/sweep/README.md).

An interrupted sweep (Ctrl-C, kill) keeps its finished runs in
OUT.partial; run the same command with --resume to continue it.

flags:
`, strings.Join(scenarios.SweepNames(), ", "))
		fs.PrintDefaults()
	}
	out := fs.String("out", "", "the results `file`, one row per point (required)")
	raw := fs.String("raw", "", "also write one row per run, with a replay command, to `file`")
	workers := fs.Int("workers", runtime.NumCPU(), "runs made at once")
	seeds := fs.Int("seeds", 0, "runs per point (default: the spec's seeds)")
	resume := fs.Bool("resume", false, "continue the interrupted sweep whose journal is OUT.partial")
	shardArg := fs.String("shard", "", "run only shard `K/N` of the points (K from 1), or auto: from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX (with REDLOCKSIM_SHARDS); join shards with 'redlocksim merge'")
	printBase := fs.Bool("print-base", false, "print the spec's base scenario as a scenario file and exit")
	list := fs.Bool("list", false, "list the built-in sweeps and exit")
	tuneGCForManyRuns()
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	if *list {
		return listSweeps(stdout, stderr)
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "redlocksim sweep: want one sweep (a built-in name or a .toml file), got %d arguments\n\n", len(pos))
		fs.Usage()
		return 2
	}
	spec, err := sweep.Load(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if *printBase {
		stdout.Write(spec.BaseTOML())
		return 0
	}
	if *out == "" {
		fmt.Fprintln(stderr, "redlocksim sweep: --out is required")
		return 2
	}
	if *raw != "" && filepath.Clean(*raw) == filepath.Clean(*out) {
		fmt.Fprintln(stderr, "redlocksim sweep: --out and --raw name the same file")
		return 2
	}
	for _, f := range []string{*out, *raw} {
		if f == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Dir(f)); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "redlocksim sweep: cannot write %s: no directory %s\n", f, filepath.Dir(f))
			return 2
		}
	}
	if *seeds < 0 || *seeds > sweep.MaxSeeds {
		fmt.Fprintf(stderr, "redlocksim sweep: --seeds must be between 1 and %d, got %d\n", sweep.MaxSeeds, *seeds)
		return 2
	}
	if *seeds > 0 {
		spec.Seeds = *seeds
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "redlocksim sweep: --workers must be at least 1, got %d\n", *workers)
		return 2
	}
	var shard sweep.Shard
	if *shardArg != "" {
		if shard, err = sweep.ParseShard(*shardArg, os.Getenv); err != nil {
			fmt.Fprintln(stderr, "redlocksim sweep:", err)
			return 2
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), sweepSignals...)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal takes the default action: exit at once
	}()

	opt := sweeprun.Options{Out: *out, Raw: *raw, Workers: *workers, Resume: *resume, Shard: shard}
	var bar *progressbar.ProgressBar
	if isTerminal(stderr) {
		opt.Progress = func(done, todo int) {
			if bar == nil {
				bar = newBar(stderr, todo, spec.Name)
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
	var je *sweeprun.JournalError
	switch {
	case errors.Is(err, sweeprun.ErrInterrupted):
		fmt.Fprintf(stderr, "sweep %s interrupted: %d of %d runs done, kept in %s; run the same command with --resume to continue\n",
			spec.Name, sum.Resumed+sum.Ran, sum.Runs, sum.Journal)
		return exitInterrupted
	case errors.As(err, &je):
		fmt.Fprintln(stderr, "redlocksim sweep:", err)
		return 2
	case err != nil:
		fmt.Fprintln(stderr, "redlocksim sweep:", err)
		return 1
	}
	fmt.Fprintln(stderr, summaryLine(spec, shard, sum, *out, *raw))
	return 0
}

// summaryLine is the one line a sweep prints when it is done.
func summaryLine(spec *sweep.Spec, shard sweep.Shard, sum sweeprun.Summary, out, raw string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sweep %s", spec.Name)
	if !shard.IsZero() {
		fmt.Fprintf(&b, " shard %s", shard)
	}
	fmt.Fprintf(&b, ": %d points × %d seeds = %d runs", sum.Points, spec.Seeds, sum.Runs)
	if sum.Resumed > 0 {
		fmt.Fprintf(&b, " (%d from the journal)", sum.Resumed)
	}
	wall := sum.Wall.Round(time.Millisecond)
	rate := 0.0
	if s := sum.Wall.Seconds(); s > 0 {
		rate = float64(sum.Ran) / s
	}
	fmt.Fprintf(&b, " in %v, %.1f runs/s; wrote %s", wall, rate, out)
	if raw != "" {
		fmt.Fprintf(&b, " and %s", raw)
	}
	return b.String()
}

func newBar(w io.Writer, todo int, name string) *progressbar.ProgressBar {
	return progressbar.NewOptions(todo,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("sweep "+name),
		progressbar.OptionSetItsString("runs"),
		progressbar.OptionShowIts(),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
	)
}

// parseInterleaved parses flags that may come before or after the
// positional arguments (sweep NAME --out x as well as sweep --out x NAME).
// A lone "--" ends the flags.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// listSweeps prints each built-in sweep's name, size and description.
func listSweeps(stdout, stderr io.Writer) int {
	for _, name := range scenarios.SweepNames() {
		spec, err := sweep.Load(name)
		if err != nil {
			fmt.Fprintln(stderr, err) // a broken built-in sweep: a bug
			return 1
		}
		fmt.Fprintf(stdout, "%-14s %3d points × %3d seeds  %s\n", name, spec.NumPoints(), spec.Seeds, spec.Description)
	}
	return 0
}
