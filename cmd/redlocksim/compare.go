package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/differ"
	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// rate is k of n runs with its 95% Wilson interval.
type rate struct {
	K  int     `json:"violating_runs"`
	N  int     `json:"runs"`
	Lo float64 `json:"ci_low"`
	Hi float64 `json:"ci_high"`
}

func newRate(k, n int) rate {
	lo, hi := results.Wilson(k, n)
	return rate{K: k, N: n, Lo: lo, Hi: hi}
}

func (r rate) String() string { return fmt.Sprintf("%d/%d [%.2f,%.2f]", r.K, r.N, r.Lo, r.Hi) }

// verdict is the verdict most runs gave (differ.Side.Violated).
func (r rate) verdict() string { return verdictWord(!r.side().Violated()) }

// side is r as the agreement rule takes it.
func (r rate) side() differ.Side { return differ.Side{K: r.K, N: r.N} }

// side is one mode's numbers for a scenario.
type side struct {
	Mutex          rate     `json:"mutex"`
	Resource       rate     `json:"resource"`
	UnavailableS   float64  `json:"unavailable_s"`    // mean, in scenario seconds (real: wall seconds × scale)
	UnavailableCI  interval `json:"unavailable_ci_s"` // its 95% Student t interval across the runs
	LongestOutageS float64  `json:"longest_outage_s"` // mean of each run's longest outage, scenario seconds
	LongestCI      interval `json:"longest_outage_ci_s"`
	// PerAcquisition and PerHour are the violations over all the runs'
	// acquisitions and over their hours of scenario time (runs × the
	// scenario's duration), with Garwood's exact 95% intervals.
	PerAcquisition eventRates `json:"per_acquisition"`
	PerHour        eventRates `json:"per_hour"`
}

// eventRates are a side's mutex violations (overlapping pairs of holds)
// and resource violations (lost updates plus stale writes accepted) over
// one exposure.
type eventRates struct {
	Mutex    results.Rate `json:"mutex"`
	Resource results.Rate `json:"resource"`
}

// eventCounts adds up what a side's eventRates need, run by run.
type eventCounts struct{ mutex, resource, acquisitions int64 }

func (e *eventCounts) add(r *check.Report) {
	e.mutex += int64(r.MutexViolations)
	e.resource += int64(r.LostUpdates + r.StaleWritesAccepted)
	e.acquisitions += int64(r.AcquireSuccesses)
}

// rates sets s's PerAcquisition and PerHour from runs runs of length d
// (scenario time).
func (e eventCounts) rates(s *side, runs int, d time.Duration) {
	acq, hours := float64(e.acquisitions), float64(runs)*d.Hours()
	s.PerAcquisition = eventRates{Mutex: results.NewRate(e.mutex, acq), Resource: results.NewRate(e.resource, acq)}
	s.PerHour = eventRates{Mutex: results.NewRate(e.mutex, hours), Resource: results.NewRate(e.resource, hours)}
}

// interval is a mean's 95% Student t interval across runs
// (results.MeanInterval); with one run it is the run's value.
type interval struct {
	Lo float64 `json:"low"`
	Hi float64 `json:"high"`
}

func (i interval) String() string { return fmt.Sprintf("[%.1f,%.1f]", i.Lo, i.Hi) }

// meanOf is the mean of xs and its interval.
func meanOf(xs []float64) (float64, interval) {
	m, lo, hi, _ := results.MeanInterval(xs)
	return m, interval{Lo: lo, Hi: hi}
}

// timerSlack is how late the client's own timer (its start, a retry
// delay) may come on a busy 2-core machine, as the scale checks assume
// (see harness.CheckScale): a few milliseconds of wall time per
// acquisition attempt.
const timerSlack = 2 * time.Millisecond

// hopWake is how late a proxy hop may deliver: the proxy holds each
// message for its scenario latency and sleeps the last of it with
// nanosleep (a Go timer, waiting in the netpoller's whole milliseconds,
// came up to 1 ms late: 0.9 ms a hop measured on redlock-py-connected-
// quorum before the proxy changed); the proxy's own test bounds the
// wake-ups at half a millisecond a round trip, so a quarter a hop.
const hopWake = 250 * time.Microsecond

// availabilityFloor is the difference in mean unavailability, in scenario
// seconds, below which the two modes are not told apart. Each acquisition
// attempt of a real run pays, beyond the model's latencies, its round
// trips through the proxy, each two hops of the measured one-way loopback
// floor and a hop's wake-up, and the lateness of the client's own
// timer, all in wall time, which the scale multiplies back into scenario
// time. rounds is how many round trips an attempt makes one after
// another: the number of nodes for a lock that asks them one by one, 1
// for one that asks them all at once.
func availabilityFloor(scale float64, floor time.Duration, attempts, rounds float64) float64 {
	perAttempt := max(1, rounds)*2*(floor+hopWake).Seconds() + timerSlack.Seconds()
	return scale * max(1, attempts) * perAttempt
}

// roundsPerAttempt is availabilityFloor's rounds for cfg: the nodes, when
// the lock asks them one by one (lock.sequential), else 1.
func roundsPerAttempt(cfg *model.Config) float64 {
	if cfg.Lock.Sequential {
		return float64(max(1, len(cfg.Nodes)))
	}
	return 1
}

// compareRow is one scenario compared.
type compareRow struct {
	Scenario       string  `json:"scenario"`
	ExpectMutex    string  `json:"expect_mutex,omitempty"`
	ExpectResource string  `json:"expect_resource,omitempty"`
	Sim            side    `json:"sim"`
	Real           side    `json:"real"`
	Scale          float64 `json:"scale"`
	LockClient     string  `json:"lock_client"`
	Agree          bool    `json:"agree"`
	Why            string  `json:"why,omitempty"` // what differs, when they disagree
	// Availability is "agree", or "DISAGREE" when the mean unavailability
	// or the mean longest outage of the two modes have disjoint intervals
	// and differ by more than FloorS; AvailabilityWhy says which and why.
	Availability    string  `json:"availability"`
	FloorS          float64 `json:"availability_floor_s"`
	AvailabilityWhy string  `json:"availability_why,omitempty"`
}

// compareCommands are compare's subcommands: the three ways it sets the
// simulator beside real runs.
var compareCommands = []*command{
	{name: "runs", summary: "run scenarios in the simulator and for real, side by side, one row each", signals: true, run: cmdCompareRuns},
	{name: "sweep", summary: "run points of a sweep for real and write them as the sweep's results CSV", signals: true, run: cmdCompareSweep},
	{name: "explore", summary: "search fault schedules for where the simulator and real runs part, and shrink each", signals: true, run: cmdCompareExplore},
}

const compareUsage = `usage: redlocksim compare runs NAME|FILE|DIR... [--set KEY=VALUE]... [flags]
       redlocksim compare runs --all [--set KEY=VALUE]... [flags]
       redlocksim compare sweep NAME|FILE [--where KEY=V1,V2]... [--runs N] --out FILE.csv
       redlocksim compare explore BASE [--runs R] [--repeat K] [--faults KINDS] [--seed S] [--budget N] [--out DIR] [--json] [--set KEY=VALUE]...

Sets the simulator beside real runs (see 'redlocksim help real'), three
ways:

`

// compareOverview is compare's help: its subcommands, each with its
// summary. The flags are each subcommand's.
func compareOverview(w io.Writer) {
	fmt.Fprint(w, compareUsage)
	for _, c := range compareCommands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
'redlocksim help compare SUBCOMMAND' prints a subcommand's flags.
'compare NAME...' and 'compare --all' are 'compare runs'; the older
spellings 'compare --sweep SPEC' and 'compare --explore BASE' still work
and say what they are now.
`)
}

// cmdCompare runs the subcommand args name. Without one it takes the
// older spellings: scenarios (or --all) as compare runs, --sweep and
// --explore as their subcommands, with a note naming the new spelling.
func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		if c := lookup(compareCommands, args[0]); c != nil {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	f, rest, err := parseOldCompareFlags(args, stderr)
	switch {
	case err != nil:
		return err
	case f.sw.spec != "":
		fmt.Fprintf(stderr, "redlocksim compare: --sweep is 'redlocksim compare sweep %s' now\n", f.sw.spec)
		if len(f.runs.sets) > 0 {
			return badInputf("redlocksim compare: --set does not apply to --sweep: a sweep's points are set by its spec (its base and axes)")
		}
		f.sw.runs, f.sw.out = f.runs.runs, f.outGiven()
		return f.sw.run(ctx, rest, stdout, stderr)
	case f.dx.base != "":
		fmt.Fprintf(stderr, "redlocksim compare: --explore is 'redlocksim compare explore %s' now\n", f.dx.base)
		if len(rest) > 0 || f.runs.csv || f.runs.all {
			return badInputf("redlocksim compare --explore: give the base with --explore alone: no scenario names, --all or --csv beside it")
		}
		x := &compareExploreFlags{differFlags: f.dx, runs: f.runs.runs, json: f.runs.json, sets: f.runs.sets}
		if !f.set("runs") {
			x.runs = 30
		}
		return compareExplore(ctx, x, recordedCommand("compare", args), stdout, stderr)
	}
	return f.runs.run(ctx, rest, stdout, stderr)
}

// oldCompareFlags are every flag compare took before its subcommands:
// compare runs's, with --sweep's and --explore's beside them.
type oldCompareFlags struct {
	fs   *flag.FlagSet
	runs compareRunsFlags
	dx   differFlags
	sw   sweepCompareFlags
}

// set reports whether the flag name was given.
func (f *oldCompareFlags) set(name string) bool {
	given := false
	f.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == name })
	return given
}

// outGiven is --out as given, or "" when it was not: --sweep's file
// (--out's default is --explore's directory).
func (f *oldCompareFlags) outGiven() string {
	if !f.set("out") {
		return ""
	}
	return string(f.dx.out)
}

func parseOldCompareFlags(args []string, stderr io.Writer) (*oldCompareFlags, []string, error) {
	fs := newFlagSet("compare", "", stderr)
	fs.Usage = func() { compareOverview(stderr) }
	f := &oldCompareFlags{fs: fs}
	f.runs.declare(fs)
	f.dx.declare(fs)
	fs.StringVar(&f.dx.base, "explore", "", "search for schedules where the simulator and real runs of `BASE` part (now: compare explore BASE)")
	f.sw.declare(fs)
	fs.StringVar(&f.sw.spec, "sweep", "", "run points of the sweep `NAME|FILE` for real (now: compare sweep NAME|FILE)")
	rest, err := parseArgs(fs, args)
	return f, rest, err
}

// compareRunsFlags are compare runs's options.
type compareRunsFlags struct {
	runs     int
	json     jsonFlag
	csv, all bool
	sets     setFlags
}

func (f *compareRunsFlags) declare(fs *flag.FlagSet) {
	fs.IntVar(&f.runs, "runs", 5, "runs per scenario in each mode")
	f.json.register(fs, "print a JSON array of rows")
	fs.BoolVar(&f.csv, "csv", false, "print CSV")
	fs.BoolVar(&f.all, "all", false, "every library scenario that can run for real")
	f.sets.register(fs)
}

func cmdCompareRuns(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare runs", `usage: redlocksim compare runs NAME|FILE|DIR... [--set KEY=VALUE]... [flags]
       redlocksim compare runs --all [--set KEY=VALUE]... [flags]

Runs each scenario --runs times in the simulator (seeds 1..N) and --runs
times for real (see 'redlocksim help real'), and prints one row per
scenario: how many runs violated mutual exclusion and the resource, with
95% Wilson intervals, the mean unavailability (real runs' times multiplied
back by their scale) and a verdict: agree when both modes give the same
majority verdict for both properties and their intervals overlap,
DISAGREE otherwise. --all takes every library scenario a real run can take
(the others are listed on stderr with the reason). A DIR stands for the
scenario files (*.toml) in it, in name order, such as explore's --out
directory; those a real run cannot take are skipped the same way, while a
scenario named on its own that cannot run for real is an error.
--json (per_acquisition, per_hour) and --csv (the last columns,
sim_mutex_per_acquisition and its _ci_low, _ci_high, ...) also give each
mode's violations per acquisition and per hour of scenario time (runs ×
duration), with exact 95% Poisson (Garwood) intervals.
--set key=value (repeatable) overrides a key of every scenario compared,
as 'redlocksim run --set' does, before either mode runs it: both the
simulator and the real runs see the changed scenario, so a variant needs
no file of its own (compare runs gc-pause --set lock.ttl=20s). A key a
scenario does not take is an error (exit 2).

flags:
`, stderr)
	f := &compareRunsFlags{}
	f.declare(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	return f.run(ctx, rest, stdout, stderr)
}

// run is compare runs on the scenarios rest names.
func (f *compareRunsFlags) run(ctx context.Context, rest []string, stdout, stderr io.Writer) error {
	switch {
	case f.runs < 1:
		return badInputf("redlocksim compare: --runs must be at least 1, got %d", f.runs)
	case bool(f.json) && f.csv:
		return badInputf("redlocksim compare: --json or --csv, not both")
	case f.all == (len(rest) > 0):
		return badInputf("redlocksim compare: name scenarios or give --all (not both)")
	}
	scs, err := compareScenarios(rest, f.all, f.sets, stderr)
	if err != nil {
		return err
	}
	var bar interface{ Add(int) error }
	if isTerminal(stderr) {
		bar = newBar(stderr, len(scs)*f.runs, "compare")
	}
	var rows []compareRow
	for _, sc := range scs {
		row, err := compareOne(ctx, sc, f.runs, bar)
		if err != nil {
			var missing *proc.MissingError
			switch {
			case ctx.Err() != nil:
				return interrupted(ctx)
			case errors.As(err, &missing):
				return environment(fmt.Errorf("redlocksim compare: %w", err))
			}
			return finding(fmt.Errorf("redlocksim compare: %s: %v", sc.Name, err))
		}
		rows = append(rows, row)
	}
	if bar != nil {
		fmt.Fprintln(stderr)
	}
	switch {
	case bool(f.json):
		if err := printJSON(stdout, rows); err != nil {
			return badInput(nil)
		}
	case f.csv:
		writeCompareCSV(stdout, rows)
	default:
		writeCompareTable(stdout, rows)
	}
	return nil
}

// compareScenarios loads the scenarios to compare, each with the --set
// overrides sets as run applies them: those a real run refuses are
// skipped (with the reason on stderr) when they came from --all or a
// directory, and end the command when named on their own.
func compareScenarios(args []string, all bool, sets []string, stderr io.Writer) ([]*scenarios.Scenario, error) {
	if _, err := scenarios.ParseOverrides(sets); err != nil {
		return nil, badInputf("redlocksim compare: %v", err)
	}
	targets, err := compareTargets(args, all)
	if err != nil {
		return nil, badInputf("redlocksim compare: %v", err)
	}
	var scs []*scenarios.Scenario
	for _, t := range targets {
		sc, err := loadScenario(t.arg, sets)
		switch {
		case err != nil && len(sets) > 0 && len(targets) > 1:
			// A --set names no scenario: say which one it does not fit.
			return nil, badInputf("redlocksim compare: %s: %v", t.arg, err)
		case err != nil:
			return nil, badInputf("redlocksim compare: %v", err)
		}
		if refused, _ := harness.Refusals(&sc.Config); len(refused) > 0 {
			if !t.skippable {
				return nil, badInputf("redlocksim compare: %s: %v", t.arg, refused[0])
			}
			fmt.Fprintf(stderr, "skipped %s: %v\n", t.arg, refused[0])
			continue
		}
		scs = append(scs, sc)
	}
	if len(scs) == 0 {
		return nil, badInputf("redlocksim compare: nothing to compare: a real run can take none of these scenarios (the reasons are above)")
	}
	return scs, nil
}

// compareTarget is one scenario to compare: a library name or a file, and
// whether a refusal skips it (it came from --all or a directory) rather
// than ending the command.
type compareTarget struct {
	arg       string
	skippable bool
}

// compareTargets expands the command's arguments: --all is every library
// scenario, a directory is its *.toml files in name order, anything else is
// a name or a file for loadScenario.
func compareTargets(args []string, all bool) ([]compareTarget, error) {
	if all {
		var out []compareTarget
		for _, n := range scenarios.LibraryNames() {
			out = append(out, compareTarget{arg: n, skippable: true})
		}
		return out, nil
	}
	var out []compareTarget
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, compareTarget{arg: a})
			continue
		}
		files, err := filepath.Glob(filepath.Join(a, "*.toml"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: a directory with no scenario files (*.toml) in it", a)
		}
		slices.Sort(files)
		for _, f := range files {
			out = append(out, compareTarget{arg: f, skippable: true})
		}
	}
	return out, nil
}

// compareOne runs sc runs times in each mode: the same scenario, --set
// overrides and all, in the simulator and for real (runRealPoint, as
// compare --sweep runs a point). An interrupt kills the real run under way
// (the signal context closes its group) and ends it.
func compareOne(ctx context.Context, sc *scenarios.Scenario, runs int, bar interface{ Add(int) error }) (compareRow, error) {
	row := compareRow{Scenario: sc.Name, ExpectMutex: sc.Expect.Mutex, ExpectResource: sc.Expect.Resource}
	var sm, sr, rm, rr int
	var simEvents, realEvents eventCounts
	var simUnavail, simLongest, realUnavail, realLongest []float64
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		res, err := sc.Plan.RunFastWithin(seed, 0)
		if err != nil {
			return row, err
		}
		m, r := res.Report.Safe()
		sm += b2i(!m)
		sr += b2i(!r)
		simEvents.add(&res.Report)
		simUnavail = append(simUnavail, res.Report.Unavailable.Seconds())
		simLongest = append(simLongest, res.Report.LongestOutage.Seconds())
	}
	heldBytes := false // a real run noted that its partitions held bytes the scenario drops
	var notes []string // the real runs' notes, once each
	var floors []float64
	for i := range runs {
		g := proc.NewGroup()
		closeGroup := closeOnDone(ctx, g)
		res, err := runRealPoint(ctx, sc.Config, sc.Seed+uint64(i), g)
		_ = closeGroup()
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		if err != nil {
			return row, err
		}
		heldBytes = heldBytes || slices.Contains(res.Notes, harness.DropPartitionNote)
		for _, n := range res.Notes {
			if !slices.Contains(notes, n) {
				notes = append(notes, n)
			}
		}
		m, r := res.Report.Safe()
		rm += b2i(!m)
		rr += b2i(!r)
		realEvents.add(&res.Report)
		realUnavail = append(realUnavail, res.Report.Unavailable.Seconds()*res.Scale)
		realLongest = append(realLongest, res.Report.LongestOutage.Seconds()*res.Scale)
		floors = append(floors, availabilityFloor(res.Scale, res.Floor, float64(res.Report.AcquireAttempts), roundsPerAttempt(&sc.Config)))
		row.Scale, row.LockClient = res.Scale, res.Clients
		if bar != nil {
			_ = bar.Add(1)
		}
	}
	row.Sim.Mutex, row.Sim.Resource = newRate(sm, runs), newRate(sr, runs)
	row.Real.Mutex, row.Real.Resource = newRate(rm, runs), newRate(rr, runs)
	simEvents.rates(&row.Sim, runs, sc.Config.Duration)
	realEvents.rates(&row.Real, runs, sc.Config.Duration)
	var why []string
	for _, p := range []struct {
		name      string
		sim, real rate
	}{{"mutex", row.Sim.Mutex, row.Real.Mutex}, {"resource", row.Sim.Resource, row.Real.Resource}} {
		part, parted := differ.Judge(p.name, p.sim.side(), p.real.side())
		switch {
		case !parted:
		case part.Verdicts:
			why = append(why, fmt.Sprintf("%s: sim %s, real %s", p.name, p.sim.verdict(), p.real.verdict()))
		default:
			why = append(why, fmt.Sprintf("%s: the intervals do not overlap", p.name))
		}
	}
	if len(why) > 0 && heldBytes {
		why = append(why, "the real partitions held bytes and delivered them at the heal, as TCP does, where the scenario's partition_mode = \"drop\" drops them (partition_mode = \"hold\" models TCP)")
	}
	row.Agree, row.Why = len(why) == 0, strings.Join(why, "; ")
	row.Sim.UnavailableS, row.Sim.UnavailableCI = meanOf(simUnavail)
	row.Sim.LongestOutageS, row.Sim.LongestCI = meanOf(simLongest)
	row.Real.UnavailableS, row.Real.UnavailableCI = meanOf(realUnavail)
	row.Real.LongestOutageS, row.Real.LongestCI = meanOf(realLongest)
	row.FloorS, _ = meanOf(floors)
	judgeAvailability(&row, notes)
	return row, nil
}

// judgeAvailability sets row's availability verdict from its sides: the
// two modes part when, for the mean unavailability or the mean longest
// outage, their intervals do not overlap and the means differ by more
// than the row's floor. A parting row gives the real runs' notes too: what
// they do differently from the model.
func judgeAvailability(row *compareRow, notes []string) {
	var why []string
	for _, p := range []struct {
		name      string
		sim, real float64
		si, ri    interval
	}{
		{"unavailable", row.Sim.UnavailableS, row.Real.UnavailableS, row.Sim.UnavailableCI, row.Real.UnavailableCI},
		{"longest outage", row.Sim.LongestOutageS, row.Real.LongestOutageS, row.Sim.LongestCI, row.Real.LongestCI},
	} {
		if p.si.Lo <= p.ri.Hi && p.ri.Lo <= p.si.Hi {
			continue
		}
		if d := p.real - p.sim; math.Abs(d) > row.FloorS {
			why = append(why, fmt.Sprintf("%s: sim %.1fs %v, real %.1fs %v, %+.1fs beyond the %.2fs floor", p.name, p.sim, p.si, p.real, p.ri, d, row.FloorS))
		}
	}
	if len(why) > 0 {
		why = append(why, notes...)
	}
	row.Availability, row.AvailabilityWhy = agreeWord(len(why) == 0), strings.Join(why, "; ")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func agreeWord(a bool) string {
	if a {
		return "agree"
	}
	return "DISAGREE"
}

func writeCompareTable(w io.Writer, rows []compareRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\texpect (mutex/resource)\tsim mutex\treal mutex\tsim resource\treal resource\tsim unavail\treal unavail\tscale\tverdict\tavailability")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s/%s\t%v\t%v\t%v\t%v\t%.1fs %v\t%.1fs %v\t%.3g\t%s\t%s\n", r.Scenario, orDash(r.ExpectMutex), orDash(r.ExpectResource),
			r.Sim.Mutex, r.Real.Mutex, r.Sim.Resource, r.Real.Resource, r.Sim.UnavailableS, r.Sim.UnavailableCI, r.Real.UnavailableS, r.Real.UnavailableCI,
			r.Scale, agreeWord(r.Agree), r.Availability)
	}
	tw.Flush()
	for _, r := range rows {
		if !r.Agree {
			fmt.Fprintf(w, "%s: %s\n", r.Scenario, r.Why)
		}
		if r.AvailabilityWhy != "" {
			fmt.Fprintf(w, "%s (availability): %s\n", r.Scenario, r.AvailabilityWhy)
		}
	}
}

func writeCompareCSV(w io.Writer, rows []compareRow) {
	cw := csv.NewWriter(w)
	_ = cw.Write(slices.Concat([]string{"scenario", "expect_mutex", "expect_resource", "runs",
		"sim_mutex_violations", "sim_mutex_ci_low", "sim_mutex_ci_high", "real_mutex_violations", "real_mutex_ci_low", "real_mutex_ci_high",
		"sim_resource_violations", "sim_resource_ci_low", "sim_resource_ci_high", "real_resource_violations", "real_resource_ci_low", "real_resource_ci_high",
		"sim_unavailable_s", "sim_unavailable_ci_low", "sim_unavailable_ci_high", "real_unavailable_s", "real_unavailable_ci_low", "real_unavailable_ci_high",
		"sim_longest_outage_s", "sim_longest_outage_ci_low", "sim_longest_outage_ci_high", "real_longest_outage_s", "real_longest_outage_ci_low", "real_longest_outage_ci_high",
		"scale", "lock_client", "verdict", "why", "availability", "availability_floor_s", "availability_why"},
		compareRateColumns()))
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	for _, r := range rows {
		_ = cw.Write(slices.Concat([]string{r.Scenario, r.ExpectMutex, r.ExpectResource, strconv.Itoa(r.Sim.Mutex.N),
			strconv.Itoa(r.Sim.Mutex.K), f(r.Sim.Mutex.Lo), f(r.Sim.Mutex.Hi), strconv.Itoa(r.Real.Mutex.K), f(r.Real.Mutex.Lo), f(r.Real.Mutex.Hi),
			strconv.Itoa(r.Sim.Resource.K), f(r.Sim.Resource.Lo), f(r.Sim.Resource.Hi), strconv.Itoa(r.Real.Resource.K), f(r.Real.Resource.Lo), f(r.Real.Resource.Hi),
			f(r.Sim.UnavailableS), f(r.Sim.UnavailableCI.Lo), f(r.Sim.UnavailableCI.Hi), f(r.Real.UnavailableS), f(r.Real.UnavailableCI.Lo), f(r.Real.UnavailableCI.Hi),
			f(r.Sim.LongestOutageS), f(r.Sim.LongestCI.Lo), f(r.Sim.LongestCI.Hi), f(r.Real.LongestOutageS), f(r.Real.LongestCI.Lo), f(r.Real.LongestCI.Hi),
			f(r.Scale), r.LockClient, agreeWord(r.Agree), r.Why, r.Availability, f(r.FloorS), r.AvailabilityWhy},
			compareRateCells(r)))
	}
	cw.Flush()
}

// compareRateColumns are the last columns of compare's CSV, after every
// older one: for each side, property and exposure, the violations per
// acquisition or per hour of scenario time and Garwood's 95% interval:
// sim_mutex_per_acquisition, sim_mutex_per_acquisition_ci_low, ...
func compareRateColumns() []string {
	var cols []string
	for _, side := range []string{"sim", "real"} {
		for _, prop := range []string{"mutex", "resource"} {
			for _, per := range []string{"per_acquisition", "per_hour"} {
				c := side + "_" + prop + "_" + per
				cols = append(cols, c, c+"_ci_low", c+"_ci_high")
			}
		}
	}
	return cols
}

// compareRateCells are r's cells of compareRateColumns, in their order.
func compareRateCells(r compareRow) []string {
	var cells []string
	for _, s := range []side{r.Sim, r.Real} {
		for _, rates := range [][2]results.Rate{{s.PerAcquisition.Mutex, s.PerHour.Mutex}, {s.PerAcquisition.Resource, s.PerHour.Resource}} {
			cells = append(cells, rates[0].Cells()...)
			cells = append(cells, rates[1].Cells()...)
		}
	}
	return cells
}
