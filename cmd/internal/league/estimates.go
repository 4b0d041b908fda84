package league

import (
	"context"
	"fmt"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
	"github.com/redlocksim/redlocksim/model"
)

// smallCount: a cell with fewer counted violations than this has a rate
// that plain counting pins down only loosely (Garwood's interval at 9
// counts is 0.46 to 1.9 times the rate), so the rare-event estimator is
// asked about it as well, when the league is given a budget for it.
const smallCount = 10

// cellEstimate is what the rare-event estimator (redlocksim estimate,
// method auto) says of one cell: the probability that a run violates
// mutual exclusion. It is not the rate per acquisition of the table: a
// run may hold several overlapping pairs, which the table counts and the
// estimator counts once.
type cellEstimate struct {
	method             string
	p, lo, hi          float64
	upperBound, trusty bool
	runs               int
	problems           []string
}

// estimateSmall asks the estimator about every unfenced cell with fewer
// than smallCount violations (fencing changes no belief, so a fenced
// cell's mutex is its unfenced twin's), at most budget runs each, seed 1.
// The estimator's result does not depend on workers.
func estimateSmall(ctx context.Context, jobs []job, budget, workers int) error {
	for _, j := range jobs {
		c := j.cell
		if c.fenced || c.violations >= smallCount {
			continue
		}
		cfg := j.cfg
		plan, err := model.Compile(&cfg)
		if err != nil {
			return fmt.Errorf("league: %s under %s: %w", c.lock, c.faults, err)
		}
		r, err := estimate.Estimate(ctx, estimate.Options{Plan: plan, Property: estimate.Mutex, Method: estimate.Auto,
			RelError: 0.3, MaxRuns: budget, Seed: 1, Workers: workers})
		if err != nil {
			return fmt.Errorf("league: estimating %s under %s: %w", c.lock, c.faults, err)
		}
		c.estimate = &cellEstimate{method: r.Method, p: r.Probability, lo: r.CILow, hi: r.CIHigh,
			upperBound: r.UpperBound, trusty: r.Trustworthy, runs: r.Runs, problems: r.Problems}
	}
	return nil
}

// estimatesMarkdown is the section on the estimated cells, "" if none.
func estimatesMarkdown(cells []*Cell, budget int) string {
	var b strings.Builder
	for _, c := range cells {
		e := c.estimate
		if e == nil {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "\nRare-event estimates (redlocksim estimate, method auto, at most %d runs per cell, seed 1) for the unfenced cells with fewer than %d counted violations: the probability that a run violates mutual exclusion, with its 95%% interval. It is not the rate per acquisition above: a run may hold several overlapping pairs, which the table counts and the estimator counts once.\n\n| lock | fault set | method | P(a run violates) | runs | trustworthy |\n|---|---|---|---|---|---|\n", budget, smallCount)
		}
		p := fmt.Sprintf("%.3g [%.2g, %.2g]", e.p, e.lo, e.hi)
		if e.upperBound {
			p = fmt.Sprintf("below %.2g (none seen)", e.hi)
		}
		trust := "yes"
		if !e.trusty {
			trust = "no: " + strings.Join(e.problems, "; ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s |\n", c.lock, c.faults, e.method, p, e.runs, trust)
	}
	return b.String()
}

// estimateColumns are the CSV's columns of a cell's estimate, after the
// others, when the league was given a budget for the estimator; a cell
// the estimator was not asked about leaves them empty.
var estimateColumns = []string{"violating_run_probability", "violating_run_probability_ci_low", "violating_run_probability_ci_high",
	"estimate_upper_bound_only", "estimate_method", "estimate_runs", "estimate_trustworthy"}

func (e *cellEstimate) csv() []string {
	if e == nil {
		return make([]string, len(estimateColumns))
	}
	return []string{fmt.Sprintf("%.6g", e.p), fmt.Sprintf("%.6g", e.lo), fmt.Sprintf("%.6g", e.hi),
		fmt.Sprint(e.upperBound), e.method, fmt.Sprint(e.runs), fmt.Sprint(e.trusty)}
}
