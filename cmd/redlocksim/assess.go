package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/assess"
	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
	"github.com/redlocksim/redlocksim/scenarios"
)

type assessFlags struct {
	property string
	rate     rateFlag
	whatIf   string
	estimateBudget
	out outFlag
}

// rateFlag is a lock rate: acquisitions per second, written N/s, N/min,
// N/h or N/d.
type rateFlag float64

func (r *rateFlag) String() string { return strconv.FormatFloat(float64(*r), 'g', -1, 64) + "/s" }

func (r *rateFlag) Set(s string) error {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	per := map[string]float64{"s": 1, "min": 60, "m": 60, "h": 3600, "d": 86400}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if !ok || per == 0 || err != nil || !(v > 0) || v > 1e12 {
		return fmt.Errorf("%q is not a lock rate: write acquisitions per unit of time, like 10/s, 600/min or 5/h (a positive number; units s, min, h, d)", s)
	}
	*r = rateFlag(v / per)
	return nil
}

func parseAssessFlags(args []string, stderr io.Writer) (*assessFlags, string, error) {
	fs := newFlagSet("assess", `usage: redlocksim assess NAME|FILE [flags]

Answers "is our lock safe enough?" for the lock, workload and faults a
scenario describes (its pauses, clocks and latencies may come from your own
logs: see docs/guides/your-own-data.md), on one screen:

  - P(violation) per acquisition, with its 95% interval, from estimate
    (importance sampling where violations are rare), and per year at the
    lock rate (--rate, or the scenario's own);
  - the dominant failure path in a sentence, written as a scenario that
    run replays (--out, or NAME-dominant.toml beside nothing: see --out);
  - the smallest pause that breaks the lock on that path (a bisection of
    the path's longest pause, as boundary does);
  - what each remedy (--what-if) does to the estimate: fencing and
    compare-and-set are judged on the resource, since they protect it and
    not the lock; the others on --property.

Each estimate stops at --rel-error, --max-runs or --max-time; the budget of
the whole assessment is stated before it starts. Exit status as estimate's:
0 every estimate trustworthy; 1 one is not (it says which and why); 2 bad
input; 130/143 interrupted.

flags:
`, stderr)
	f := &assessFlags{}
	fs.StringVar(&f.property, "property", "mutex", "what a violation is: mutex or resource")
	fs.Var(&f.rate, "rate", "the lock's acquisitions in production, like `10/s`, 600/min or 5/h (default: the scenario's own rate)")
	fs.StringVar(&f.whatIf, "what-if", "fencing,cas,monotonic,fsync-always", "the remedies to estimate, comma-separated, or all, or none ("+strings.Join(scenarios.RemedyNames(), ", ")+")")
	f.estimateBudget.register(fs, budgetHelp{
		relError: 0.2, relErrorHelp: "each estimate stops when its 95% interval's half-width is this fraction of it, in (0, 1)",
		maxRuns: 500_000, maxRunsHelp: "at most this many runs per estimate (at least %d)",
		maxTime: time.Minute, maxTimeHelp: "at most this long per estimate",
		seedHelp: "the estimates' seed (default 1)",
	})
	f.out.register(fs, "", "write the dominant failure path as a scenario `FILE` that run replays (default: none written)")
	tuneGCForManyRuns()
	arg, err := parseScenario(fs, args)
	if err != nil {
		return nil, "", err
	}
	if err := f.workers.check(); err != nil {
		return nil, "", badInputf("redlocksim assess: %v", err)
	}
	if f.maxTime <= 0 {
		return nil, "", badInputf("redlocksim assess: --max-time must be positive: an assessment states its budget")
	}
	return f, arg, nil
}

func cmdAssess(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, arg, err := parseAssessFlags(args, stderr)
	if err != nil {
		return err
	}
	prop, err := estimate.ParseProperty(f.property)
	if err != nil {
		return badInputf("redlocksim assess: --property: %v", err)
	}
	var remedies []scenarios.Remedy
	if f.whatIf != "none" && f.whatIf != "" {
		if remedies, err = scenarios.ParseRemedies(f.whatIf); err != nil {
			return badInputf("redlocksim assess: %v", err)
		}
	}
	base, sc, sets, err := scenarios.LoadWithSets(arg, f.sets)
	if err != nil {
		return badInputf("redlocksim assess: %v", err)
	}
	name := f.out.dominantName(sc.Name)
	opt := assess.Options{
		Base: base, Sets: sets, Scenario: sc, Rate: float64(f.rate), Remedies: remedies, PathName: name,
		Estimate: f.options(prop, "auto"),
	}
	n := assess.Estimates(opt)
	fmt.Fprintf(stderr, "assess %s: %d estimates of at most %v and %d runs each: at most %v in all\n", sc.Name, n, f.maxTime, f.maxRuns, time.Duration(n)*f.maxTime)
	rep, err := assess.Assess(ctx, opt)
	if errors.Is(err, estimate.ErrBadInput) {
		return badInputf("redlocksim assess %s: %v", sc.Name, strings.TrimPrefix(strings.TrimPrefix(err.Error(), "bad input: "), "bad input"))
	}
	if err != nil {
		return err
	}
	if f.out != "" && rep.Pinned != nil && rep.Pinned.Replays {
		if _, err := atomicfile.Write(string(f.out), rep.Pinned.TOML); err != nil {
			return badInputf("redlocksim assess: %v", err)
		}
	}
	rep.Write(stdout, string(f.out))
	if ctx.Err() != nil {
		return &interruptedError{sig: caughtSignal(ctx), msg: fmt.Errorf("assess %s interrupted; the report above is what it had", sc.Name)}
	}
	if bad := rep.Untrustworthy(); len(bad) > 0 {
		return finding(fmt.Errorf("redlocksim assess %s: no trustworthy interval for %s", sc.Name, strings.Join(bad, "; ")))
	}
	return nil
}
