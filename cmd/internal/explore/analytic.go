package explore

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/network"
)

// Prediction is a closed form's onset for a key: the range it predicts
// the verdict flips in, the formula, and the facts of the run it used.
// Where the closed form also names one value, the onset a typical hold
// of the run meets, HasOnset is set and Onset is that value (within
// [Lo, Hi]); the range's ends are then the earliest any hold could flip
// and the value by which a flip is sure.
type Prediction struct {
	Lo, Hi   float64
	Onset    float64
	HasOnset bool
	Formula  string
	Facts    string
}

// Agrees reports whether the prediction's range meets the measured bracket.
func (p *Prediction) Agrees(b *Boundary) bool {
	lo, hi := min(b.Safe.Value, b.Violating.Value), max(b.Safe.Value, b.Violating.Value)
	return p.Lo <= hi && lo <= p.Hi
}

var nodesRate = regexp.MustCompile(`^nodes\.clock\.rate_ppm$`)

// lockTTL is the key whose closed form is the TTL against a pause.
const lockTTL = "lock.ttl"

// HasClosedForm reports whether Predict knows a closed form for key (it
// still returns nil where the run lacks the facts it needs).
func HasClosedForm(key string) bool {
	return nodesRate.MatchString(key) || faultField.MatchString(key) || key == lockTTL
}

// predict applies the key's closed form at the last safe value.
func (bs *bisector) predict(safe Probe) *Prediction {
	cfg, err := bs.config(safe.Value)
	if err != nil {
		return nil
	}
	base, err := bs.opt.Base.Apply(bs.opt.Sets...)
	if err != nil {
		return nil
	}
	return Predict(bs.opt.Key, base.Config, cfg, safe.Seed)
}

// Predict applies the closed form key has, if any, to the world cfg, from
// the facts of its run on seed: when keys were set, when holders let go,
// when contenders asked. faults names the faults a key's index refers to
// (the scenario's own, before a zero step or length removed one). It
// returns nil where no closed form applies. The range is in the key's
// units: ppm, or nanoseconds for a duration (a step, a pause, the TTL).
func Predict(key string, faults, cfg model.Config, seed uint64) *Prediction {
	if !HasClosedForm(key) {
		return nil
	}
	if key == lockTTL && !slices.ContainsFunc(cfg.Faults, func(f model.Fault) bool { return f.Kind == model.Pause }) {
		return nil // no pause: spare the narrated run
	}
	if key == lockTTL && slices.ContainsFunc(cfg.Faults, func(f model.Fault) bool { return f.OnAcquire }) {
		// The pause closed forms start from the pause's at; a pause on
		// acquisition starts at an acquisition its at does not name.
		return nil
	}
	r, err := model.RunTraced(cfg, seed)
	if err != nil {
		return nil
	}
	switch {
	case key == lockTTL:
		return predictTTL(cfg, r.History)
	case nodesRate.MatchString(key):
		return predictRate(cfg, r.History)
	case faultField.MatchString(key):
		m := faultField.FindStringSubmatch(key)
		i, _ := strconv.Atoi(m[1])
		if i >= len(faults.Faults) {
			return nil
		}
		f := faults.Faults[i]
		isNode := slices.ContainsFunc(cfg.Nodes, func(n model.NodeConfig) bool { return n.Name == f.Target })
		switch {
		case m[2] == "by" && f.Kind == model.ClockStep && isNode:
			return predictStep(f, cfg, r.History)
		case m[2] == "for" && f.Kind == model.Pause && !isNode && !f.OnAcquire: // see lockTTL's
			return predictPause(f, cfg, r.History)
		}
	}
	return nil
}

// predictRate: a key set with PX ttl on a node whose clock runs fast by r
// dies after ttl/(1+r) of true time, while a holder keeps the lock for D
// (its work, bounded by its validity ttl − elapsed − drift; the median
// hold of the run). A contender
// can get a majority before the holder lets go iff ttl/(1+r) < D plus the
// round trip between the keys' setting and the holder's acquisition; one
// of its retries is sure to land there once ttl/(1+r) < D − gap, gap being
// the longest retry delay plus a round trip.
//
// The onset a typical hold meets is ttl/(1+r) = D, r = ttl/D − 1: the
// key is set a reply's latency before the holder's hold begins and the
// contender's own reply takes a latency too, so the two latencies cancel
// on average and the window opens when the key's life falls below the
// hold itself.
func predictRate(cfg model.Config, h check.History) *Prediction {
	ttl := cfg.Lock.TTL
	var holds []time.Duration
	for _, x := range h.Holds {
		if x.End < h.End { // not cut short by the run's end
			holds = append(holds, x.End-x.Start)
		}
	}
	if len(holds) == 0 {
		return nil
	}
	// The median hold: a hold stretched by a pause is a violation of its
	// own, not the workload's length.
	slices.Sort(holds)
	hold := holds[len(holds)/2]
	rtt := roundTrip(cfg)
	gap := cfg.Lock.RetryDelay + cfg.Lock.RetryJitter + rtt
	onset := func(h time.Duration) float64 {
		return (float64(ttl)/float64(h) - 1) * 1e6
	}
	p := &Prediction{
		Lo:       onset(hold + rtt),
		Onset:    onset(hold),
		HasOnset: true,
		Formula:  "ttl/(1+r) < D: the keys die before the holder lets go",
		Facts:    fmt.Sprintf("ttl %v, median hold D = %v, round trip up to %v, retry gap up to %v", ttl, hold, rtt, gap),
	}
	p.Hi = p.Onset // a hold shorter than the gap: no retry is sure to land
	if hold > gap {
		p.Hi = onset(hold - gap)
	}
	return p
}

// roundTrip is a request's round trip at the latency's upper end (the
// 95th percentile for the unbounded kinds).
func roundTrip(cfg model.Config) time.Duration {
	l := cfg.Network.Latency
	one := l.Value
	switch l.Kind {
	case network.LatencyUniform:
		one = l.Max
	case network.LatencyExponential:
		one = l.Min + 3*l.Mean
	case network.LatencyLognormal:
		one = time.Duration(float64(l.Median) * math.Exp(2*l.Sigma))
	case network.LatencyEmpirical:
		one = l.Table.Quantile(0.95)
	}
	return 2 * one
}

// predictStep: a forward step of the clock of a node holding the key
// expires the key iff the step ≥ ttl − key age. The key age that matters
// is the one when a contender's last request reaches the node before the
// holder lets go: its acquisition ends (gives up or succeeds) at most a
// request timeout after that request, and when it was still retrying as
// the holder let go, that request came up to a retry delay earlier.
func predictStep(f model.Fault, cfg model.Config, h check.History) *Prediction {
	ttl := cfg.Lock.TTL
	i := slices.IndexFunc(h.Holds, func(x check.Hold) bool { return x.Start <= f.At && f.At < x.End })
	if i < 0 {
		return nil
	}
	hold := h.Holds[i]
	var set time.Duration = -1
	for _, e := range h.Log {
		if e.Actor == f.Target && e.Kind == story.Sets && e.At <= f.At {
			set = e.At
		}
	}
	var last time.Duration = -1
	cut := false // the contender was still trying when the holder let go
	for _, a := range h.Attempts {
		if a.Client != hold.Client && a.End > f.At && a.Start < hold.End && min(a.End, hold.End) >= last {
			last, cut = min(a.End, hold.End), a.End >= hold.End
		}
	}
	if set < 0 || last < 0 {
		return nil
	}
	age := last - set
	wait := cfg.Lock.RequestTimeout + roundTrip(cfg)
	if cut {
		// Its last request before the holder let go came up to a retry
		// delay earlier.
		wait += cfg.Lock.RetryDelay + cfg.Lock.RetryJitter
	}
	return &Prediction{
		Lo:      float64(ttl - age),
		Hi:      float64(ttl - age + wait),
		Formula: "step ≥ ttl − key age: the key expires before a contender's last request",
		Facts: fmt.Sprintf("ttl %v; %s set the key at %v; %s holds until %v; the contender's last request comes up to %v before %v (key age %v there)",
			ttl, f.Target, set, hold.Client, hold.End, wait, last, age),
	}
}

// predictPause: a client paused at T while it holds the lock believes it
// holds it until it wakes; its keys live until a majority of them expire,
// at t_exp = the quorum-th key set + ttl (later than its validity end by
// the drift allowance and the acquisition time). Another client can hold
// from then on, so a pause longer than t_exp − T, or until the first
// contender asks after that, overlaps; the contender in this run took the
// lock at t_c, which bounds the onset from above.
func predictPause(f model.Fault, cfg model.Config, h check.History) *Prediction {
	hold, t0, set, ok := pausedHold(f, cfg, h)
	if !ok {
		return nil
	}
	exp := set + cfg.Lock.TTL
	validityEnd := t0 + cfg.Lock.TTL - cfg.Lock.Drift()
	var taken time.Duration = -1
	for _, x := range h.Holds {
		if x.Client != hold.Client && x.Start >= exp && (taken < 0 || x.Start < taken) {
			taken = x.Start
		}
	}
	// No contender can take the lock before it asks: the earliest is the
	// first request of another client still trying at t_exp.
	asks := time.Duration(-1)
	for _, a := range h.Attempts {
		if a.Client != hold.Client && a.End >= exp && (asks < 0 || max(a.Start, exp) < asks) {
			asks = max(a.Start, exp)
		}
	}
	if asks < 0 {
		asks = exp
	}
	p := &Prediction{
		Lo:      float64(asks - f.At),
		Formula: "pause > max(t_exp, a contender's request) − T: the holder sleeps past its keys' expiry",
		Facts: fmt.Sprintf("paused at T = %v with validity left %v (until %v); a majority of its keys expires at t_exp = %v; a contender asks from %v",
			f.At, validityEnd-f.At, validityEnd, exp, asks),
	}
	p.Hi = p.Lo
	if taken >= 0 {
		p.Hi = float64(taken - f.At)
		p.Facts += fmt.Sprintf("; the next holder took the lock at t_c = %v", taken)
	}
	return p
}

// predictTTL: the TTL against a pause of length p at T of a client holding
// the lock. Its validity is ttl − elapsed − drift from the start of its
// acquisition at t_0, but the keys live on until a majority of them
// expire, at t_set + ttl, t_set being when the quorum-th key was set (the
// validity ends drift + (t_set − t_0) before). The holder lets go at
// t_let, after it wakes at T + p; a contender still retrying then takes
// the lock from the keys' expiry on, up to a retry gap (the longest retry
// delay plus a round trip) later. So the run violates iff t_set + ttl +
// wait < t_let with wait in [0, gap]: the onset is ttl in
// [t_let − t_set − gap, t_let − t_set], and no earlier than the first
// request of a contender minus t_set. None of these moments depends on
// the TTL, so the last safe run's facts hold at any TTL.
func predictTTL(cfg model.Config, h check.History) *Prediction {
	isClient := func(name string) bool {
		return slices.ContainsFunc(cfg.Clients, func(c model.ClientConfig) bool { return c.Name == name })
	}
	for _, f := range cfg.Faults {
		if f.Kind != model.Pause || !isClient(f.Target) {
			continue
		}
		hold, t0, set, ok := pausedHold(f, cfg, h)
		if !ok {
			continue
		}
		// The first request of another client still trying during the
		// pause: before it nobody can take the lock.
		asks := time.Duration(-1)
		for _, a := range h.Attempts {
			if a.Client != hold.Client && a.End > f.At && (asks < 0 || a.Start < asks) {
				asks = a.Start
			}
		}
		if asks < 0 || asks >= hold.End {
			continue // nobody asks before the holder lets go: no TTL overlaps
		}
		gap := cfg.Lock.RetryDelay + cfg.Lock.RetryJitter + roundTrip(cfg)
		hi := hold.End - set
		lo := min(hi, max(hi-gap, asks-set))
		drift := cfg.Lock.Drift()
		return &Prediction{
			Lo:      float64(lo),
			Hi:      float64(hi),
			Formula: "ttl < t_let − t_set: the majority's keys expire before the paused holder lets go (its validity, ttl − elapsed − drift, ends drift + t_set − t_0 earlier)",
			Facts: fmt.Sprintf("%s acquires from t_0 = %v, the quorum-th key set at t_set = %v; paused at T = %v for %v, it lets go at t_let = %v; a contender asks from %v, retry gap up to %v; drift %v at ttl %v (validity %v)",
				hold.Client, t0, set, f.At, f.For, hold.End, asks, gap, drift, cfg.Lock.TTL, cfg.Lock.TTL-(hold.Start-t0)-drift),
		}
	}
	return nil
}

// pausedHold finds the hold a client's pause f falls in, when the
// acquisition that began it started (t0), and when the quorum-th of its
// keys was set; ok is false where the run lacks any of them.
func pausedHold(f model.Fault, cfg model.Config, h check.History) (hold check.Hold, t0, set time.Duration, ok bool) {
	i := slices.IndexFunc(h.Holds, func(x check.Hold) bool { return x.Client == f.Target && x.Start <= f.At && f.At < x.End })
	if i < 0 {
		return check.Hold{}, 0, 0, false
	}
	hold = h.Holds[i]
	j := slices.IndexFunc(h.Attempts, func(a check.Attempt) bool { return a.Client == hold.Client && a.OK && a.End == hold.Start })
	if j < 0 {
		return check.Hold{}, 0, 0, false
	}
	t0 = h.Attempts[j].Start
	var sets []time.Duration
	for _, e := range h.Log {
		if e.Kind == story.Sets && e.At >= t0 && e.At <= hold.Start {
			sets = append(sets, e.At)
		}
	}
	q := cfg.Lock.QuorumOf(len(cfg.Nodes))
	if len(sets) < q {
		return check.Hold{}, 0, 0, false
	}
	slices.SortFunc(sets, cmp.Compare)
	return hold, t0, sets[q-1], true
}
