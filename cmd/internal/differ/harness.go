package differ

import (
	"context"
	"errors"

	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/model"
)

// HarnessRunner runs schedules for real with the real harness, one run at
// a time, every child process in a group of its own that is closed when
// the run ends.
type HarnessRunner struct {
	Client []string // the command that runs one client process (harness.Options.Client)
	Scale  float64  // the scale of every run; 0: each schedule's default
}

// Refused is harness.Refusals, joined, then the scale's check.
func (h HarnessRunner) Refused(cfg *model.Config) error {
	if refused, _ := harness.Refusals(cfg); len(refused) > 0 {
		errs := make([]error, len(refused))
		for i, r := range refused {
			errs[i] = r
		}
		return errors.Join(errs...)
	}
	f := h.Scale
	if f == 0 {
		f = harness.DefaultScale(cfg)
	}
	return harness.CheckScale(cfg, f)
}

// Run is one harness.Run, judged by model/check.
func (h HarnessRunner) Run(ctx context.Context, cfg model.Config, seed uint64) (Outcome, error) {
	g := proc.NewGroup()
	defer g.Close()
	res, err := harness.Run(ctx, cfg, harness.Options{Scale: h.Scale, Seed: seed, Client: h.Client, Group: g})
	if err != nil {
		return Outcome{}, err
	}
	m, r := res.Report.Safe()
	return Outcome{Mutex: !m, Resource: !r}, nil
}
