package model

import (
	"time"

	"github.com/redlocksim/redlocksim/model/danger"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/sim"
)

// Scored is what a scored run gives beside its Result: the danger score's
// trace (model/danger) and the random pauses it made, with the lengths
// they had in the end (a branch redraws them), for a failure path.
type Scored struct {
	Trace  danger.Trace
	Pauses []RandomPause
}

// RunScoredWithin runs one world of p as RunSampledWithin does (fast, with
// smp's tilts and branch points) and scores its danger for mutual
// exclusion after every event (see package danger). A run whose result
// violates the property named by resource (else mutual exclusion) ends
// its trace at danger.Top, at the run's end if not sooner, so that a
// violation is always above every level. Scoring reads the world and
// changes nothing: the run is the one RunSampledWithin makes.
func (p *Plan) RunScoredWithin(seed uint64, smp *sim.Sampling, maxEvents uint64, resource bool) (Result, Scored, error) {
	if err := p.checkFloor(maxEvents); err != nil {
		return Result{}, Scored{}, err
	}
	if smp == nil {
		smp = &sim.Sampling{}
	}
	w := newWorld(p, seed, false, nil, smp)
	w.scorer = newScorer(w)
	r, err := w.runWithin(maxEvents)
	if err != nil {
		return Result{}, Scored{}, err
	}
	sc := w.scorer
	sc.observe()
	if (resource && !r.ResourceSafe()) || (!resource && !r.MutexSafe()) {
		sc.trace.Note(r.End, danger.Top)
	}
	return r, Scored{Trace: sc.trace, Pauses: w.sampledPauses()}, nil
}

// scorer keeps a scored run's danger: the holds its clients believe in,
// and the trace of the score.
type scorer struct {
	w      *World
	key    string
	ttl    time.Duration
	quorum int
	store  bool // a lock on a store: no Redis keys to read
	holds  []scoredHold
	rem    []time.Duration // scratch, a node each
	trace  danger.Trace
	// logS is each client's pause lengths' log survival (by endpoint), when
	// every client with random pauses has a law here: the score is then
	// danger.Outlasts, and a client without pauses scores 0. Else nil,
	// and the score is danger.Margin.
	logS map[*proc]func(time.Duration) float64
}

type scoredHold struct {
	client *proc
	lock   uint64
	start  time.Duration
}

func newScorer(w *World) *scorer {
	l := w.plan.cfg.Lock
	q := l.QuorumOf(len(w.nodes))
	if !l.Algorithm.AsksAll() {
		// One master at a time, which may change: the lock is free
		// when every node that holds the key has lost it.
		q = len(w.nodes)
	}
	sc := &scorer{w: w, key: l.Key, ttl: l.TTL, quorum: q, store: l.Algorithm.Store(), rem: make([]time.Duration, len(w.nodes))}
	laws := map[*proc]func(time.Duration) float64{}
	for _, c := range w.plan.cfg.Clients {
		if c.Pauses.Every <= 0 {
			continue
		}
		f, ok := danger.LogSurvival(c.Pauses.Length)
		if !ok {
			return sc
		}
		laws[w.procs[w.plan.endpoint(c.Name)]] = f
	}
	if len(laws) > 0 {
		sc.logS = laws
	}
	return sc
}

// client notes a client's observation: a hold begins or ends. A hold that
// begins while another client's is open is a violation of mutual
// exclusion, unless the other ends at the same instant; the run's result
// says which (RunScoredWithin), and the score says Top at once.
func (sc *scorer) client(p *proc, o proto.Observation) {
	now := sc.w.k.Now()
	switch o.Kind {
	case proto.HoldStart:
		for _, h := range sc.holds {
			if h.client != p {
				sc.trace.Note(now, danger.Top)
			}
		}
		sc.holds = append(sc.holds, scoredHold{client: p, lock: o.Lock, start: now})
	case proto.HoldEnd:
		n := 0
		for _, h := range sc.holds {
			if h.client != p {
				sc.holds[n] = h
				n++
			}
		}
		sc.holds = sc.holds[:n]
	}
}

// observe scores the world's state now: the largest holder's margin.
func (sc *scorer) observe() {
	if len(sc.holds) == 0 {
		return
	}
	w := sc.w
	now := w.k.Now()
	best := 0.0
	for _, h := range sc.holds {
		var free time.Duration
		if sc.store {
			// No keys to read: the hold's age stands for the
			// lease's life gone.
			free = max(0, sc.ttl-(now-h.start))
		} else {
			for i, n := range w.nodes {
				node := w.procs[w.plan.nodes[i]]
				if !node.up {
					sc.rem[i] = danger.Down
					continue
				}
				sc.rem[i] = danger.Gone
				if val, expire, ok := n.LockKey(sc.key); ok && val == h.lock {
					sc.rem[i] = max(danger.Gone, expire-node.Read(proto.Wall))
				}
			}
			free = danger.FreeIn(sc.rem, sc.quorum)
		}
		switch {
		case sc.logS == nil:
			best = max(best, danger.Margin(free, sc.ttl))
		case sc.logS[h.client] != nil:
			frozen := time.Duration(0)
			if h.client.paused {
				frozen = now - h.client.frozeAt
			}
			best = max(best, danger.Outlasts(sc.logS[h.client], frozen, free))
		}
	}
	sc.trace.Note(now, best)
}
