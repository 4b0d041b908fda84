package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// jobFlags are sweep --emit's: what job script to print instead of
// running the sweep.
type jobFlags struct {
	kind   string
	shards int
}

// defaultJobDir is where the emitted script's tasks write their shards
// when sweep --emit is given no --out.
const defaultJobDir = "results"

func addJobFlags(fs *flag.FlagSet) *jobFlags {
	j := &jobFlags{}
	fs.StringVar(&j.kind, "emit", "", "print a job script that runs the sweep as an array job of --shards tasks writing to the directory --out (default results), and exit: slurm")
	fs.IntVar(&j.shards, "shards", 16, "with --emit, the array's tasks, one shard each")
	return j
}

// emit prints the job script for spec (named arg on the command line),
// if --emit was given, and returns true and the command's error; seeds, if
// positive, is passed on, and so are the --estimate flags given. Without
// --emit it returns false, unless --shards was given alone.
func (j *jobFlags) emit(fs *flag.FlagSet, spec *sweep.Spec, arg, dir string, seeds, maxRuns int, stdout io.Writer) (bool, error) {
	bad := func(format string, a ...any) (bool, error) {
		return true, badInputf("redlocksim sweep: "+format, a...)
	}
	if j.kind == "" {
		shards := false
		fs.Visit(func(f *flag.Flag) { shards = shards || f.Name == "shards" })
		if shards {
			return bad("--shards needs --emit slurm (to run one shard here, give --shard K/N)")
		}
		return false, nil
	}
	switch {
	case j.kind != "slurm":
		return bad("--emit %q: the one job script is slurm", j.kind)
	case j.shards < 1 || j.shards > spec.NumPoints():
		return bad("--shards must be between 1 and the sweep's %d points, got %d", spec.NumPoints(), j.shards)
	}
	if dir == "" {
		dir = defaultJobDir
	}
	extra := ""
	if seeds > 0 {
		extra = fmt.Sprintf(" --seeds %d", seeds)
	}
	estimating := false
	fs.Visit(func(f *flag.Flag) {
		estimating = estimating || f.Name == "estimate"
		if f.Name == "max-runs" {
			extra += fmt.Sprintf(" --max-runs %d", maxRuns)
		}
		if !estimatePassed[f.Name] {
			return
		}
		extra += " --" + f.Name
		if f.Name != "estimate" {
			extra += " " + sweep.ShellQuote(f.Value.String())
		}
	})
	if !estimating {
		// Each task would be refused on the cluster, after the queue:
		// refuse here, from the counts, the largest shard (the first).
		if seeds > 0 {
			spec.SetSeeds(seeds, fmt.Sprintf("--seeds %d", seeds))
		}
		if err := sweeprun.CheckRuns(spec, sweeprun.Options{Shard: sweep.Shard{K: 1, N: j.shards}, MaxRuns: maxRuns}); err != nil {
			return bad("the job's tasks would be refused (raise --shards to split it further): %v", err)
		}
	}
	fmt.Fprint(stdout, slurmScript(spec.Name, arg, dir, j.shards, extra))
	return true, nil
}

// estimatePassed are sweep --estimate's flags, which the job's tasks are
// given as they were given here: a task's shard of an estimating sweep
// is one, and merge refuses shards made with other settings.
var estimatePassed = map[string]bool{"estimate": true, "property": true, "rel-error": true, "point-time": true, "point-runs": true}

// slurmScript is a Slurm array job of shards tasks, each running one
// shard of the sweep arg (with the flags extra) into dir, resumable if a
// task is requeued. The
// cluster guide (docs/guides/clusters.md) shows it (a test keeps the two
// the same) and the Slurm test submits it.
func slurmScript(name, arg, dir string, shards int, extra string) string {
	var b strings.Builder
	out := strings.TrimSuffix(dir, "/") + "/" + name
	q := sweep.ShellQuote
	fmt.Fprintf(&b, `#!/bin/bash
#SBATCH --job-name=%s
#SBATCH --array=0-%d
#SBATCH --cpus-per-task=4
# Task K of N runs shard K/N (from SLURM_ARRAY_TASK_ID, _MIN, _STEP and _COUNT).
# When all are done: redlocksim merge %s.csv %s.*.csv
set -eu
mkdir -p %s
redlocksim sweep %s%s --workers "${SLURM_CPUS_PER_TASK:-1}" --shard auto --resume \
    --out %s."$SLURM_ARRAY_TASK_ID".csv
`, name, shards-1, q(name), q(out), q(dir), q(arg), extra, q(out))
	return b.String()
}
