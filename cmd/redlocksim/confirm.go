package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/scenarios"
)

// realMargin is the shortest overlap a real replay of the base can be
// expected to show: a timer or a proxy hop comes up to 10 ms of wall time
// late on this 2-core machine, which the scale multiplies back. (The real
// clients' own retry draws are --robust's part.)
func realMargin(base *scenarios.Base, sets []scenarios.Override) (time.Duration, error) {
	sc, err := base.Apply(sets...)
	if err != nil {
		return 0, err
	}
	return time.Duration(float64(10*time.Millisecond) * harness.DefaultScale(&sc.Config)), nil
}

// confirmFindings replays each finding's minimal schedule n times for
// real (explore --confirm-real), records what the real runs showed in the
// finding and its file, and returns why the command must stop, if it
// must: a real run that failed (a finding), a missing server binary.
// Interrupted, it stops and keeps what it confirmed.
func confirmFindings(ctx context.Context, sum *explore.Summary, n int, command string, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("redlocksim explore: %v", err)
	}
	date := time.Now().UTC().Format("2006-01-02")
	for i := range sum.Findings {
		f := &sum.Findings[i]
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(stderr, "confirming counterexample %d of %d for real (%d runs)\n", i+1, len(sum.Findings), n)
		c, err := confirmOne(ctx, f, n, exe)
		if err != nil {
			var missing *proc.MissingError
			if errors.As(err, &missing) {
				return environment(fmt.Errorf("redlocksim explore: %w", err))
			}
			if ctx.Err() != nil {
				break // interrupted: the summary says so
			}
			return finding(fmt.Errorf("redlocksim explore: counterexample %d for real: %v", i+1, err))
		}
		c.Date = date
		f.Real = c
		if err := f.Rewrite(command); err != nil {
			return badExplore("%v", err)
		}
	}
	return nil
}

// confirmOne runs f's minimal world n times for real, seeds base+0 ..
// base+n-1, and counts the runs that broke the explorer's property.
func confirmOne(ctx context.Context, f *explore.Finding, n int, exe string) (*explore.RealCheck, error) {
	cfg := f.Config()
	if refused, _ := harness.Refusals(&cfg); len(refused) > 0 {
		return &explore.RealCheck{Runs: n, Refused: refused[0].Error()}, nil
	}
	scale := harness.DefaultScale(&cfg)
	if err := harness.CheckScale(&cfg, scale); err != nil {
		return &explore.RealCheck{Runs: n, Refused: err.Error()}, nil
	}
	c := &explore.RealCheck{Runs: n, Scale: scale}
	for k := range n {
		g := proc.NewGroup()
		closeGroup := closeOnDone(ctx, g)
		res, err := harness.Run(ctx, cfg, harness.Options{Scale: scale, Seed: f.Seed() + uint64(k), Client: []string{exe, "real-client"}, Group: g})
		_ = closeGroup()
		if err != nil {
			return nil, err
		}
		c.Client = res.Clients
		if brokeForReal(f, cfg, res) {
			c.Showed++
		}
	}
	return c, nil
}

// brokeForReal judges a real run against the finding's property, as the
// explorer judged the simulated one: the liveness limit and the faults'
// end scaled as the run's times are.
func brokeForReal(f *explore.Finding, cfg model.Config, res *harness.Result) bool {
	mutex, resource := res.Report.Safe()
	switch f.Property() {
	case explore.Mutex:
		return !mutex
	case explore.Resource:
		return !resource
	case explore.Liveness:
		sc := harness.Scale(cfg, res.Scale)
		limit := time.Duration(float64(f.Limit()) / res.Scale)
		_, starved := check.Starved(res.History, model.HealedBy(sc.Faults, res.End), limit)
		return starved
	}
	return false
}
