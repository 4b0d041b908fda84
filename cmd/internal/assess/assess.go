package assess

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// Year is the length of a year in the per-year figures: 365.25 days.
const Year = time.Duration(365.25 * 24 * float64(time.Hour))

// Options are one assessment's inputs.
type Options struct {
	Base     *scenarios.Base
	Sets     []scenarios.Override // the user's overrides on Base
	Scenario *scenarios.Scenario  // Base with Sets applied
	// Rate is the acquisitions per second the lock serves in production;
	// 0 takes the scenario's own (its acquisitions per run over its
	// duration, from the estimator's plain pilot runs).
	Rate     float64
	Remedies []scenarios.Remedy
	// Estimate is the estimator's settings for every estimate made (the
	// scenario's and each remedy's); its Plan is set here.
	Estimate estimate.Options
	// PathName names the dominant path's scenario.
	PathName string
}

// Report is an assessment.
type Report struct {
	Scenario string
	Main     *estimate.Result
	// Rate is the acquisitions per second the per-year figures assume;
	// RateFrom says where it came from.
	Rate     float64
	RateFrom string
	// PerYear is the expected number of violations in a year at Rate,
	// with its 95% interval (the per-acquisition interval scaled), and
	// AtLeastOnce the probability of at least one (Poisson).
	PerYear, PerYearLow, PerYearHigh float64
	AtLeastOnce                      float64
	Pinned                           *estimate.Pinned // nil when no violating run was seen
	Breaks                           *Breaking        // nil when the path has no pause to shorten
	BreaksWhyNot                     string           // why there is no breaking point
	// Resource is the scenario's own estimate on the resource, beside
	// which the resource's remedies are read, when Main is on mutex.
	Resource *estimate.Result
	WhatIf   []Remedy
}

// resourceRemedies protect the resource rather than the lock.
var resourceRemedies = map[string]bool{"fencing": true, "cas": true}

func judgedOn(rem scenarios.Remedy, prop estimate.Property) estimate.Property {
	if resourceRemedies[rem.Name] {
		return estimate.Resource
	}
	return prop
}

// Estimates is how many estimates Assess makes at most: the scenario's,
// its resource's when a remedy is judged there, one per remedy.
func Estimates(opt Options) int {
	n := 1 + len(opt.Remedies)
	for _, rem := range opt.Remedies {
		if judgedOn(rem, opt.Estimate.Property) != opt.Estimate.Property {
			return n + 1
		}
	}
	return n
}

// Breaking is the smallest pause that breaks the lock on the dominant
// path: the path's longest pause, bisected with every other input as on
// the path.
type Breaking struct {
	Client       string
	At           time.Duration
	Safe, Breaks time.Duration // the longest safe and the shortest violating length found
	PathLength   time.Duration // the path's own pause
	Key          string        // the pinned scenario's key that was bisected
	Probes       int
}

// Remedy is one remedy's estimate.
type Remedy struct {
	Name, Summary string
	// Property is what the remedy is judged on: the resource for those
	// that protect it (fencing, compare-and-set), which cannot change
	// whether two clients believe they hold the lock; else the
	// assessment's property.
	Property estimate.Property
	Applies  bool
	Why      string // why it does not apply
	Sets     []string
	Result   *estimate.Result
}

// Assess runs the assessment. Errors wrapping estimate.ErrBadInput are
// bad input.
func Assess(ctx context.Context, opt Options) (*Report, error) {
	prop := opt.Estimate.Property
	if why := prop.CanViolate(&opt.Scenario.Config); why != "" {
		return nil, fmt.Errorf("%w: %s", estimate.ErrBadInput, why)
	}
	eo := opt.Estimate
	eo.Plan = opt.Scenario.Plan
	main, err := estimate.Estimate(ctx, eo)
	if err != nil {
		return nil, err
	}
	r := &Report{Scenario: opt.Scenario.Name, Main: main}
	r.rate(opt, main)
	if main.Dominant != nil {
		if r.Pinned, err = estimate.Pin(opt.Base, opt.Sets, &opt.Scenario.Config, main.Dominant, prop, opt.PathName); err != nil {
			return nil, err
		}
		r.Breaks, r.BreaksWhyNot, err = breaking(&opt.Scenario.Config, r.Pinned, prop)
		if err != nil {
			return nil, err
		}
	} else {
		r.BreaksWhyNot = "no violating run was seen, so there is no path to shorten a pause on"
	}
	for _, rem := range opt.Remedies {
		if ctx.Err() != nil {
			break
		}
		if judgedOn(rem, prop) != prop && r.Resource == nil {
			eo.Property, eo.Log = estimate.Resource, nil
			if r.Resource, err = estimate.Estimate(ctx, eo); err != nil {
				return nil, err
			}
		}
		row, err := remedy(ctx, opt, rem)
		if err != nil {
			return nil, err
		}
		r.WhatIf = append(r.WhatIf, row)
	}
	return r, nil
}

// rate fills the per-year figures from the per-acquisition estimate.
func (r *Report) rate(opt Options, res *estimate.Result) {
	r.Rate, r.RateFrom = opt.Rate, "--rate"
	if r.Rate == 0 {
		r.Rate = res.AcquisitionsPerRun / opt.Scenario.Config.Duration.Seconds()
		r.RateFrom = fmt.Sprintf("the scenario's own: %.4g acquisitions per %v run", res.AcquisitionsPerRun, opt.Scenario.Config.Duration)
	}
	n := r.Rate * Year.Seconds()
	r.PerYear, r.PerYearLow, r.PerYearHigh = n*res.PerAcquisition, n*res.PerAcquisitionLow, n*res.PerAcquisitionHigh
	r.AtLeastOnce = -math.Expm1(-r.PerYear)
}

// breaking bisects the dominant path's longest pause on the pinned
// scenario: the shortest length at which that one pause still breaks the
// lock, everything else as on the path.
func breaking(cfg *model.Config, pinned *estimate.Pinned, prop estimate.Property) (*Breaking, string, error) {
	if !pinned.Replays {
		return nil, "the pinned path does not violate with its other inputs drawn plainly, so its pauses alone do not break the lock", nil
	}
	pauses := pinned.Pauses // the pinned path's (a splitting particle's pauses are its branches')
	if len(pauses) == 0 {
		return nil, "the path has no random pause: other inputs (latencies, loss, critical sections) break the lock", nil
	}
	longest := 0
	for i, p := range pauses {
		if p.For > pauses[longest].For {
			longest = i
		}
	}
	// Pin lists the scenario's own faults first, then the pauses in order.
	key := fmt.Sprintf("faults[%d].for", len(cfg.Faults)+longest)
	base, err := scenarios.NewBase("dominant path", pinned.TOML)
	if err != nil {
		return nil, "", err
	}
	xprop := explore.Mutex
	if prop == estimate.Resource {
		xprop = explore.Resource
	}
	p := pauses[longest]
	b, err := explore.FindBoundary(explore.BoundaryOptions{
		Base: base, Arg: "PATH.toml", Key: key, From: "0s", To: p.For.String(), Seeds: 1, Property: xprop, Workers: 1,
	})
	var noFlip *explore.NoFlipError
	if errors.As(err, &noFlip) {
		return nil, fmt.Sprintf("shortening %s's %v pause at %v to nothing does not make the path safe: the lock breaks without it", p.Client, p.For, p.At), nil
	}
	if err != nil {
		return nil, "", err
	}
	return &Breaking{
		Client: p.Client, At: p.At, PathLength: p.For, Key: key, Probes: b.Probes,
		Safe: time.Duration(b.Safe.Value), Breaks: time.Duration(b.Violating.Value),
	}, "", nil
}

// remedy estimates the scenario with one remedy's overrides.
func remedy(ctx context.Context, opt Options, rem scenarios.Remedy) (Remedy, error) {
	extra, why, err := rem.Plan(opt.Base, opt.Scenario)
	if err != nil {
		return Remedy{}, err
	}
	row := Remedy{Name: rem.Name, Summary: rem.Summary, Property: judgedOn(rem, opt.Estimate.Property), Applies: why == "", Why: why}
	for _, o := range extra {
		row.Sets = append(row.Sets, o.Arg())
	}
	if !row.Applies {
		return row, nil
	}
	sc, err := opt.Base.Apply(slices.Concat(opt.Sets, extra)...)
	if err != nil {
		return Remedy{}, fmt.Errorf("remedy %s: %w", rem.Name, err)
	}
	eo := opt.Estimate
	eo.Plan, eo.Log, eo.Property = sc.Plan, nil, row.Property
	if row.Result, err = estimate.Estimate(ctx, eo); err != nil {
		return Remedy{}, fmt.Errorf("remedy %s: %w", rem.Name, err)
	}
	return row, nil
}
