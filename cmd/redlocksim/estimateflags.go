package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
)

// estimateBudget are the flags that every command making rare-event
// estimates shares (estimate, assess): when to stop, the seed, the
// workers, a run's event budget and the scenario's overrides.
type estimateBudget struct {
	relError  float64
	maxRuns   int
	maxTime   time.Duration
	seed      seedFlag
	workers   workersFlag
	maxEvents *uint64
	sets      setFlags
}

// budgetHelp is a command's own defaults and words for the shared flags.
type budgetHelp struct {
	relError              float64
	relErrorHelp          string
	maxRuns               int
	maxRunsHelp           string // with one %d: estimate.MinRuns
	maxTime               time.Duration
	maxTimeHelp, seedHelp string
}

func (b *estimateBudget) register(fs *flag.FlagSet, h budgetHelp) {
	fs.Float64Var(&b.relError, "rel-error", h.relError, h.relErrorHelp)
	fs.IntVar(&b.maxRuns, "max-runs", h.maxRuns, fmt.Sprintf(h.maxRunsHelp, estimate.MinRuns))
	fs.DurationVar(&b.maxTime, "max-time", h.maxTime, h.maxTimeHelp)
	b.seed.register(fs, h.seedHelp)
	b.workers.register(fs)
	b.maxEvents = maxEventsFlag(fs)
	b.sets.register(fs)
}

// options are the estimator's settings from the flags.
func (b *estimateBudget) options(prop estimate.Property, method string) estimate.Options {
	return estimate.Options{
		Property: prop, Method: method, RelError: b.relError, MaxRuns: b.maxRuns, MaxTime: b.maxTime,
		Seed: b.seed.or(1), Workers: int(b.workers), MaxEvents: *b.maxEvents,
	}
}
