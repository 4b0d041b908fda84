package main

import (
	"os"
	"runtime/debug"

	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// manyRunsGCPercent is the collector target of the commands that make many
// runs. Each run allocates its history (a few MB for a long world) and drops
// all of it at the end, so the default target of 100 collects several times
// per run to keep a heap that is garbage a moment later. At 400 the
// ttl-vs-drift sweep took 8% less wall time with 2 workers (the sweep
// benchmarks 10–25% less) for 31 MB of RSS instead of 19 MB.
const manyRunsGCPercent = 400

// tuneGCForManyRuns raises the collector target unless the user set GOGC,
// which always wins.
func tuneGCForManyRuns() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(manyRunsGCPercent)
	}
}

// loadMemoryLimit is the soft memory limit under which a sweep spec is
// loaded. A spec of the largest size the loader takes (1 MiB: thirty
// thousand [[points]], or an axis of 150,000 values) holds about 32 MB of
// decoded TOML and line positions at once; at the collector's default
// target the heap doubled that, and a sweep refused over its budget
// peaked at 85-111 MB. Under this limit it peaks at 74-78 MB for the
// same CPU time (48 MB made the collector run twice the CPU time). The
// limit holds while the spec is read, and only then.
const loadMemoryLimit = 56 << 20

// loadSweep loads the sweep spec arg (sweep.Load) under loadMemoryLimit,
// unless the user set GOMEMLIMIT, which always wins.
func loadSweep(arg string) (*sweep.Spec, error) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		old := debug.SetMemoryLimit(loadMemoryLimit)
		defer debug.SetMemoryLimit(old)
	}
	return sweep.Load(arg)
}
