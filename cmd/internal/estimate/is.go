package estimate

import (
	"fmt"
	"math"
	"strconv"

	"github.com/redlocksim/redlocksim/sim"
)

// Cross-entropy (Rubinstein & Kroese), multilevel: each iteration makes
// CERuns runs with the current tilt; its elite are the violating runs if
// there are at least rho of them, else the rho runs whose most extreme
// draw was least likely under the model (the score). The tilt's next
// parameters maximise the elite's likelihood-ratio-weighted likelihood,
// one EM step for the mixtures, smoothed.
const (
	ceRho      = 0.1
	ceMaxIter  = 12
	ceSmooth   = 0.7
	minHits    = 30  // violating runs a trustworthy IS estimate needs
	minESS     = 30  // their effective sample size
	maxShare   = 0.1 // the largest weight's share of the estimate
	maxProject = 4   // refuse a main phase projected beyond this × the budget left
)

// trustWords name what an estimator's diagnostics count, for trustRule's
// sentences: its violating samples, its effective number, and the unit
// that carries a share of the estimate.
type trustWords struct{ hits, ess, unit string }

var isTrust = trustWords{"violating runs", "the violating runs' weights are degenerate: effective sample size", "run"}

// problem is the first diagnostic that says an interval cannot be
// trusted, in words, or "": fewer than minHits violating samples, an
// effective number below minESS, or one unit carrying more than maxShare
// of the estimate.
func (w trustWords) problem(hits int, ess, share float64) string {
	switch {
	case hits < minHits:
		return fmt.Sprintf("only %d %s (want %d)", hits, w.hits, minHits)
	case ess < minESS:
		return fmt.Sprintf("%s %.1f (want %d)", w.ess, ess, minESS)
	case share > maxShare:
		return fmt.Sprintf("one %s carries %.0f%% of the estimate (want at most %.0f%%)", w.unit, 100*share, 100*maxShare)
	}
	return ""
}

// initial is the first tilt of a site: a mixture that draws about one
// value per run from a moderately shifted or stretched distribution, to
// break EM's symmetry.
func initial(s site) sim.Tilt {
	t := s.tilt
	q := min(0.5, 1/max(1, s.draws))
	switch s.kind {
	case sim.DrawNormal:
		t.Q, t.Shift = q, 2
	case sim.DrawUniform:
		// Beta(1, 1) is the uniform: the first iteration draws as the
		// model does, and its violating runs say where to go.
		t.Q, t.A, t.B = q, 1, 1
	case sim.DrawExponential:
		t.Q, t.Scale = q, 3
		if !lengthLike(t.Site) {
			// Gaps between arrivals: the danger is in more arrivals, so
			// start with a half of the gaps somewhat shorter.
			t.Q, t.Scale = 0.5, 0.7
		}
	}
	return t
}

// lengthLike tells whether a site draws a duration whose upper tail is
// the danger (a pause, a delay, a critical section): the sites the score
// looks at. Arrival gaps and loss are not: a long gap means fewer pauses.
func lengthLike(site string) bool {
	switch site {
	case "length", "latency", "section", "think":
		return true
	}
	return false
}

// score is how unlikely under the model a run's most extreme draw was:
// over the normal and exponential sites, -log of the chance that the
// largest of that many draws is at least as large. A violating run
// scores +Inf.
func score(s *sample, sites []site) float64 {
	if s.violated {
		return math.Inf(1)
	}
	best := 0.0
	for j, st := range s.sites {
		if st.N == 0 || !(lengthLike(sites[j].tilt.Site) || sites[j].tilt.Site == "rate") {
			continue
		}
		var tail float64
		switch sites[j].kind {
		case sim.DrawNormal:
			tail = 0.5 * math.Erfc(st.Max/math.Sqrt2)
		case sim.DrawExponential:
			tail = math.Exp(-st.Max)
		case sim.DrawUniform:
			// Max is -log(2·min(u, 1-u)), a unit exponential: how near
			// an end of its spread a clock rate was.
			tail = math.Exp(-st.Max)
		default:
			continue
		}
		best = max(best, -math.Log(min(1, float64(st.N)*tail)))
	}
	return best
}

func tiltsOf(sites []site, f func(site) sim.Tilt) []sim.Tilt {
	out := make([]sim.Tilt, len(sites))
	for i, s := range sites {
		out[i] = f(s)
	}
	return out
}

func (e *estimator) is(pilot []sample, sites []site) error {
	opt, res := e.opt, e.res
	tilts := tiltsOf(sites, initial)
	lastHits := 0
	for it := 0; it < ceMaxIter; it++ {
		if res.Runs+opt.CERuns > opt.MaxRuns {
			res.Problems = append(res.Problems, fmt.Sprintf("the budget ran out after %d cross-entropy iterations", it))
			break
		}
		runs, err := e.r.batch(e.ctx, "ce"+strconv.Itoa(it), tilts, 0, opt.CERuns)
		res.Runs += len(runs)
		if err != nil {
			if e.ctx.Err() != nil {
				res.Problems = append(res.Problems, fmt.Sprintf("%s during cross-entropy iteration %d, before importance sampling could start", e.stopped(), it+1))
				return e.isFallback(pilot, e.stopped()+" during cross-entropy")
			}
			return err
		}
		hits := violations(runs)
		lastHits = hits
		final := hits >= finalHits(len(runs))
		tilts = ceUpdate(tilts, sites, runs, final)
		res.CE = append(res.CE, CEStep{Runs: len(runs), Violations: hits, Tilts: tilts})
		e.logf("cross-entropy %d: %d of %d runs violating; next tilt: %s", it+1, hits, len(runs), tiltWords(tilts))
		if final {
			break
		}
	}
	if lastHits == 0 && opt.Method == Auto {
		// The danger score climbs where no tilt found a way: one
		// extreme draw split into levels as it happens.
		res.Method = Splitting
		res.Why += fmt.Sprintf("; cross-entropy reached no violation in %d iterations, so auto switched to multilevel splitting", len(res.CE))
		e.logf("method: splitting, because cross-entropy reached no violation")
		return e.split(pilot)
	}
	if lastHits == 0 {
		res.Problems = append(res.Problems, "cross-entropy never reached a violation: importance sampling has nothing to weigh")
		return e.isFallback(pilot, "no violation under any tilt tried")
	}
	res.Tilts = tilts
	return e.isMain(pilot, tilts)
}

// finalHits is how many violating runs of an iteration of n make it the
// last: the ρ quantile of the score has reached violation (ρn of them),
// or there are enough violating runs (minHits, what a trustworthy
// estimate needs) to fit the tilt on violations alone. The second
// matters where no tilt of the family makes ρ of its runs violate: when
// one large draw must also fall in a window (a holder's pause while it
// holds, early enough in the run), the share of violating runs levels off
// below ρ however far the draws are shifted, and the levels would go on
// re-fitting on runs that did not violate until the iterations ran out.
func finalHits(n int) int {
	return min(int(math.Ceil(ceRho*float64(n))), minHits)
}

// ceUpdate is one cross-entropy step: the elite's weighted EM update of
// each site's tilt, smoothed with the old one.
func ceUpdate(old []sim.Tilt, sites []site, runs []sample, final bool) []sim.Tilt {
	scores := make([]float64, len(runs))
	for i := range runs {
		scores[i] = score(&runs[i], sites)
	}
	nElite := int(math.Ceil(ceRho * float64(len(runs))))
	if final {
		nElite = violations(runs)
	}
	order := sortedScores(scores)[:nElite]
	type acc struct{ w, wn, wHits, wSum, wSum2 float64 }
	accs := make([]acc, len(sites))
	anyHit := violations(runs) > 0
	for _, i := range order {
		w := runs[i].weight()
		if math.IsNaN(w) || math.IsInf(w, 0) {
			continue
		}
		for j, st := range runs[i].sites {
			if sites[j].kind == sim.DrawUniform && anyHit && !runs[i].violated {
				// A uniform's danger may be inside its spread (a crash
				// time in a window), where no score points: only the
				// violating runs say where it is.
				continue
			}
			a := &accs[j]
			a.w += w
			a.wn += w * float64(st.N)
			a.wHits += w * st.Hits
			a.wSum += w * st.Sum
			a.wSum2 += w * st.Sum2
		}
	}
	out := make([]sim.Tilt, len(old))
	for j, t := range old {
		a := accs[j]
		out[j] = t
		if a.wn <= 0 || a.wHits <= 0 {
			continue
		}
		smooth := func(old, upd float64) float64 { return ceSmooth*upd + (1-ceSmooth)*old }
		switch sites[j].kind {
		case sim.DrawNormal:
			out[j].Q = clamp(smooth(t.Q, a.wHits/a.wn), 1e-3, 0.9)
			out[j].Shift = clamp(smooth(t.Shift, a.wSum/a.wHits), -10, 12)
		case sim.DrawExponential:
			out[j].Q = clamp(smooth(t.Q, a.wHits/a.wn), 1e-3, 0.9)
			out[j].Scale = clamp(smooth(t.Scale, a.wSum/a.wHits), 0.2, 200)
		case sim.DrawUniform:
			out[j].Q = clamp(smooth(t.Q, a.wHits/a.wn), 1e-3, 0.9)
			out[j].A, out[j].B = betaStep(t.A, t.B, a.wSum/a.wHits, a.wSum2/a.wHits-(a.wSum/a.wHits)*(a.wSum/a.wHits), smooth)
		case sim.DrawBernoulli:
			p := t.P
			if p <= 0 {
				p = a.wHits / a.wn // the model's own, seen in the elite
			}
			out[j].P = clamp(smooth(p, a.wHits/a.wn), 1e-6, 0.9)
		}
	}
	return out
}

func clamp(x, lo, hi float64) float64 { return min(hi, max(lo, x)) }

// betaStep is the M step of a uniform's Beta(a, b): the Beta with the
// elite's weighted mean m and variance v (moment matching), smoothed with
// the old one in mean and variance. The variance is kept above a floor,
// so that one violating run does not collapse the tilt onto a point.
func betaStep(a, b, m, v float64, smooth func(old, upd float64) float64) (float64, float64) {
	m0 := a / (a + b)
	v0 := a * b / ((a + b) * (a + b) * (a + b + 1))
	m = clamp(smooth(m0, m), 1e-4, 1-1e-4)
	v = smooth(v0, clamp(v, 1e-5, 1))
	v = min(v, 0.9*m*(1-m)) // a Beta's variance is below m(1-m)
	c := m*(1-m)/v - 1
	return clamp(m*c, 0.05, 1e5), clamp((1-m)*c, 0.05, 1e5)
}

func tiltWords(tilts []sim.Tilt) string {
	s := ""
	for i, t := range tilts {
		if i > 0 {
			s += "; "
		}
		s += Describe(t)
	}
	return s
}

// isStats folds weighted indicators in run order.
type isStats struct {
	n           int
	hits        int
	sumY, sumY2 float64 // Σ w·I, Σ (w·I)²
	maxY        float64
	sumW, sumW2 float64
}

func (s *isStats) add(r *sample) {
	s.n++
	w := r.weight()
	s.sumW += w
	s.sumW2 += w * w
	if r.violated {
		s.hits++
		s.sumY += w
		s.sumY2 += w * w
		s.maxY = max(s.maxY, w)
	}
}

func (s *isStats) p() float64 { return s.sumY / float64(s.n) }

// half is the 95% CLT half-width, from the sample variance of w·I.
func (s *isStats) half() float64 {
	if s.n < 2 {
		return math.Inf(1)
	}
	n := float64(s.n)
	p := s.p()
	v := (s.sumY2/n - p*p) * n / (n - 1)
	return z95 * math.Sqrt(max(0, v)/n)
}

func (s *isStats) essHits() float64 { return effective(s.sumY, s.sumY2) }

func (s *isStats) share() float64 { return shareOf(s.maxY, s.sumY) }

// effective is the effective number (Σx)²/Σx² of values whose sum is sum
// and sum of squares sum2 (0 with none).
func effective(sum, sum2 float64) float64 {
	if sum2 == 0 {
		return 0
	}
	return sum * sum / sum2
}

// shareOf is the largest value's share of the sum (0 with none).
func shareOf(largest, sum float64) float64 {
	if sum == 0 {
		return 0
	}
	return largest / sum
}

func (s *isStats) good(rel float64) bool {
	return s.hits >= minHits && s.essHits() >= minESS && s.share() <= maxShare && s.half() <= rel*s.p()
}

func (e *estimator) isMain(pilot []sample, tilts []sim.Tilt) error {
	opt, res := e.opt, e.res
	if done, err := e.mainPhase(IS, tilts, 0, nil); done {
		return err
	}
	var st isStats
	var best *Path
	why := ""
	for why == "" {
		if st.n > 0 && st.good(opt.RelError) {
			why = fmt.Sprintf("±%.0f%% reached", 100*opt.RelError)
			break
		}
		n := min(opt.Chunk, opt.MaxRuns-res.Runs)
		if n <= 0 {
			why = "--max-runs reached"
			break
		}
		more, err := e.r.batch(e.ctx, IS, tilts, st.n, n)
		res.Runs += len(more)
		for i := range more {
			st.add(&more[i])
			if more[i].violated && (best == nil || more[i].logF > best.LogF) {
				best = &Path{Seed: more[i].seed, Tilts: tilts, LogF: more[i].logF}
			}
		}
		if err != nil {
			if why = e.halt(err); why != "" {
				break
			}
			return err
		}
		if st.n == len(more) && st.hits > 0 {
			// The first chunk: state the projected cost.
			p := st.p()
			need := math.Ceil(float64(st.n) * math.Pow(st.half()/(opt.RelError*p), 2))
			e.logf("importance sampling: first %d runs give %.3g; ±%.0f%% projected at about %.3g runs", st.n, p, 100*opt.RelError, need)
			if left := float64(opt.MaxRuns - res.Runs); need > maxProject*left && st.hits >= minHits {
				res.Problems = append(res.Problems, fmt.Sprintf("±%.0f%% is projected at about %.3g runs, far beyond the %v left of the budget", 100*opt.RelError, need, left))
			}
		}
	}
	res.Stopped = why
	res.EstimateRuns, res.Violations = st.n, st.hits
	res.Dominant = best
	res.ESS = st.essHits()
	res.LargestWeightShare = st.share()
	if st.hits == 0 {
		res.Problems = append(res.Problems, "no violation in the importance-sampling runs")
		return e.isFallback(pilot, why)
	}
	p, h := st.p(), st.half()
	res.Probability, res.CILow, res.CIHigh, res.RelError = p, max(0, p-h), p+h, h/p
	if why := isTrust.problem(st.hits, st.essHits(), st.share()); why != "" {
		res.Problems = append(res.Problems, why)
	}
	res.Trustworthy = len(res.Problems) == 0
	if !res.Trustworthy {
		// Widen: the largest weight may be a fluke, or a hint of the
		// mass the tilt misses; the interval makes room for both.
		extra := st.maxY / float64(st.n)
		res.CILow = max(0, res.CILow-extra)
		res.CIHigh += extra
		res.RelError = max(res.Probability-res.CILow, res.CIHigh-res.Probability) / res.Probability
	}
	e.perAcquisition()
	return nil
}

// isFallback is what IS reports when it has no estimate: the pilot's
// plain Monte Carlo, an upper bound if it saw nothing; never trustworthy
// as an answer to the rel-error asked for.
func (e *estimator) isFallback(pilot []sample, why string) error {
	problems := e.res.Problems
	runs := e.res.Runs
	e.finishMC(pilot, why)
	e.res.Runs = runs
	e.res.Method = MC
	e.res.Why += "; importance sampling gave no estimate, so this is the pilot's plain Monte Carlo"
	e.res.Problems = problems
	e.res.Trustworthy = false
	return nil
}
