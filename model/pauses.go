package model

import (
	"time"

	"github.com/redlocksim/redlocksim/sim"
)

// PauseStream is the name of the random stream a client's random pauses
// draw from: the world and the real harness both draw from it, so that a
// seed means the same pauses in a simulated and in a real run.
func PauseStream(client string) string { return "pauses:" + client }

// ClockStream is the stream a process's clock rate spread is drawn from
// (site "rate").
func ClockStream(proc string) string { return "clock:" + proc }

// drawRate is a clock's rate error, ppm ± spread, drawn from s at site
// "rate": the one definition, for the world and SampledRates.
func drawRate(s *sim.Stream, ppm, spread float64) float64 {
	return ppm + (2*s.Uniform("rate")-1)*spread
}

// DrawnRate is the clock rate error a run drew for one process from its
// rate spread.
type DrawnRate struct {
	Proc    string
	Node    bool // a node's clock; else a client's
	RatePPM float64
}

// SampledRates is the clock rates a run with seed drew with tilts (see
// Plan.RunSampledWithin) for the processes with a rate spread, nodes
// first: with each set as the process's rate_ppm and its spread off, a
// plain run keeps the run's clocks.
func SampledRates(cfg *Config, seed uint64, tilts []sim.Tilt) []DrawnRate {
	k := sim.New(seed)
	if tilts != nil {
		k.SetSampling(&sim.Sampling{Tilts: tilts})
	}
	var out []DrawnRate
	add := func(name string, node bool, ppm, spread float64) {
		if spread > 0 {
			out = append(out, DrawnRate{Proc: name, Node: node, RatePPM: drawRate(k.Stream(ClockStream(name)), ppm, spread)})
		}
	}
	for _, n := range cfg.Nodes {
		add(n.Name, true, n.Clock.RatePPM, n.RateSpread)
	}
	for _, c := range cfg.Clients {
		add(c.Name, false, c.Clock.RatePPM, c.RateSpread)
	}
	return out
}

// PauseDraws yields one client's random pauses (PauseConfig: Poisson
// arrivals, lengths from a distribution) in time order, drawing from r.
// It is the one definition of the draw order, which a seed's meaning rests
// on: the first arrival, its length, the next gap, its length, and so on,
// ending at the first arrival at or past the run's end (whose length is not
// drawn). With Arrivals, the gaps are the log's (one Float64 for the
// starting point, then none).
//
// The gaps draw at site "every" and the lengths at site "length" of the
// stream, where a run's sim.Sampling may tilt them.
type PauseDraws struct {
	r       *sim.Stream
	cfg     PauseConfig
	end, at time.Duration
	started bool
	logged  int // with Arrivals: the index of the last arrival played
}

// NewPauseDraws returns the pauses of cfg up to end, drawn from r. A cfg
// with Every <= 0 yields none and draws nothing.
func NewPauseDraws(r *sim.Stream, cfg PauseConfig, end time.Duration) *PauseDraws {
	return &PauseDraws{r: r, cfg: cfg, end: end}
}

// Next returns the next pause's start and length, or ok = false when the
// run has no more.
func (d *PauseDraws) Next() (at, length time.Duration, ok bool) {
	if d.cfg.Every <= 0 {
		return 0, 0, false
	}
	var gap time.Duration
	if len(d.cfg.Arrivals) > 0 {
		gap = d.loggedGap()
	} else {
		gap = time.Duration(d.r.Exp("every") * float64(d.cfg.Every))
	}
	if d.started {
		d.at += gap
	} else {
		d.at, d.started = gap, true
	}
	if d.at >= d.end {
		d.cfg.Every = 0 // spent: draw nothing more
		return 0, 0, false
	}
	return d.at, d.cfg.Length.Draw(d.r, "length"), true
}

// loggedGap is the gap to the next of the log's arrivals: the first is
// at a point of the log drawn with one Float64 (its gap the one before it
// in the log), the next ones follow the log, and after the log's last
// arrival it starts again at its first, Every later.
func (d *PauseDraws) loggedGap() time.Duration {
	a := d.cfg.Arrivals
	if !d.started {
		d.logged = int(d.r.Float64() * float64(len(a)))
	} else {
		d.logged = (d.logged + 1) % len(a)
	}
	if d.logged == 0 {
		return d.cfg.Every
	}
	return a[d.logged] - a[d.logged-1]
}

// RandomPause is one random pause of one client, as data.
type RandomPause struct {
	Client  string
	At, For time.Duration
}

// RandomPauses is the schedule of every client's random pauses in a run of
// cfg with seed: the very pauses model.Run makes, in client order and then
// time order. The real harness plays it, so that the same seed pauses the
// same clients at the same times for the same lengths as the simulator.
func RandomPauses(cfg *Config, seed uint64) []RandomPause {
	return SampledPauses(cfg, seed, nil)
}

// SampledPauses is RandomPauses of a run drawn with tilts (see
// Plan.RunSampledWithin): the pauses that run made. Its likelihood ratio
// is not the run's (only the pauses' draws are made here), so a caller
// reads the pauses and nothing else of smp.
func SampledPauses(cfg *Config, seed uint64, tilts []sim.Tilt) []RandomPause {
	k := sim.New(seed)
	if tilts != nil {
		k.SetSampling(&sim.Sampling{Tilts: tilts})
	}
	var out []RandomPause
	for _, c := range cfg.Clients {
		if c.Pauses.Every <= 0 {
			continue
		}
		d := NewPauseDraws(k.Stream(PauseStream(c.Name)), c.Pauses, cfg.Duration)
		for at, length, ok := d.Next(); ok; at, length, ok = d.Next() {
			out = append(out, RandomPause{Client: c.Name, At: at, For: length})
		}
	}
	return out
}
