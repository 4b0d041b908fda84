package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

type estimateFlags struct {
	property, method string
	estimateBudget
	json            jsonFlag
	out             outFlag
	shard, shardOut string
	allRuns         bool // --all-runs
	merge           bool
	shardFiles      []string // with --merge: the positional arguments after the scenario
}

func parseEstimateFlags(args []string, stderr io.Writer) (*estimateFlags, string, error) {
	fs := newFlagSet("estimate", `usage: redlocksim estimate NAME|FILE [flags]

Estimates the probability that one run of the scenario violates --property,
and the same per acquisition, with a 95% interval, its relative error and
the method's diagnostics. Plain Monte Carlo when violations are common
enough for the budget; else importance sampling over the scenario's own
random inputs (pause lengths and arrivals, latencies, loss, critical
sections, think times, clock rate spreads, fault times and lengths),
tilted by cross-entropy iterations and weighted by each run's exact
likelihood ratio; or adaptive multilevel splitting on a danger score (how
much of the holder's keys' life is gone), where no tilt reaches a
violation. See docs/guides/rare-events.md.

It states its cost after a pilot of plain runs, and stops at --rel-error,
--max-runs or --max-time; Ctrl-C or SIGTERM stops it with what it has. With
no violation seen it prints an upper bound and says so. The output is the
same at any --workers (a --max-time or a signal stop aside).

--shard K/N (or auto, from a Slurm array's or an indexed Job's environment)
makes shard K's share of the runs and writes them to --shard-out FILE; then
'redlocksim estimate NAME|FILE [the same flags] --merge SHARD...' folds every
shard's runs into the output one machine would print, byte for byte. Every
shard makes the pilot and the cross-entropy iterations itself (they agree:
the files carry a digest), then its chunks of the main phase up to twice
what the stopping rule looks to need (projected alike by every shard from
the pilot, or from the first importance-sampling chunk, which every shard
makes), since it cannot see the others' runs to stop; the merge stops where
one machine would have. If the estimate outruns that share, the merge says
so: make the shards again with --all-runs (their chunks up to --max-runs).
Splitting shards by repetition: a shard makes each of its repetitions that
one machine could still afford.

Exit status: 0 an estimate (or an upper bound) to trust; 1 the diagnostics
say the interval cannot be trusted (too few violating runs, degenerate
weights): it says why; 2 bad input, or a budget that cannot pay for what
is asked; 130/143 interrupted.

flags:
`, stderr)
	f := &estimateFlags{}
	fs.StringVar(&f.property, "property", "mutex", "what a run violates: mutex or resource")
	fs.StringVar(&f.method, "method", "auto", "auto, is (importance sampling), splitting (adaptive multilevel splitting) or mc (plain Monte Carlo)")
	f.estimateBudget.register(fs, budgetHelp{
		relError: 0.1, relErrorHelp: "stop when the 95% interval's half-width is this fraction of the estimate, in (0, 1)",
		maxRuns: 2_000_000, maxRunsHelp: "at most this many runs in all (at least %d)",
		maxTime: 10 * time.Minute, maxTimeHelp: "stop after this long with what it has",
		seedHelp: "the estimate's seed: run i of each phase has a seed derived from it (default 1)",
	})
	f.json.register(fs, "print the result as JSON")
	f.out.register(fs, "", "write the dominant failure path as a scenario `FILE` that run replays")
	fs.StringVar(&f.shard, "shard", "", "make only shard `K/N` of the runs (K from 1), or auto: from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX (with REDLOCKSIM_SHARDS); needs --shard-out")
	fs.StringVar(&f.shardOut, "shard-out", "", "with --shard: write the shard's runs to `FILE`, for --merge")
	fs.BoolVar(&f.allRuns, "all-runs", false, "with --shard: make the shard's chunks up to --max-runs, not up to the share projected from the first runs")
	fs.BoolVar(&f.merge, "merge", false, "fold the shard files named after the scenario (estimate NAME --merge SHARD...) into the estimate one machine makes")
	tuneGCForManyRuns()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, "", err
	}
	switch {
	case len(pos) == 0 || (len(pos) > 1 && !f.merge):
		return nil, "", badInputf("redlocksim estimate: name one scenario (a built-in name or a .toml file)")
	case f.merge && len(pos) == 1:
		return nil, "", badInputf("redlocksim estimate: --merge: name the shard files after the scenario (estimate NAME --merge SHARD...)")
	case f.merge && f.shard != "":
		return nil, "", badInputf("redlocksim estimate: --shard and --merge go apart: the shards make runs, the merge folds them")
	case (f.shard == "") != (f.shardOut == ""):
		return nil, "", badInputf("redlocksim estimate: --shard and --shard-out go together")
	case f.allRuns && f.shard == "":
		return nil, "", badInputf("redlocksim estimate: --all-runs goes with --shard: it says how many runs a shard makes")
	}
	f.shardFiles = pos[1:]
	arg := pos[0]
	if err := f.workers.check(); err != nil {
		return nil, "", badInputf("redlocksim estimate: %v", err)
	}
	return f, arg, nil
}

func cmdEstimate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, arg, err := parseEstimateFlags(args, stderr)
	if err != nil {
		return err
	}
	prop, err := estimate.ParseProperty(f.property)
	if err != nil {
		return badInputf("redlocksim estimate: --property: %v", err)
	}
	base, sc, sets, err := scenarios.LoadWithSets(arg, f.sets)
	if err != nil {
		return badInputf("redlocksim estimate: %v", err)
	}
	opt := f.options(prop, f.method)
	opt.Plan, opt.Log = sc.Plan, stderr
	if opt.MaxTime == 0 {
		return badInputf("redlocksim estimate: --max-time must be positive: an estimate states its budget")
	}
	if f.shard != "" || f.merge {
		opt.Inputs = estimateInputs(base.Hash(sets...), sc.DataFiles)
	}
	if f.shard != "" {
		if opt.Shard, err = sweep.ParseShard(f.shard, os.Getenv); err != nil {
			return badInputf("redlocksim estimate: %v", err)
		}
		opt.AllRuns = f.allRuns
	}
	if opt.Merge, err = readEstimateShards(f.shardFiles); err != nil {
		return err
	}
	res, err := estimate.Estimate(ctx, opt)
	if err == nil && res.ShardFile != nil {
		return writeEstimateShard(ctx, sc.Name, string(f.shardOut), res, stderr)
	}
	if errors.Is(err, estimate.ErrBadInput) {
		return badInputf("redlocksim estimate %s: %v", sc.Name, strings.TrimPrefix(err.Error(), "bad input: "))
	}
	if err != nil {
		return err
	}
	var pinned *estimate.Pinned
	if res.Dominant != nil {
		name := f.out.dominantName(sc.Name)
		if pinned, err = estimate.Pin(base, sets, &sc.Config, res.Dominant, prop, name); err != nil {
			return badInputf("redlocksim estimate: writing the dominant failure path: %v", err)
		}
	}
	if f.json {
		if err := printJSON(stdout, estimate.ToJSON(sc.Name, res, pinned)); err != nil {
			return err
		}
	} else {
		writeEstimate(stdout, sc.Name, arg, f, res, pinned)
	}
	if f.out != "" {
		switch {
		case pinned == nil:
			fmt.Fprintf(stderr, "redlocksim estimate: no violating run, so no failure path to write to %s\n", f.out)
		case !pinned.Replays:
			fmt.Fprintf(stderr, "redlocksim estimate: not writing %s: the dominant path does not replay as a plain scenario: %s\n", f.out, pinned.WhyNot)
		default:
			if _, err := atomicfile.Write(string(f.out), pinned.TOML); err != nil {
				return badInputf("redlocksim estimate: %v", err)
			}
		}
	}
	if strings.HasPrefix(res.Stopped, "interrupted") {
		return &interruptedError{sig: caughtSignal(ctx), msg: fmt.Errorf("estimate %s interrupted after %d runs; the result above is what they show", sc.Name, res.Runs)}
	}
	if !res.Trustworthy {
		return finding(fmt.Errorf("redlocksim estimate %s: no trustworthy interval: %s", sc.Name, strings.Join(res.Problems, "; ")))
	}
	return nil
}

func writeEstimate(w io.Writer, name, arg string, f *estimateFlags, res *estimate.Result, pinned *estimate.Pinned) {
	what := map[string]string{"mutex": "a mutual-exclusion violation", "resource": "a resource violation"}[res.Property]
	if res.UpperBound {
		fmt.Fprintf(w, "%s: no run with %s in %d; P per run is at most %.3g (a one-sided 97.5%% upper bound, not an estimate)\n", name, what, res.EstimateRuns, res.CIHigh)
		if res.AcquisitionsPerRun > 0 {
			fmt.Fprintf(w, "  per acquisition: at most %.3g (%.4g acquisitions per run)\n", res.PerAcquisitionHigh, res.AcquisitionsPerRun)
		}
	} else {
		fmt.Fprintf(w, "%s: P(%s in a run) = %.3g, 95%% interval [%.3g, %.3g], ±%.1f%%\n", name, what, res.Probability, res.CILow, res.CIHigh, 100*res.RelError)
		if res.AcquisitionsPerRun > 0 {
			fmt.Fprintf(w, "  per acquisition: %.3g [%.3g, %.3g] (%.4g acquisitions per run)\n", res.PerAcquisition, res.PerAcquisitionLow, res.PerAcquisitionHigh, res.AcquisitionsPerRun)
		}
	}
	fmt.Fprintf(w, "  method: %s: %s\n", map[string]string{"mc": "plain Monte Carlo", "is": "importance sampling", "splitting": "multilevel splitting"}[res.Method], res.Why)
	for _, t := range res.Tilts {
		fmt.Fprintf(w, "  tilted: %s\n", estimate.Describe(t))
	}
	if sp := res.Splitting; sp != nil && res.Method == estimate.Splitting {
		fmt.Fprintf(w, "  runs: %d in all, %d in %d repetitions of %d particles (%d levels in all), %d violating particles; the repetitions' effective number %.4g; the largest is %.1f%% of the estimate\n",
			res.Runs, res.EstimateRuns, sp.Repetitions, sp.Particles, sp.Levels, res.Violations, res.ESS, 100*res.LargestWeightShare)
	} else if res.Method == estimate.IS {
		fmt.Fprintf(w, "  runs: %d in all, %d in the estimate, %d violating; their effective sample size %.4g; the largest weight is %.1f%% of the estimate\n",
			res.Runs, res.EstimateRuns, res.Violations, res.ESS, 100*res.LargestWeightShare)
	} else {
		fmt.Fprintf(w, "  runs: %d in all, %d in the estimate, %d violating\n", res.Runs, res.EstimateRuns, res.Violations)
	}
	fmt.Fprintf(w, "  stopped: %s\n", res.Stopped)
	if !res.Trustworthy {
		fmt.Fprintf(w, "  NOT TRUSTWORTHY: %s\n", strings.Join(res.Problems, "; "))
	}
	if pinned != nil {
		fmt.Fprintf(w, "  dominant failure path: %s\n", pinned.Sentence)
		switch {
		case !pinned.Replays:
			fmt.Fprintf(w, "    (it does not replay as a plain scenario: %s)\n", pinned.WhyNot)
		case f.out != "":
			fmt.Fprintf(w, "    replay: redlocksim run %s --trace\n", shellQuote(string(f.out)))
		default:
			fmt.Fprintf(w, "    write it as a scenario with --out FILE\n")
		}
	}
}

// estimateInputs names the scenario in a shard file's digest: its content
// hash and its data files' hashes, which the content hash does not cover.
func estimateInputs(hash string, files []scenarios.DataFile) string {
	s := hash
	for _, f := range files {
		s += " " + f.Key + "=" + f.SHA256
	}
	return s
}

// readEstimateShards reads --merge's shard files.
func readEstimateShards(paths []string) ([]*estimate.ShardFile, error) {
	var out []*estimate.ShardFile
	for _, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			return nil, badInputf("redlocksim estimate: --merge: %v", err)
		}
		f, err := estimate.ReadShardFile(fh, p)
		fh.Close()
		if err != nil {
			return nil, badInputf("redlocksim estimate: --merge: %v", err)
		}
		out = append(out, f)
	}
	return out, nil
}

// writeEstimateShard writes a shard's runs, and says what it made.
func writeEstimateShard(ctx context.Context, name, path string, res *estimate.Result, stderr io.Writer) error {
	f := res.ShardFile
	if err := atomicfile.WriteFrom(path, f); err != nil {
		return badInputf("redlocksim estimate: --shard-out: %v", err)
	}
	switch f.Phase {
	case "":
		fmt.Fprintf(stderr, "estimate %s shard %s: the estimate ended before a main phase (%s); wrote %s, for --merge\n", name, f.Shard, res.Stopped, path)
	case estimate.Splitting:
		fmt.Fprintf(stderr, "estimate %s shard %s: %d splitting repetitions (%d runs in all) in %s; merge every shard with 'redlocksim estimate %s [the same flags] --merge SHARD...'\n",
			name, f.Shard, len(f.Reps), res.Runs, path, name)
		if !f.Complete {
			return &interruptedError{sig: caughtSignal(ctx), msg: fmt.Errorf("estimate %s shard %s %s after %d repetitions; %s keeps them, and the merge stops where they end", name, f.Shard, res.Stopped, len(f.Reps), path)}
		}
		return nil
	default:
		fmt.Fprintf(stderr, "estimate %s shard %s: %d of its %d main-phase runs, up to run %d of the main phase (the budget allows %d in all shards), in %s; merge every shard with 'redlocksim estimate %s [the same flags] --merge SHARD...'\n",
			name, f.Shard, len(f.Runs), f.Count(), f.From+f.Share, f.Budget, path, name)
	}
	if !f.Complete {
		return &interruptedError{sig: caughtSignal(ctx), msg: fmt.Errorf("estimate %s shard %s %s after %d of its %d runs; %s keeps them, and the merge stops where they end", name, f.Shard, res.Stopped, len(f.Runs), f.Count(), path)}
	}
	return nil
}
