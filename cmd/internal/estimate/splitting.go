package estimate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/danger"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
	"github.com/redlocksim/redlocksim/sim"
)

// Splitting is adaptive multilevel splitting (Cérou & Guyader 2007), in
// the generalised form of Bréhier, Gazeau, Goudenège, Lelièvre & Rousset
// (2016) that stays unbiased with ties in the score:
//
//   - N particles are plain runs, each scored by model/danger as it goes.
//   - An iteration takes the level z, the k-th lowest particle's largest
//     score (k a tenth of N), kills every particle whose largest score is
//     at most z (K of them, K ≥ k), and replaces each by a clone of a
//     survivor drawn at random: the survivor's run replayed up to just
//     after the events at which its score first rose above z, then
//     branched (fresh streams, the pauses drawn ahead redrawn; sim.Sampling,
//     model's redraw). The estimate takes a factor 1 − K/N.
//   - It stops when the level reaches danger.Top (the k-th lowest particle
//     violates), or when every particle would be killed (the estimate is
//     then 0).
//   - The repetition's estimate is Π(1 − K_j/N) × (violating particles)/N,
//     unbiased for the probability that a run violates.
//
// The interval comes from independent repetitions: R repetitions of N
// particles give R independent unbiased estimates, and the interval is
// Student's t on their mean (R − 1 degrees of freedom) after Hall's
// transformation for their skewness (splitStats.interval). It is trusted when
// the repetitions' violating particles are at least 30 in all, the
// repetitions' effective number (Σp̂)²/Σp̂² is at least 30 and no
// repetition carries more than 10% of the sum: the same rules as
// importance sampling's weights, a repetition standing for a run.
const (
	Splitting = "splitting"

	splitParticles = 100 // N per repetition, unless Options.Particles
	splitKill      = 0.1 // the share of particles an iteration kills at least
	splitMaxIter   = 20000
	// splitGiveUp: repetitions that all die out before any violation
	// say the score leads nowhere (or nothing violates); more of them
	// would only spend the budget.
	splitGiveUp = 5
)

// splitTrust words importance sampling's trust rules for repetitions.
var splitTrust = trustWords{"violating particles", "the repetitions' estimates are uneven: their effective number is", "repetition"}

// particle is one run of a repetition: its seed and branch points (its
// ancestors' and its own), and what it gave.
type particle struct {
	seed     uint64
	branches []sim.BranchPoint

	trace    danger.Trace
	violated bool
	acq      int
	pauses   []model.RandomPause
}

// rep is one repetition's outcome.
type rep struct {
	p          float64 // its estimate
	hits       int     // violating particles at its end
	iterations int
	runs       int
	// spends are the runs of each of its steps, in order: the N plain
	// particles, then each level's clones. A merge replays the budget on
	// them (shard.go).
	spends []int
	// plainHits are its plain particles (the first N) that violated, by
	// index: the bound splitting falls back to counts them.
	plainHits []int
	// cands are its violating particles, mildest first (at most
	// pinTries): the dominant path and the ones Pin tries after it.
	cands []cand
}

// cand is a violating particle offered as a failure path: its mildness,
// and the particle, which a merge makes again from its repetition (rep,
// pos) only when it is chosen.
type cand struct {
	mildest  float64
	rep, pos int
	p        *particle
}

func (r *runner) runParticle(p *particle) error {
	smp := &sim.Sampling{Branches: p.branches}
	var sc model.Scored
	res, err := sweeprun.Guard(p.seed, func() (model.Result, error) {
		res, s, err := r.plan.RunScoredWithin(p.seed, smp, r.maxEvents, r.property == Resource)
		sc = s
		return res, err
	})
	if err != nil {
		return err
	}
	p.trace, p.pauses = sc.Trace, sc.Pauses
	p.violated, p.acq = r.property.violated(&res), res.Report.AcquireSuccesses
	return nil
}

// runParticles runs ps in parallel. When ctx is done it stops and says so;
// a run's error ends it with the error of the lowest particle that had one.
func (r *runner) runParticles(ctx context.Context, ps []*particle) error {
	_, errs := r.parallel(ctx, len(ps), func(i int) error { return r.runParticle(ps[i]) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// splitSeed is a fixed function of the estimate's seed and the names.
func splitSeed(seed uint64, name string) uint64 {
	a, _ := sim.StreamSeed(seed, "estimate:split:"+name)
	return a
}

// repetition makes repetition i: N particles, iterations until the level
// reaches Top, making at most room runs. ok is false when room or ctx
// stopped it unfinished: an unfinished repetition is no estimate. Its
// runs are out.runs; the caller counts them.
func (e *estimator) repetition(i, n, room int) (out rep, ok bool, err error) {
	tag := strconv.Itoa(i)
	ps := make([]*particle, n)
	for j := range ps {
		ps[j] = &particle{seed: runSeed(e.opt.Seed, "split"+tag, j)}
	}
	spend := func(ps []*particle) (bool, error) {
		if out.runs+len(ps) > room {
			return false, nil
		}
		err := e.r.runParticles(e.ctx, ps)
		if err != nil {
			if e.ctx.Err() != nil {
				return false, nil
			}
			return false, err
		}
		out.runs += len(ps)
		out.spends = append(out.spends, len(ps))
		return true, nil
	}
	if ok, err := spend(ps); !ok {
		return out, false, err
	}
	for j, p := range ps {
		if p.violated {
			out.plainHits = append(out.plainHits, j)
		}
	}
	choose := rand.New(rand.NewPCG(splitSeed(e.opt.Seed, "choose:"+tag), 0))
	k := max(1, int(splitKill*float64(n)))
	logP := 0.0
	maxes := make([]float64, n)
	for it := 0; ; it++ {
		if it >= splitMaxIter {
			return out, false, fmt.Errorf("splitting: repetition %d did not reach a violation in %d iterations", i, splitMaxIter)
		}
		for j, p := range ps {
			maxes[j] = p.trace.Max()
		}
		sorted := slices.Clone(maxes)
		slices.Sort(sorted)
		z := sorted[k-1]
		if z >= danger.Top {
			break
		}
		var killed, alive []int
		for j := range ps {
			if maxes[j] <= z {
				killed = append(killed, j)
			} else {
				alive = append(alive, j)
			}
		}
		if len(alive) == 0 {
			out.iterations = it
			return out, true, nil // extinct: the estimate is 0
		}
		logP += math.Log1p(-float64(len(killed)) / float64(n))
		clones := make([]*particle, len(killed))
		for c, j := range killed {
			parent := ps[alive[choose.IntN(len(alive))]]
			at, _ := parent.trace.Crossing(z)
			b := at + 1 // after every event at the crossing's time
			var branches []sim.BranchPoint
			for _, bp := range parent.branches {
				if bp.At < b {
					branches = append(branches, bp)
				}
			}
			branches = append(branches, sim.BranchPoint{At: b, Salt: splitSeed(e.opt.Seed, fmt.Sprintf("salt:%d:%d:%d", i, it, j))})
			clones[c] = &particle{seed: parent.seed, branches: branches}
		}
		if ok, err := spend(clones); !ok {
			return out, false, err
		}
		for c, j := range killed {
			ps[j] = clones[c]
		}
		out.iterations = it + 1
	}
	for _, p := range ps {
		if p.violated {
			out.hits++
			out.cands = append(out.cands, cand{mildest: mildest(p), rep: i, pos: len(out.cands), p: p})
		}
	}
	out.cands = mildestFirst(out.cands)
	out.p = math.Exp(logP) * float64(out.hits) / float64(n)
	return out, true, nil
}

// mildest is a violating particle's longest random pause: the dominant
// path is the violating particle whose longest pause is the shortest,
// the least extreme way seen to break the lock.
func mildest(p *particle) float64 {
	m := 0.0
	for _, q := range p.pauses {
		m = max(m, float64(q.For))
	}
	return m
}

// pinTries is how many violating particles, mildest first, splitting
// offers as its failure path. A particle's branches re-seeded every
// stream, so a scenario that pins only its pauses replays its other
// inputs (latencies, critical sections, retry jitter) as the seed draws
// them plainly; where those matter the mildest may not violate so
// replayed, and Pin tries the next.
const pinTries = 10

// mildestFirst orders cs by mildness, stably, and keeps the first
// pinTries.
func mildestFirst(cs []cand) []cand {
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(a.mildest, b.mildest) })
	return cs[:min(len(cs), pinTries)]
}

// splitPath is the dominant path of splitting's repetitions, in order:
// the mildest violating particle, the next mildest as alternatives. A
// merge makes again the repetitions of the chosen ones that it has only
// as their shard's numbers (their runs are not counted: one machine made
// them once).
func (e *estimator) splitPath(reps []rep, n int) (*Path, error) {
	var all []cand
	for i := range reps {
		all = append(all, reps[i].cands...)
	}
	all = mildestFirst(all)
	if len(all) == 0 {
		return nil, nil
	}
	made := map[int]rep{}
	paths := make([]*Path, len(all))
	for i, c := range all {
		if c.p == nil {
			r, ok := made[c.rep]
			if !ok {
				var err error
				if r, ok, err = e.repetition(c.rep, n, math.MaxInt); !ok || err != nil {
					return nil, fmt.Errorf("splitting: making repetition %d again for its failure path: %v", c.rep, errors.Join(err, e.ctx.Err()))
				}
				made[c.rep] = r
			}
			for _, rc := range r.cands {
				if rc.pos == c.pos {
					c.p = rc.p
				}
			}
			if c.p == nil || mildest(c.p) != c.mildest {
				return nil, fmt.Errorf("splitting: repetition %d made again is not the shard's (its violating particle %d differs)", c.rep, c.pos)
			}
		}
		paths[i] = &Path{Seed: c.p.seed, Pauses: c.p.pauses}
	}
	paths[0].alts = paths[1:]
	return paths[0], nil
}

// split estimates by repetitions of adaptive multilevel splitting until
// the interval is good enough and trusted, or the budget ends. A shard
// makes its repetitions instead (splitShard); a merge takes them from the
// shard files, in the same order, with the same budget and stopping rule
// (splitMerged).
func (e *estimator) split(pilot []sample) error {
	opt, res := e.opt, e.res
	n := opt.Particles
	if n == 0 {
		n = splitParticles
	}
	e.logf("splitting: repetitions of %d particles, a tenth killed and cloned per level; a repetition makes about %d runs at p = 1e-6 and %d at 1e-9",
		n, splitCost(n, 1e-6), splitCost(n, 1e-9))
	if done, err := e.splitMainPhase(n); done {
		return err
	}
	var reps []rep
	var st splitStats
	why := ""
	for why == "" {
		if len(reps) > 0 && st.good(opt.RelError) {
			why = fmt.Sprintf("±%.0f%% reached", 100*opt.RelError)
			break
		}
		var r rep
		var ok bool
		var err error
		if e.merge != nil {
			r, ok, err = e.merge.repetition(len(reps), opt.MaxRuns-res.Runs)
		} else {
			r, ok, err = e.repetition(len(reps), n, opt.MaxRuns-res.Runs)
		}
		res.Runs += r.runs
		if len(r.spends) > 0 {
			e.splitPlain = append(e.splitPlain, plainBlock{rep: len(reps), hits: r.plainHits})
		}
		if err != nil {
			if why = e.halt(err); why != "" {
				break
			}
			return err
		}
		if !ok {
			why = "--max-runs reached"
			if e.ctx.Err() != nil {
				why = e.stopped()
			}
			break
		}
		reps = append(reps, r)
		st.add(r)
		if st.hits == 0 && len(reps) >= splitGiveUp {
			why = fmt.Sprintf("%d repetitions reached no violation", len(reps))
			break
		}
		if len(reps) == 1 {
			e.logf("splitting: the first repetition gives %.3g in %d runs (%d levels, %d violating particles)", r.p, r.runs, r.iterations, r.hits)
		}
	}
	res.Stopped = why
	res.EstimateRuns, res.Violations = st.runs, st.hits
	res.ESS, res.LargestWeightShare = st.ess(), st.share()
	res.Splitting = &SplitInfo{Particles: n, Repetitions: len(reps), Levels: st.levels}
	if st.hits == 0 {
		res.Problems = append(res.Problems, "no violation in any splitting repetition")
		return e.splitFallback(pilot, n, why)
	}
	var err error
	if res.Dominant, err = e.splitPath(reps, n); err != nil {
		return err
	}
	p := st.mean()
	lo, hi := st.interval()
	res.Probability, res.CILow, res.CIHigh = p, max(0, lo), hi
	res.RelError = st.halfWidth() / p
	if len(reps) < 2 {
		res.Problems = append(res.Problems, "one repetition: no interval")
		res.CILow, res.CIHigh, res.RelError = 0, math.Inf(1), math.Inf(1)
	} else if why := splitTrust.problem(st.hits, st.ess(), st.share()); why != "" {
		res.Problems = append(res.Problems, why)
	}
	res.Trustworthy = len(res.Problems) == 0
	e.perAcquisition()
	return nil
}

// splitCost is the runs of one repetition of n particles at probability
// p with a perfect score: n, and a tenth of n per level, a level a factor
// of 0.9.
func splitCost(n int, p float64) int {
	k := max(1, int(splitKill*float64(n)))
	levels := math.Log(p) / math.Log1p(-float64(k)/float64(n))
	return n + int(math.Ceil(levels))*k
}

// splitStats folds the repetitions in order.
type splitStats struct {
	reps, hits, runs, levels int
	sum, sum2, maxP          float64
	ps                       []float64 // each repetition's estimate, in order
}

func (s *splitStats) add(r rep) {
	s.reps++
	s.hits += r.hits
	s.runs += r.runs
	s.levels += r.iterations
	s.sum += r.p
	s.sum2 += r.p * r.p
	s.maxP = max(s.maxP, r.p)
	s.ps = append(s.ps, r.p)
}

func (s *splitStats) mean() float64 { return s.sum / float64(s.reps) }

// interval is the 95% interval of the repetitions' mean: Student's t
// after Hall's (1992) transformation, which removes the skewness of the
// studentised mean. A repetition's estimate is skewed to the right (most
// come out below the mean, a few far above), so the studentised mean is
// skewed to the left, and the symmetric t interval misses the truth
// above it more often than 2.5% of the time: over resampled splitting
// repetitions at p = 1.4e-6 (30 of them: 86% coverage, the truth above
// it 14% of the time). The transformation moves the interval up, wider
// above than below (91%; see docs/guides/rare-events.md). With
// W = (mean − μ)/s, γ the repetitions' skewness and n their number,
// T(W) = W + γW²/3 + γ²W³/27 + γ/(6n) is about normal with sd 1/√n, and
// T is monotone with the inverse below.
func (s *splitStats) interval() (lo, hi float64) {
	n := float64(s.reps)
	m := s.mean()
	if s.reps < 2 {
		return math.Inf(-1), math.Inf(1)
	}
	var m2, m3 float64
	for _, p := range s.ps {
		d := p - m
		m2 += d * d
		m3 += d * d * d
	}
	sd := math.Sqrt(m2 / (n - 1))
	if sd == 0 {
		return m, m
	}
	g := m3 / n / (sd * sd * sd)
	inv := func(t float64) float64 { // T⁻¹
		if math.Abs(g) < 1e-9 {
			return t
		}
		return 3 / g * (math.Cbrt(1+g*(t-g/(6*n))) - 1)
	}
	q := results.TQuantile95(s.reps) / math.Sqrt(n)
	return m - sd*inv(q), m - sd*inv(-q)
}

// halfWidth is the interval's larger distance from the mean.
func (s *splitStats) halfWidth() float64 {
	lo, hi := s.interval()
	m := s.mean()
	return max(m-lo, hi-m)
}

func (s *splitStats) ess() float64 { return effective(s.sum, s.sum2) }

func (s *splitStats) share() float64 { return shareOf(s.maxP, s.sum) }

func (s *splitStats) good(rel float64) bool {
	return s.reps >= 2 && s.hits >= minHits && s.ess() >= minESS && s.share() <= maxShare && s.halfWidth() <= rel*s.mean()
}

// plainBlock is a repetition's plain particles (its first N runs):
// which of them violated.
type plainBlock struct {
	rep  int
	hits []int
}

// splitFallback is what splitting reports with no violation: the plain
// runs' bound (the pilot's and every repetition's first particles, all
// plain runs), not trustworthy as an answer to the rel-error asked for.
func (e *estimator) splitFallback(pilot []sample, n int, why string) error {
	problems, runs, info := e.res.Problems, e.res.Runs, e.res.Splitting
	plain := slices.Clone(pilot)
	for _, b := range e.splitPlain {
		tag := strconv.Itoa(b.rep)
		for j := range n {
			plain = append(plain, sample{seed: runSeed(e.opt.Seed, "split"+tag, j), violated: slices.Contains(b.hits, j)})
		}
	}
	e.finishMC(plain, why)
	e.res.Runs, e.res.Splitting, e.res.Problems = runs, info, problems
	e.res.Method = MC
	e.res.Why += "; splitting saw no violation, so this is the bound of its plain runs (the pilot and each repetition's first particles)"
	e.res.Trustworthy = false
	return nil
}
