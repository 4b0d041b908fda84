package harness

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/network"
)

// RefusedError says that a scenario asks for something a real run on this
// machine cannot do. Commands exit 2 on it.
type RefusedError struct {
	What   string // the fault kind or the setting, as the scenario spells it
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("cannot run for real: %s: %s", e.What, e.Reason)
}

// DropPartitionNote is the note on a real run of a scenario whose partitions
// drop messages: a real partition of a TCP connection holds the bytes and
// delivers them at the heal, which the model does only in hold mode.
const DropPartitionNote = "partitions hold bytes, as TCP does; the scenario's partition_mode is drop"

// Refusals lists every reason cfg cannot run for real (nil if it can),
// and notes on what the real run does differently but equivalently.
func Refusals(cfg *model.Config) (refused []*RefusedError, notes []string) {
	refuse := func(what, reason string) { refused = append(refused, &RefusedError{What: what, Reason: reason}) }
	for _, n := range cfg.Nodes {
		if n.Redis.MinReplicasToWrite > 0 {
			refuse("nodes."+n.Name+".min_replicas_to_write", "not passed to the real redis-server yet")
		}
	}
	clockRefused, clockNotes := clockRefusals(cfg)
	refused, notes = append(refused, clockRefused...), append(notes, clockNotes...)
	if sys, no := systemOf(cfg); no != nil {
		refused = append(refused, no)
	} else {
		refused = append(refused, sys.refusals(cfg)...)
		if n, ok := sys.(noter); ok {
			notes = append(notes, n.notes(cfg)...)
		}
	}
	// Renewal runs in the client process on the drivers that can extend
	// a hold (extender): redsync's Extend, the raw client's
	// compare-and-PEXPIRE script.
	if renews(cfg.Lock) && !extends(ChooseDriver(cfg.Lock)) {
		what := "lock.extend"
		if cfg.Lock.Renewal != client.NoRenewal {
			what = fmt.Sprintf("lock.renewal = %q", cfg.Lock.Renewal)
		}
		refuse(what, fmt.Sprintf("the %s client does not extend locks yet", ChooseDriver(cfg.Lock)))
	}
	// What the simulated client models beyond the real drivers: refused,
	// not silently run without.
	// fail-fast and the libraries' historic bugs run on redsync
	// (WithFailFast) and the raw client (rawDriver), not on the failover
	// client.
	if d := ChooseDriver(cfg.Lock); d != DriverRedsync && d != DriverRawRedlock && d != DriverRawSingle {
		if cfg.Lock.FailFast {
			refuse("lock.fail_fast", fmt.Sprintf("the %s client does not decide before every node has answered yet", d))
		}
		if cfg.Lock.DriftAdded || cfg.Lock.QuorumOfReached || cfg.Lock.ExpiryFromFirstTry {
			refuse("lock.preset (a library's historic bug)", fmt.Sprintf("the %s client does not reproduce the libraries' historic bugs", d))
		}
	}
	if cfg.Work.CriticalSectionDist.Kind != 0 || cfg.Work.ThinkDist.Kind != 0 {
		notes = append(notes, "critical sections and think times drawn from a distribution run at its mean")
	}
	if cfg.Network.Loss > 0 {
		refuse("network.loss", "TCP retransmits what the network drops, so loss on a TCP connection is only a delay; the proxy cannot drop bytes without breaking the stream")
	}
	for _, l := range cfg.Network.Links {
		if l.Loss != nil && *l.Loss > 0 {
			refuse(fmt.Sprintf("network.link %s→%s loss", l.From, l.To), "TCP retransmits what the network drops; a lossy TCP link is a slow one")
		}
	}
	if cfg.Network.PartitionMode == network.PartitionDrop && slices.ContainsFunc(cfg.Faults, func(f model.Fault) bool {
		return f.Kind == model.Partition || f.Kind == model.Cut
	}) {
		notes = append(notes, DropPartitionNote)
	}
	// Each fault as its kind's rule says (faultRules); a kind without a
	// rule is refused, never skipped.
	for _, f := range cfg.Faults {
		if f.Random() {
			// Playing the fault at its nominal at/for would be a different
			// experiment from the simulated one, silently.
			refuse(fmt.Sprintf("%v fault at %v with at_spread or for_spread", f.Kind, f.At), "the real harness plays faults at fixed times; pin the time and length (as estimate --out writes a run)")
			continue
		}
		rule, ok := faultRules[f.Kind]
		if !ok {
			refuse(f.Kind.String()+" fault", "the real harness has no rule for this fault kind (harness.faultRules)")
			continue
		}
		if rule.refuse == nil {
			continue
		}
		no, note := rule.refuse(cfg, f)
		if no != nil {
			refused = append(refused, no)
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	return refused, notes
}

// extends says whether the named driver can extend a hold.
func extends(driver string) bool {
	switch driver {
	case DriverRedsync, DriverRawRedlock, DriverRawSingle:
		return true
	}
	return false
}

func nodeConfig(cfg *model.Config, name string) model.NodeConfig {
	for _, n := range cfg.Nodes {
		if n.Name == name {
			return n
		}
	}
	return model.NodeConfig{}
}

// The smallest times a real run can resolve: Redis keeps TTLs in
// milliseconds and expires keys lazily on access, a Go timer on a busy
// two-core machine fires up to a few milliseconds late, and a request
// through the proxy takes a few hundred microseconds.
const (
	minTTL            = 250 * time.Millisecond
	minRequestTimeout = 5 * time.Millisecond
	minWorkTimeout    = 20 * time.Millisecond
	// A real Sentinel pings once a second and takes a second or two to
	// promote a replica whatever its down-after; below a second of
	// down-after, the promotion's own time would dominate the scenario's.
	minDownAfter = time.Second
	// TargetWall is what a library scenario's default scale aims at.
	TargetWall = 7 * time.Second
)

// MaxScale is the largest scale at which cfg's times stay resolvable.
func MaxScale(cfg *model.Config) float64 {
	s := math.Inf(1)
	limit := func(d, floor time.Duration) {
		if d > 0 {
			s = min(s, float64(d)/float64(floor))
		}
	}
	limit(cfg.Lock.TTL, minTTL)
	limit(cfg.Lock.RequestTimeout, minRequestTimeout)
	limit(cfg.Work.RequestTimeout, minWorkTimeout)
	for _, m := range systemOr(cfg.Lock.Algorithm).minimums(cfg) {
		limit(m.d, m.floor)
	}
	return max(1, s)
}

// DefaultScale keeps cfg's run near TargetWall of wall time, within
// MaxScale (every time stays resolvable) and MarginScale, and never
// stretches a scenario (scale ≥ 1). MarginScale is the rule for the
// margins an outcome rests on: each margin the harness can work out
// (margins), in scenario time and net of its requests' simulated latency,
// divided by the scale, must be at least RequestSlack for each request
// made one after another inside it, the wall time a real request costs
// that the scale does not shrink. redlock-py-drift-sign's 40 ms margin for
// six requests gives 3.33 where its length alone would give 6.43.
func DefaultScale(cfg *model.Config) float64 {
	s := max(1, float64(cfg.Duration)/float64(TargetWall))
	return systemOr(cfg.Lock.Algorithm).fitScale(cfg, max(1, min(s, MaxScale(cfg), MarginScale(cfg))))
}

// RequestSlack is what one request a client waits for costs a real run in
// wall time beyond its scaled latency, which the scale does not shrink:
// two proxy hops and the wake-ups of two processes, up to the 2 ms that
// the project allows a timer or a hop on a busy two-core machine (compare's
// timerSlack). Measured on the 2-core machine: a round of five SETs sent
// one by one took 2.5 ms of wall time where its scaled latencies made
// 1.6 ms (and 9 ms before the proxy slept its sub-millisecond delays
// precisely).
const RequestSlack = 2 * time.Millisecond

// A margin is a stretch of scenario time that a scenario's outcome rests
// on and that requests made one after another eat into; the simulated
// latency of those requests is already taken off d. In a real run each
// of them costs RequestSlack more, unscaled, so what is left of d at the
// decision stays positive only while d / scale ≥ requests × RequestSlack.
type margin struct {
	what     string
	d        time.Duration // scenario time, positive
	requests int
}

// margins lists the margins of cfg that the harness can work out from its
// lock and workload alone (a fault's timing is the scenario's own and is
// not judged here).
//
// The recheck: a holder that rechecks its validity before writing
// (workload.recheck_before_write) writes when the validity left after its
// acquisition's elapsed time, its fencing token, its read and its
// critical section is at least workload.recheck_margin. The validity is
// the TTL less the drift allowance (plus it, with redlock-py's sign bug);
// the acquisition's elapsed time counts only where the lock checks it,
// and its requests are one per node when the nodes are asked one by one,
// one round otherwise. A holder the model has abandon its write (the
// margin is not positive) only abandons it sooner for real: no margin.
// Renewal and extension move the validity, and the lease lock's validity is the
// store's, so neither has this margin.
func margins(cfg *model.Config) []margin {
	l, w := cfg.Lock, cfg.Work
	var out []margin
	if w.RecheckBeforeWrite && l.Renewal == client.NoRenewal && !l.Extend && !l.Algorithm.Store() {
		drift := l.Drift()
		if l.DriftAdded {
			drift = -drift
		}
		requests := 1 // the read
		if w.Tokens == client.IncrToken {
			requests++
		}
		if l.ValidityCheck {
			if l.Sequential && l.Algorithm.AsksAll() {
				requests += len(cfg.Nodes)
			} else {
				requests++
			}
		}
		d := l.TTL - drift - w.CriticalSection - w.RecheckMargin - time.Duration(requests)*2*slowestLatency(cfg)
		if d > 0 {
			out = append(out, margin{"the recheck before the write", d, requests})
		}
	}
	return out
}

// slowestLatency is the largest expected one-way latency of cfg's network.
func slowestLatency(cfg *model.Config) time.Duration {
	d := cfg.Network.Latency.Expected()
	for _, l := range cfg.Network.Links {
		if l.Latency.Kind != 0 {
			d = max(d, l.Latency.Expected())
		}
	}
	return d
}

// MarginScale is the largest scale at which every margin of cfg (see
// margins) keeps d / scale ≥ requests × RequestSlack of wall time, or
// +Inf when cfg has none. It may be below 1: DefaultScale then runs at 1.
func MarginScale(cfg *model.Config) float64 {
	s := math.Inf(1)
	for _, m := range margins(cfg) {
		s = min(s, float64(m.d)/float64(time.Duration(m.requests)*RequestSlack))
	}
	return s
}

// CheckScale says why scale f cannot be used for cfg, or nil.
func CheckScale(cfg *model.Config, f float64) error {
	if !(f > 0) || math.IsInf(f, 0) {
		return fmt.Errorf("--scale must be a positive number, got %v", f)
	}
	var errs []error
	if err := systemOr(cfg.Lock.Algorithm).scaleError(cfg, f); err != nil {
		errs = append(errs, err)
	}
	check := func(what string, d, floor time.Duration) {
		if d > 0 && scaled(d, f) < floor {
			errs = append(errs, fmt.Errorf("--scale %g makes %s %v, below the %v a real run resolves (largest scale: %.3g)",
				f, what, scaled(d, f), floor, float64(d)/float64(floor)))
		}
	}
	check("lock.ttl", cfg.Lock.TTL, minTTL)
	check("lock.request_timeout", cfg.Lock.RequestTimeout, minRequestTimeout)
	check("workload.request_timeout", cfg.Work.RequestTimeout, minWorkTimeout)
	errs = append(errs, clockResolution(cfg, f)...)
	for _, m := range systemOr(cfg.Lock.Algorithm).minimums(cfg) {
		check(m.what, m.d, m.floor)
	}
	return errors.Join(errs...)
}

func scaled(d time.Duration, f float64) time.Duration {
	return time.Duration(math.Round(float64(d) / f))
}

// scaledPauses are cfg's random client pauses for seed, drawn from the
// unscaled cfg exactly as model.Run draws them and then scaled, so that a
// real run at any scale makes the simulator's pauses, slowed by f.
func scaledPauses(cfg *model.Config, seed uint64, f float64) []model.RandomPause {
	ps := model.RandomPauses(cfg, seed)
	for i := range ps {
		ps[i].At, ps[i].For = scaled(ps[i].At, f), scaled(ps[i].For, f)
	}
	return ps
}

func scaleLatency(l network.Latency, f float64) network.Latency {
	l.Value, l.Min, l.Max = scaled(l.Value, f), scaled(l.Min, f), scaled(l.Max, f)
	l.Mean, l.Median = scaled(l.Mean, f), scaled(l.Median, f)
	if l.Table != nil {
		l.Table = l.Table.Scaled(f)
	}
	return l
}

// Scale returns cfg with every time divided by f: the run's length, the
// lock's TTL, timeouts, retry delays, drift constant and auto-extend's
// threshold, the workload's
// times, client start times and pauses, latencies,
// every clock's offset, steps, slews and rate changes (scaleClock),
// and every fault's time, length, delay and clock step. Rates and counts
// stay.
func Scale(cfg model.Config, f float64) model.Config {
	s := func(d *time.Duration) { *d = scaled(*d, f) }
	s(&cfg.Duration)
	l := &cfg.Lock
	for _, d := range []*time.Duration{&l.TTL, &l.RequestTimeout, &l.DriftConst, &l.RetryDelay, &l.RetryJitter, &l.WaitTimeout, &l.KeepAlive, &l.ExtendThreshold, &l.Tick} {
		s(d)
	}
	w := &cfg.Work
	for _, d := range []*time.Duration{&w.CriticalSection, &w.Think, &w.RecheckMargin, &w.RequestTimeout} {
		s(d)
	}
	cfg.Nodes = append([]model.NodeConfig(nil), cfg.Nodes...)
	for i := range cfg.Nodes {
		cfg.Nodes[i].Clock = scaleClock(cfg.Nodes[i].Clock, f)
	}
	cfg.Store.Clock = scaleClock(cfg.Store.Clock, f)
	s(&cfg.Store.LeaseCheckEvery) // the model's, for a scaled config to mean the same; etcd's is LessorCheckEvery
	cfg.Clients = append([]model.ClientConfig(nil), cfg.Clients...)
	for i := range cfg.Clients {
		c := &cfg.Clients[i]
		c.Clock = scaleClock(c.Clock, f)
		s(&c.StartIn)
		s(&c.Pauses.Every)
		if a := c.Pauses.Arrivals; a != nil {
			c.Pauses.Arrivals = make([]time.Duration, len(a))
			for j, at := range a {
				c.Pauses.Arrivals[j] = scaled(at, f)
			}
		}
		c.Pauses.Length = scaleLatency(c.Pauses.Length, f)
	}
	s(&cfg.Resource.ServiceTime)
	s(&cfg.Sentinel.DownAfter)
	s(&cfg.Sentinel.PingEvery)
	cfg.Network.Latency = scaleLatency(cfg.Network.Latency, f)
	cfg.Network.Links = append([]model.LinkConfig(nil), cfg.Network.Links...)
	for i := range cfg.Network.Links {
		cfg.Network.Links[i].Latency = scaleLatency(cfg.Network.Links[i].Latency, f)
	}
	cfg.Faults = append([]model.Fault(nil), cfg.Faults...)
	for i := range cfg.Faults {
		ft := &cfg.Faults[i]
		s(&ft.At)
		s(&ft.For)
		if ft.Kind == model.Spike || ft.Kind == model.ClockStep || ft.Kind == model.ClockSlew {
			s(&ft.By)
		}
	}
	return cfg
}

// ChooseDriver picks the lock client a scenario's clients run: its
// algorithm's system decides (redsync where it implements the scenario's
// Redlock as configured, the harness's raw client where the scenario needs
// what redsync does not offer, the failover and the store drivers).
func ChooseDriver(l client.LockConfig) string {
	return systemOr(l.Algorithm).driver(l)
}
