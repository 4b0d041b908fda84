package sim

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"time"
)

// Stream is one named random stream of a kernel: a PCG source and the
// rand.Rand over it. Its rand.Rand methods draw as a plain stream does; its
// Normal, Exp and Below draws are the tiltable ones: on a kernel with a
// Sampling whose tilts name the stream and the draw's site, they draw from
// the tilted distribution and add the draw's log likelihood ratio to the
// run's (see Sampling).
type Stream struct {
	rand.Rand
	pcg   rand.PCG
	name  string
	smp   *Sampling
	tilts []int // indexes of smp.Tilts that match name; nil: untilted
}

// Name is the stream's name.
func (s *Stream) Name() string { return s.name }

func newStream(seed uint64, name string) *Stream {
	s := &Stream{name: name}
	s.pcg.Seed(StreamSeed(seed, name))
	s.Rand = *rand.New(&s.pcg)
	return s
}

// Tilt is one rule of importance sampling: at the draws of site on the
// streams that Stream names, draw from a tilted distribution instead of the
// model's. It is data, so that a tool can say which inputs it tilted.
//
// Normal and exponential draws are tilted as defensive mixtures: with
// probability Q the draw comes from the shifted (normal: mean Shift) or
// stretched (exponential: mean Scale) distribution, else from the model's
// own. The likelihood ratio of one draw is then at most 1/(1-Q), so a run
// of many draws cannot carry an unbounded weight; Q = 1 is the plain
// exponential tilt. The zero Tilt draws as the model does but still counts
// the site's draws in the run's SiteStats, which is how cross-entropy
// learns a tilt from runs made without one.
type Tilt struct {
	Stream string // a stream name, or a prefix ending in "*" ("pauses:*")
	Site   string // the draw site ("length", "every", "latency", "loss", ...); "" is every site

	Q     float64 // normal and exponential: the mixture weight of the tilted part, in [0, 1]
	Shift float64 // normal: the mean of the tilted part (its standard deviation stays 1)
	Scale float64 // exponential: the mean of the tilted part, in units of the model's mean (> 0)
	P     float64 // Bernoulli: the probability of the event under the tilt, in (0, 1); 0 leaves it
	// Uniform: the tilted part is Beta(A, B) on [0, 1) (A, B > 0; 0 is 1),
	// mixed with weight Q into the model's uniform.
	A, B float64
}

// matches tells whether the rule applies to the stream called name.
func (t *Tilt) matches(name string) bool {
	if p, ok := strings.CutSuffix(t.Stream, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return t.Stream == name
}

// SiteStats is what the tilted draws of one Tilt rule were in a run: the
// statistics cross-entropy updates a tilt from.
type SiteStats struct {
	Kind DrawKind // what the site draws (set at its first draw)
	N    int      // draws
	Max  float64  // the largest standard variate drawn (normal z, unit exponential e); Bernoulli: unused
	// Hits and Sum: for Bernoulli, the events; for mixtures, the
	// responsibility of the tilted part summed over the draws (Hits) and
	// the variates weighted by it (Sum): one E step of EM.
	Hits float64
	Sum  float64
	// Sum2: for uniforms, the squared variates weighted by the
	// responsibility (Beta's moments for the M step).
	Sum2 float64
}

// DrawKind is the distribution of a tiltable draw.
type DrawKind uint8

const (
	DrawNormal      DrawKind = 1 + iota // a standard normal variate (Normal)
	DrawExponential                     // a unit exponential variate (Exp)
	DrawBernoulli                       // an event of a given probability (Below)
	DrawUniform                         // a uniform variate on [0, 1) (Uniform)
)

// Sampling is how one run draws: its tilts, the likelihood ratio it
// accumulates, and a branch point. Give it to a kernel with SetSampling
// before any stream is taken; a Sampling serves one run (its Tilts may be
// shared read-only between runs).
type Sampling struct {
	Tilts []Tilt

	// Branch, if set, re-seeds every stream of the run at virtual time
	// BranchAt from (seed, BranchSalt), and seeds the streams taken later
	// the same way: the run up to BranchAt is the unbranched run's, and
	// what follows is a fresh continuation (splitting's branching by
	// replay). BranchAt must not be negative.
	Branch     bool
	BranchAt   time.Duration
	BranchSalt uint64

	// Branches are more branch points, in order of At (equal times in
	// the order given), each re-seeding every stream from (seed, Salt) as
	// Branch does: a particle of multilevel splitting is its ancestors'
	// branch points and its own, so that replaying the list replays the
	// ancestors' runs up to each point. They are independent of Branch,
	// which fires first at an equal time.
	Branches []BranchPoint

	// LogLR is the natural log of the run's likelihood ratio f/g so far:
	// the sum over the tilted draws actually made of log f(x)/g(x).
	LogLR float64
	// LogF is the sum over the same draws of log f(x), the model's density
	// of the standard variate: how likely the run's tilted inputs were.
	LogF float64
	// Sites are the statistics of each rule of Tilts, by index.
	Sites []SiteStats

	streams  []*Stream
	branched bool
	cur      uint64 // the seed of the streams since the last branch
	seed     uint64
	hooks    []func()
}

// BranchPoint is one branch of a run: at virtual time At every stream is
// re-seeded from the run's seed and Salt.
type BranchPoint struct {
	At   time.Duration
	Salt uint64
}

// AtBranch makes f run at each branch point, after the streams are
// re-seeded: the model redraws there what it drew ahead of time and has
// not yet shown (see model's pause redraw), so that the continuation is
// fresh in those values too.
func (smp *Sampling) AtBranch(f func()) { smp.hooks = append(smp.hooks, f) }

// Branching tells whether the run has a branch point.
func (smp *Sampling) Branching() bool { return smp.Branch || len(smp.Branches) > 0 }

// SetSampling makes the kernel draw as smp says. It must be called before
// the first stream is taken; a kernel without one draws as it always has.
func (k *Kernel) SetSampling(smp *Sampling) {
	if len(k.names) > 0 || k.claimedTaken {
		panic("sim: SetSampling after a stream was taken")
	}
	k.smp = smp
	smp.seed = k.seed
	smp.Sites = make([]SiteStats, len(smp.Tilts))
	if smp.Branch {
		k.Schedule(smp.BranchAt, func(uint64) { smp.branch(smp.branchSeed()) }, 0)
	}
	for _, b := range smp.Branches {
		k.Schedule(b.At, func(uint64) { smp.branch(saltSeed(smp.seed, b.Salt)) }, 0)
	}
}

// Stream returns the kernel's random stream called name. Like Rand, each
// name may be taken once per kernel.
func (k *Kernel) Stream(name string) *Stream {
	k.takeName(name)
	return k.stream(name)
}

func (k *Kernel) stream(name string) *Stream {
	smp := k.smp
	if smp == nil {
		return newStream(k.seed, name)
	}
	seed := k.seed
	if smp.branched {
		seed = smp.cur
	}
	s := newStream(seed, name)
	s.smp = smp
	for i := range smp.Tilts {
		if smp.Tilts[i].matches(name) {
			s.tilts = append(s.tilts, i)
		}
	}
	smp.streams = append(smp.streams, s)
	return s
}

func (smp *Sampling) branchSeed() uint64 { return saltSeed(smp.seed, smp.BranchSalt) }

func saltSeed(seed, salt uint64) uint64 {
	s := seed ^ salt*0x9e3779b97f4a7c15
	return splitmix64(&s)
}

func (smp *Sampling) branch(seed uint64) {
	smp.branched = true
	smp.cur = seed
	for _, s := range smp.streams {
		s.pcg.Seed(StreamSeed(seed, s.name))
	}
	for _, f := range smp.hooks {
		f()
	}
}

// tilt is the rule for site on s and its statistics, or nil. The first
// matching rule wins, as in the order the Tilts were given. It is inlined,
// so an untilted stream (tilts nil, every plain run) pays one length check.
func (s *Stream) tilt(site string) (*Tilt, *SiteStats) {
	for _, i := range s.tilts {
		if t := &s.smp.Tilts[i]; t.Site == "" || t.Site == site {
			return t, &s.smp.Sites[i]
		}
	}
	return nil, nil
}

// fromTilt draws whether a draw under rule t comes from the mixture's
// tilted component, with probability t.Q. It takes a Float64 from the
// stream only for a Q strictly between 0 and 1.
func (s *Stream) fromTilt(t *Tilt) bool { return t.Q > 0 && (t.Q >= 1 || s.Float64() < t.Q) }

// Tilted tells whether some rule applies to the stream's draws.
func (s *Stream) Tilted() bool { return s.tilts != nil }

// Reseeds tells whether the stream's run has a branch point, where the
// stream is re-seeded: a caller that defers draws it owes (the network's
// loss draws) must make them as they come in such a run, since after the
// branch they would come from the new seed.
func (s *Stream) Reseeds() bool { return s.smp != nil && s.smp.Branching() }

const logSqrt2Pi = 0.9189385332046727 // ln √(2π)

// Normal draws a standard normal variate at site: NormFloat64, unless a
// rule tilts the site.
func (s *Stream) Normal(site string) float64 {
	t, st := s.tilt(site)
	if t == nil {
		return s.NormFloat64()
	}
	z := s.NormFloat64()
	if s.fromTilt(t) {
		z += t.Shift
	}
	// f(z)/g(z) with g = (1-Q)φ(z) + Qφ(z-Shift), φ(z-μ)/φ(z) = e^{μz-μ²/2}.
	tilted := t.Q * math.Exp(t.Shift*z-t.Shift*t.Shift/2)
	g := 1 - t.Q + tilted
	s.smp.LogLR -= math.Log(g)
	s.smp.LogF += -z*z/2 - logSqrt2Pi
	st.Kind = DrawNormal
	s.note(st, z, tilted/g)
	return z
}

// Exp draws a unit exponential variate at site: ExpFloat64, unless a rule
// tilts the site.
func (s *Stream) Exp(site string) float64 {
	t, st := s.tilt(site)
	if t == nil {
		return s.ExpFloat64()
	}
	e := s.ExpFloat64()
	scale := t.Scale
	if scale <= 0 {
		scale = 1
	}
	if s.fromTilt(t) {
		e *= scale
	}
	// f(e)/g(e) with g = (1-Q)e^{-e} + (Q/θ)e^{-e/θ}.
	tilted := t.Q / scale * math.Exp(e-e/scale)
	g := 1 - t.Q + tilted
	s.smp.LogLR -= math.Log(g)
	s.smp.LogF -= e
	st.Kind = DrawExponential
	s.note(st, e, tilted/g)
	return e
}

func (s *Stream) note(st *SiteStats, x, resp float64) {
	if st.N == 0 || x > st.Max {
		st.Max = x
	}
	st.N++
	st.Hits += resp
	st.Sum += resp * x
}

// Uniform draws a uniform variate on [0, 1) at site: Float64, unless a
// rule tilts the site, when it comes with probability Q from Beta(A, B)
// instead (a defensive mixture, so one draw's likelihood ratio is at most
// 1/(1-Q)). Max records -log(2·min(u, 1-u)), a unit exponential under the
// model that is large near either end, for cross-entropy's score; Sum and
// Sum2 the tilted part's responsibility-weighted moments.
func (s *Stream) Uniform(site string) float64 {
	t, st := s.tilt(site)
	if t == nil {
		return s.Float64()
	}
	a, b := t.A, t.B
	if a <= 0 {
		a = 1
	}
	if b <= 0 {
		b = 1
	}
	var u float64
	if s.fromTilt(t) {
		u = s.beta(a, b)
	} else {
		u = s.Float64()
	}
	// f(u)/g(u) with f = 1 on [0, 1), g = (1-Q) + Q·Beta(u; a, b).
	tilted := 0.0
	if t.Q > 0 {
		tilted = t.Q * math.Exp(betaLogPDF(u, a, b))
	}
	g := 1 - t.Q + tilted
	s.smp.LogLR -= math.Log(g)
	st.Kind = DrawUniform
	resp := tilted / g
	if e := -math.Log(2 * max(min(u, 1-u), 1e-300)); st.N == 0 || e > st.Max {
		st.Max = e
	}
	st.N++
	st.Hits += resp
	st.Sum += resp * u
	st.Sum2 += resp * u * u
	return u
}

// beta draws from Beta(a, b) as X/(X+Y) of two gamma variates.
func (s *Stream) beta(a, b float64) float64 {
	x, y := s.gamma(a), s.gamma(b)
	u := x / (x + y)
	if !(u < 1) { // x ≫ y rounds to 1, outside [0, 1)
		u = math.Nextafter(1, 0)
	}
	return u
}

// gamma draws from Gamma(a, 1) by Marsaglia and Tsang's method, with
// Gamma(a+1)·U^(1/a) for a < 1.
func (s *Stream) gamma(a float64) float64 {
	if a < 1 {
		return s.gamma(a+1) * math.Pow(s.Float64(), 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		z := s.NormFloat64()
		v := 1 + c*z
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := s.Float64()
		if math.Log(u) < z*z/2+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// betaLogPDF is log Beta(u; a, b) on [0, 1).
func betaLogPDF(u, a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return lab - la - lb + xlogy(a-1, u) + xlogy(b-1, 1-u)
}

// xlogy is x·log y, 0 when x is (log 0 is -Inf, and 0·-Inf is NaN).
func xlogy(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(y)
}

// Below draws a uniform variate on [0, 1) at site for a caller that will
// compare it with p (an event of probability p happens when u < p):
// Float64, unless a rule with P > 0 tilts the site, when the event has
// probability P instead and u is uniform within each side of p, so that
// the caller's comparison needs no change.
func (s *Stream) Below(site string, p float64) float64 {
	t, st := s.tilt(site)
	if t == nil || !(p > 0 && p < 1) {
		return s.Float64()
	}
	u := s.Float64()
	st.Kind = DrawBernoulli
	st.N++
	if t.P <= 0 || t.P >= 1 {
		if u < p {
			st.Hits++
			s.smp.LogF += math.Log(p)
		} else {
			s.smp.LogF += math.Log1p(-p)
		}
		return u
	}
	if u < t.P {
		st.Hits++
		s.smp.LogLR += math.Log(p / t.P)
		s.smp.LogF += math.Log(p)
		return u * p / t.P
	}
	s.smp.LogLR += math.Log((1 - p) / (1 - t.P))
	s.smp.LogF += math.Log1p(-p)
	return p + (u-t.P)*(1-p)/(1-t.P)
}

// Float64 draws as rand.Rand's Float64, the same numbers, straight from
// the stream's PCG: the embedded Rand reaches it through the rand.Source
// interface, a dynamic call on every message's loss draw.
func (s *Stream) Float64() float64 { return float64(s.pcg.Uint64()<<11>>11) / (1 << 53) }

// Uint64N draws as rand.Rand's Uint64N, the same numbers, straight from
// the stream's PCG (see Float64).
func (s *Stream) Uint64N(n uint64) uint64 {
	if n == 0 || ^uint(0)>>32 == 0 || n&(n-1) == 0 {
		return s.Rand.Uint64N(n)
	}
	hi, lo := bits.Mul64(s.pcg.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.pcg.Uint64(), n)
		}
	}
	return hi
}
