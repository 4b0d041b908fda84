// Package sweeprun runs sweeps and hunts: a pool of workers makes the runs a
// sweep.Spec describes (model.RunFast, no narration), a journal keeps each
// finished run, and when all are done the results are aggregated per point
// and written as CSV; Merge joins the files of a sweep's shards.
//
// Before the first run, Run refuses (*RefusedError) a sweep of more runs
// than Options.MaxRuns, outputs it could not write, and a point that does
// not build or whose Config shows it over its budget; it then times its
// first runs (the calibration), states the estimate (Options.Estimate)
// and refuses one longer than Options.MaxTime. A refused sweep, or one
// stopped before it kept a run, leaves no journal.
//
// With Options.CIWidth the sweep samples adaptively: a point's seeds are
// made a batch at a time, and the point stops at the end of the first
// batch after which its mutex violation rate's Wilson interval is
// narrower than the width (or at MaxSeeds). The rule is applied to the
// point's runs in replicate order, at fixed batch boundaries, when the
// batch is complete, and again from the journal when the files are
// written: the result depends on the spec and the rule alone.
//
// Invariants:
//   - Goroutines run different runs; one run is single-threaded, as
//     package model requires. A Config is built once per point and shared,
//     read-only, by that point's runs.
//   - The output files are a pure function of the spec, the shard and
//     --seeds: they are written from the journal in point order after every
//     run is in, so the worker count, the order in which runs finish, and
//     interruptions followed by --resume do not change a byte.
//   - An interrupted sweep loses no finished run: each run is written to
//     its own fixed slot of the journal (Out + ".partial") with one write
//     when it finishes, checksummed, and the journal is fsynced about once
//     a second; see journal.go for the format. A stopped sweep gives the
//     runs under way Options.Grace to finish, then drops them, so that it
//     stops in about a second whatever its size.
//   - Opening a journal costs what it holds: the file is sparse and only
//     its regions with data are read.
//   - Memory does not grow with the sweep: points are expanded lazily, no
//     run keeps a trace, the journal holds the runs, and the output is
//     written one point at a time. What grows is three bits per run (which
//     runs are done, handed out, and broke mutual exclusion): 3.75 MB
//     for the 10^7 runs --max-runs allows by default.
//   - Final files are written through package atomicfile: under a
//     temporary name and renamed over the target (through a symlink), or
//     directly into a device such as /dev/null, which is never replaced.
//   - A journal is locked (flock) while a sweep or hunt uses it; a second
//     one on it is refused with a *JournalError.
//   - A run that panics is an *InternalError with its seed and a replay
//     command, never a crash of the pool.
//
// Hunt runs one scenario over a range of seeds with the same pool and
// journal (one slot per seed), and reads its report back from the journal,
// so that an interrupted hunt resumed with --resume reports what an
// uninterrupted one does.
//
// # Output
//
// The results file has a header row and one row per point, in point order:
// point (its index), one column per spec column (the dotted scenario key;
// a string value as it is, 10s or fencing; other values as TOML literals;
// empty where the point leaves the key to the base), then ResultColumns:
//
//	runs                            runs of the point (the spec's seeds, or what --ci-width gave it)
//	mutex_violation_runs            runs with Report.MutexViolations > 0
//	mutex_violation_rate            mutex_violation_runs / runs
//	mutex_ci_low, mutex_ci_high     95% Wilson interval of that rate
//	violations_per_1k_acquisitions  1000 × Σ MutexViolations / Σ AcquireSuccesses (empty if none)
//	mutex_overlap_ms_mean           mean of MutexOverlapTotal
//	resource_violation_runs         runs with LostUpdates + StaleWritesAccepted > 0
//	resource_violation_rate, resource_ci_low, resource_ci_high   likewise
//	lost_updates_mean, stale_writes_accepted_mean, stale_writes_rejected_mean
//	acquisitions_mean, acquire_failures_mean
//	acquire_p99_ms                  mean over the runs with a success of each run's p99
//	                                acquisition latency (the checker's, nearest rank);
//	                                empty if no run acquired
//	unavailable_ms_mean             mean of Report.Unavailable
//	longest_outage_ms_max           the largest LongestOutage of the point's runs
//
// Each averaged column (violations_per_1k_acquisitions, every *_mean,
// acquire_p99_ms) is followed by COLUMN_ci_low and COLUMN_ci_high, its 95%
// interval: Student t on the per-run values, the delta method for the
// pooled ratio (see package scenarios/sweep/results); empty with fewer than two runs.
//
// After any extra columns come RateColumns, last so that every older
// column keeps its place:
//
//	mutex_violations_total, resource_violations_total   Σ MutexViolations, Σ LostUpdates + StaleWritesAccepted
//	acquisitions_total              Σ AcquireSuccesses
//	run_hours                       runs × the scenario's duration, in hours
//	mutex_violations_per_acquisition, mutex_violations_per_hour,
//	resource_violations_per_acquisition, resource_violations_per_hour
//	                                the totals over acquisitions or hours, each followed by
//	                                COLUMN_ci_low and COLUMN_ci_high: Garwood's exact 95%
//	                                Poisson interval (results.PoissonRate), [0, 3.689/n] at 0
//
// written with six significant digits (results.Sig).
//
// Aggregate and WriteResults write the same file, in the same columns and
// arithmetic, for runs made outside the pool: compare --sweep's real runs,
// with extra columns (mode, scale) after ResultColumns and before
// RateColumns.
//
// The raw file (--raw) has one row per run: point, replicate, seed, the
// spec columns, RawColumns (the run's counts; durations in ms) and replay,
// a shell command that makes that run alone with `redlocksim run`.
//
// Numbers are written with at most six decimals and no trailing zeros.
// Files of a shard (Options.Shard) start with one comment line,
//
//	# redlocksim sweep spec=HASH shard=K/N points=M seeds=S file=results|raw
//
// which CSV readers skip with comment="#" (pandas) or comment.char="#"
// (R), and which Merge checks. A sweep run without a shard writes no such
// line, and Merge of all shards writes exactly that file.
package sweeprun
