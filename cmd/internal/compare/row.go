package compare

import (
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/differ"
	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// Rate is k of n runs with its 95% Wilson interval.
type Rate struct {
	K  int     `json:"violating_runs"`
	N  int     `json:"runs"`
	Lo float64 `json:"ci_low"`
	Hi float64 `json:"ci_high"`
}

func NewRate(k, n int) Rate {
	lo, hi := results.Wilson(k, n)
	return Rate{K: k, N: n, Lo: lo, Hi: hi}
}

func (r Rate) String() string { return fmt.Sprintf("%d/%d [%.2f,%.2f]", r.K, r.N, r.Lo, r.Hi) }

// verdict is the verdict most runs gave (differ.Side.Violated).
func (r Rate) verdict() string { return scenarios.Verdict(!r.judged().Violated()) }

// judged is r as the agreement rule takes it.
func (r Rate) judged() differ.Side { return differ.Side{K: r.K, N: r.N} }

// Side is one mode's numbers for a scenario.
type Side struct {
	Mutex          Rate     `json:"mutex"`
	Resource       Rate     `json:"resource"`
	UnavailableS   float64  `json:"unavailable_s"`    // mean, in scenario seconds (real: wall seconds × scale)
	UnavailableCI  Interval `json:"unavailable_ci_s"` // its 95% Student t interval across the runs
	LongestOutageS float64  `json:"longest_outage_s"` // mean of each run's longest outage, scenario seconds
	LongestCI      Interval `json:"longest_outage_ci_s"`
	// PerAcquisition and PerHour are the violations over all the runs'
	// acquisitions and over their hours of scenario time (runs × the
	// scenario's duration), with Garwood's exact 95% intervals.
	PerAcquisition EventRates `json:"per_acquisition"`
	PerHour        EventRates `json:"per_hour"`
}

// EventRates are a side's mutex violations (overlapping pairs of holds)
// and resource violations (lost updates plus stale writes accepted) over
// one exposure.
type EventRates struct {
	Mutex    results.Rate `json:"mutex"`
	Resource results.Rate `json:"resource"`
}

// eventCounts adds up what a side's EventRates need, run by run.
type eventCounts struct{ mutex, resource, acquisitions int64 }

func (e *eventCounts) add(r *check.Report) {
	e.mutex += int64(r.MutexViolations)
	e.resource += int64(r.LostUpdates + r.StaleWritesAccepted)
	e.acquisitions += int64(r.AcquireSuccesses)
}

// rates sets s's PerAcquisition and PerHour from runs runs of length d
// (scenario time).
func (e eventCounts) rates(s *Side, runs int, d time.Duration) {
	acq, hours := float64(e.acquisitions), float64(runs)*d.Hours()
	s.PerAcquisition = EventRates{Mutex: results.NewRate(e.mutex, acq), Resource: results.NewRate(e.resource, acq)}
	s.PerHour = EventRates{Mutex: results.NewRate(e.mutex, hours), Resource: results.NewRate(e.resource, hours)}
}

// interval is a mean's 95% Student t interval across runs
// (results.MeanInterval); with one run it is the run's value.
type Interval struct {
	Lo float64 `json:"low"`
	Hi float64 `json:"high"`
}

func (i Interval) String() string { return fmt.Sprintf("[%.1f,%.1f]", i.Lo, i.Hi) }

// MeanOf is the mean of xs and its interval.
func MeanOf(xs []float64) (float64, Interval) {
	m, lo, hi, _ := results.MeanInterval(xs)
	return m, Interval{Lo: lo, Hi: hi}
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

// AvailabilityFloor is the difference in mean unavailability, in scenario
// seconds, below which the two modes are not told apart. Each acquisition
// attempt of a real run pays, beyond the model's latencies, its round
// trips through the proxy, each two hops of the measured one-way loopback
// floor and a hop's wake-up, and the lateness of the client's own
// timer, all in wall time, which the scale multiplies back into scenario
// time. rounds is how many round trips an attempt makes one after
// another: the number of nodes for a lock that asks them one by one, 1
// for one that asks them all at once.
func AvailabilityFloor(scale float64, floor time.Duration, attempts, rounds float64) float64 {
	perAttempt := max(1, rounds)*2*(floor+hopWake).Seconds() + timerSlack.Seconds()
	return scale * max(1, attempts) * perAttempt
}

// RoundsPerAttempt is AvailabilityFloor's rounds for cfg: the nodes, when
// the lock asks them one by one (lock.sequential), else 1.
func RoundsPerAttempt(cfg *model.Config) float64 {
	if cfg.Lock.Sequential {
		return float64(max(1, len(cfg.Nodes)))
	}
	return 1
}

// Row is one scenario compared.
type Row struct {
	Scenario       string  `json:"scenario"`
	ExpectMutex    string  `json:"expect_mutex,omitempty"`
	ExpectResource string  `json:"expect_resource,omitempty"`
	Sim            Side    `json:"sim"`
	Real           Side    `json:"real"`
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
	// DataFiles are the measurement files the scenario read, with their
	// hashes (absent with none); data is the same for the table.
	DataFiles []runjson.DataFile `json:"data_files,omitempty"`
	data      []scenarios.DataFile
}
