package whatif

import (
	"fmt"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// Row is one line of the verdict table.
type Row struct {
	Remedy  string   // "as written" for the scenario itself
	Sets    []string // the overrides on top of the user's own
	Applies bool
	Why     string // why the remedy does not apply
	Result  model.Result
	Replay  string // the command that replays this row
}

// Table replays the scenario arg (a library name or a file) with the
// user's overrides sets, once as written and once per remedy that
// applies, all at seed. The scenario is read once: each remedy's
// overrides (scenarios.Remedy.Plan) are applied to the same loaded Base
// after the user's. replay builds a row's command from its full override
// list.
func Table(arg string, sets []string, seed uint64, remedies []scenarios.Remedy, replay func(sets []string) string) ([]Row, error) {
	b, sc, user, err := scenarios.LoadWithSets(arg, sets)
	if err != nil {
		return nil, err
	}
	res, err := sc.Plan.RunFastWithin(seed, 0)
	if err != nil {
		return nil, err
	}
	rows := []Row{{Remedy: "as written", Applies: true, Result: res, Replay: replay(sets)}}
	for _, r := range remedies {
		extra, why, err := r.Plan(b, sc)
		if err != nil {
			return nil, err
		}
		row := Row{Remedy: r.Name, Applies: why == "", Why: why}
		for _, o := range extra {
			row.Sets = append(row.Sets, o.Arg())
		}
		if row.Applies {
			rsc, err := b.Apply(slices.Concat(user, extra)...)
			if err != nil {
				return nil, fmt.Errorf("remedy %s: %w", r.Name, err)
			}
			if row.Result, err = rsc.Plan.RunFastWithin(seed, 0); err != nil {
				return nil, fmt.Errorf("remedy %s: %w", r.Name, err)
			}
			row.Replay = replay(slices.Concat(sets, row.Sets))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// Availability says in a few words how available the lock was.
func Availability(r model.Result) string {
	rep := r.Report
	return fmt.Sprintf("%d/%d acquired, longest outage %v", rep.AcquireSuccesses, rep.AcquireAttempts, rep.LongestOutage.Round(time.Millisecond))
}
