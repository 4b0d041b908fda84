package compare

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/differ"
	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// RealRun makes one real run of cfg with the given seed; a process
// group it starts dies when ctx is cancelled (the command's signal
// context) or the run ends.
type RealRun func(ctx context.Context, cfg model.Config, seed uint64) (*harness.Result, error)

// One runs sc runs times in each mode: the same scenario, --set
// overrides and all, in the simulator (seeds 1..runs) and for real by
// run (seeds from the scenario's), as compare sweep runs a point.
// progress, if not nil, is called after each real run. An interrupt kills
// the real run under way and ends it.
func One(ctx context.Context, sc *scenarios.Scenario, runs int, run RealRun, progress func()) (Row, error) {
	row := Row{Scenario: sc.Name, ExpectMutex: sc.Expect.Mutex, ExpectResource: sc.Expect.Resource,
		DataFiles: runjson.DataFiles(sc.DataFiles), data: sc.DataFiles}
	sim, err := simSide(sc, runs)
	if err != nil {
		return row, err
	}
	real, err := realSide(ctx, sc, runs, run, progress)
	if err != nil {
		return row, err
	}
	row.Scale, row.LockClient = real.scale, real.clients
	row.Sim, row.Real = sim.side(runs, sc.Config.Duration), real.side(runs, sc.Config.Duration)
	var why []string
	for _, p := range []struct {
		name      string
		sim, real Rate
	}{{"mutex", row.Sim.Mutex, row.Real.Mutex}, {"resource", row.Sim.Resource, row.Real.Resource}} {
		part, parted := differ.Judge(p.name, p.sim.judged(), p.real.judged())
		switch {
		case !parted:
		case part.Verdicts:
			why = append(why, fmt.Sprintf("%s: sim %s, real %s", p.name, p.sim.verdict(), p.real.verdict()))
		default:
			why = append(why, fmt.Sprintf("%s: the intervals do not overlap", p.name))
		}
	}
	if len(why) > 0 && real.heldBytes {
		why = append(why, "the real partitions held bytes and delivered them at the heal, as TCP does, where the scenario's partition_mode = \"drop\" drops them (partition_mode = \"hold\" models TCP)")
	}
	row.Agree, row.Why = len(why) == 0, strings.Join(why, "; ")
	row.FloorS, _ = MeanOf(real.floors)
	judgeAvailability(&row, real.notes)
	return row, nil
}

// tally is what one mode's runs of a scenario add up to.
type tally struct {
	mutex, resource  int // runs that violated each
	events           eventCounts
	unavail, longest []float64 // each run's, in scenario seconds
	floors           []float64 // real: each run's availability floor
	notes            []string  // real: the runs' notes, once each
	heldBytes        bool      // real: a run's partitions held bytes the scenario drops
	scale            float64
	clients          string
}

func (t *tally) add(rep *check.Report, scale float64) {
	m, r := rep.Safe()
	t.mutex += b2i(!m)
	t.resource += b2i(!r)
	t.events.add(rep)
	t.unavail = append(t.unavail, rep.Unavailable.Seconds()*scale)
	t.longest = append(t.longest, rep.LongestOutage.Seconds()*scale)
}

// side is the tally as a Row's side, for runs runs of length d.
func (t *tally) side(runs int, d time.Duration) Side {
	s := Side{Mutex: NewRate(t.mutex, runs), Resource: NewRate(t.resource, runs)}
	t.events.rates(&s, runs, d)
	s.UnavailableS, s.UnavailableCI = MeanOf(t.unavail)
	s.LongestOutageS, s.LongestCI = MeanOf(t.longest)
	return s
}

// simSide runs sc in the simulator on seeds 1..runs.
func simSide(sc *scenarios.Scenario, runs int) (*tally, error) {
	t := &tally{}
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		res, err := sc.Plan.RunFastWithin(seed, 0)
		if err != nil {
			return nil, err
		}
		t.add(&res.Report, 1)
	}
	return t, nil
}

// realSide runs sc for real runs times, one run at a time.
func realSide(ctx context.Context, sc *scenarios.Scenario, runs int, run RealRun, progress func()) (*tally, error) {
	t := &tally{}
	for i := range runs {
		res, err := run(ctx, sc.Config, sc.Seed+uint64(i))
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		if err != nil {
			return nil, err
		}
		t.heldBytes = t.heldBytes || slices.Contains(res.Notes, harness.DropPartitionNote)
		for _, n := range res.Notes {
			if !slices.Contains(t.notes, n) {
				t.notes = append(t.notes, n)
			}
		}
		t.add(&res.Report, res.Scale)
		t.floors = append(t.floors, AvailabilityFloor(res.Scale, res.Floor, float64(res.Report.AcquireAttempts), RoundsPerAttempt(&sc.Config)))
		t.scale, t.clients = res.Scale, res.Clients
		if progress != nil {
			progress()
		}
	}
	return t, nil
}

// judgeAvailability sets row's availability verdict from its sides: the
// two modes part when, for the mean unavailability or the mean longest
// outage, their intervals do not overlap and the means differ by more
// than the row's floor. A parting row gives the real runs' notes too: what
// they do differently from the model.
func judgeAvailability(row *Row, notes []string) {
	var why []string
	for _, p := range []struct {
		name      string
		sim, real float64
		si, ri    Interval
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

func WriteTable(w io.Writer, rows []Row) {
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
		for _, f := range r.data {
			fmt.Fprintf(w, "%s data: %s\n", r.Scenario, f)
		}
	}
}

func WriteCSV(w io.Writer, rows []Row) {
	cw := csv.NewWriter(w)
	_ = cw.Write(slices.Concat([]string{"scenario", "expect_mutex", "expect_resource", "runs",
		"sim_mutex_violations", "sim_mutex_ci_low", "sim_mutex_ci_high", "real_mutex_violations", "real_mutex_ci_low", "real_mutex_ci_high",
		"sim_resource_violations", "sim_resource_ci_low", "sim_resource_ci_high", "real_resource_violations", "real_resource_ci_low", "real_resource_ci_high",
		"sim_unavailable_s", "sim_unavailable_ci_low", "sim_unavailable_ci_high", "real_unavailable_s", "real_unavailable_ci_low", "real_unavailable_ci_high",
		"sim_longest_outage_s", "sim_longest_outage_ci_low", "sim_longest_outage_ci_high", "real_longest_outage_s", "real_longest_outage_ci_low", "real_longest_outage_ci_high",
		"scale", "lock_client", "verdict", "why", "availability", "availability_floor_s", "availability_why"},
		rateColumns()))
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	for _, r := range rows {
		_ = cw.Write(slices.Concat([]string{r.Scenario, r.ExpectMutex, r.ExpectResource, strconv.Itoa(r.Sim.Mutex.N),
			strconv.Itoa(r.Sim.Mutex.K), f(r.Sim.Mutex.Lo), f(r.Sim.Mutex.Hi), strconv.Itoa(r.Real.Mutex.K), f(r.Real.Mutex.Lo), f(r.Real.Mutex.Hi),
			strconv.Itoa(r.Sim.Resource.K), f(r.Sim.Resource.Lo), f(r.Sim.Resource.Hi), strconv.Itoa(r.Real.Resource.K), f(r.Real.Resource.Lo), f(r.Real.Resource.Hi),
			f(r.Sim.UnavailableS), f(r.Sim.UnavailableCI.Lo), f(r.Sim.UnavailableCI.Hi), f(r.Real.UnavailableS), f(r.Real.UnavailableCI.Lo), f(r.Real.UnavailableCI.Hi),
			f(r.Sim.LongestOutageS), f(r.Sim.LongestCI.Lo), f(r.Sim.LongestCI.Hi), f(r.Real.LongestOutageS), f(r.Real.LongestCI.Lo), f(r.Real.LongestCI.Hi),
			f(r.Scale), r.LockClient, agreeWord(r.Agree), r.Why, r.Availability, f(r.FloorS), r.AvailabilityWhy},
			rateCells(r)))
	}
	cw.Flush()
}

// rateColumns are the last columns of compare's CSV, after every
// older one: for each side, property and exposure, the violations per
// acquisition or per hour of scenario time and Garwood's 95% interval:
// sim_mutex_per_acquisition, sim_mutex_per_acquisition_ci_low, ...
func rateColumns() []string {
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

// rateCells are r's cells of rateColumns, in their order.
func rateCells(r Row) []string {
	var cells []string
	for _, s := range []Side{r.Sim, r.Real} {
		for _, rates := range [][2]results.Rate{{s.PerAcquisition.Mutex, s.PerHour.Mutex}, {s.PerAcquisition.Resource, s.PerHour.Resource}} {
			cells = append(cells, rates[0].Cells()...)
			cells = append(cells, rates[1].Cells()...)
		}
	}
	return cells
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
