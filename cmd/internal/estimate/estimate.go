package estimate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
	"github.com/redlocksim/redlocksim/sim"
)

// Methods (and Splitting, splitting.go).
const (
	Auto = "auto"
	IS   = "is"
	MC   = "mc"
)

// z95 is the standard normal quantile of a two-sided 95% interval.
const z95 = 1.959963984540054

// Options are one estimate's inputs and budget.
type Options struct {
	Plan      *model.Plan
	Property  Property
	Method    string  // Auto, IS or MC
	RelError  float64 // the 95% interval's half-width over the estimate to stop at, in (0, 1)
	MaxRuns   int     // all runs, pilot and cross-entropy included
	MaxTime   time.Duration
	Seed      uint64
	Workers   int
	MaxEvents uint64 // each run's budget (0: the model's default)

	// Pilot is the plain runs made first (0: 1000); CERuns the runs of
	// each cross-entropy iteration (0: 1000); Chunk the runs between two
	// looks at the stopping rule (0: 500).
	Pilot, CERuns, Chunk int
	// Particles is splitting's particles per repetition (0: 100).
	Particles int

	Log io.Writer // progress and the stated cost, or nil

	// Shard, if set, makes only this shard's share of the main phase
	// (Result.ShardFile); Merge, if given, are the files of every shard,
	// which the main phase folds instead of making runs. Inputs names the
	// scenario (its hash and data files' hashes) in the shard files'
	// digest. See shard.go.
	Shard  sweep.Shard
	Merge  []*ShardFile
	Inputs string
	// AllRuns makes a shard make its chunks up to the whole budget rather
	// than up to the share projected from the lead (shard.go).
	AllRuns bool
}

// cheapMC: auto prefers plain Monte Carlo when it needs at most this many
// pilots' worth of runs; it has no diagnostics to fail.
const cheapMC = 20

// MinRuns is the smallest --max-runs an estimate starts with.
const MinRuns = 1000

// Result is an estimate and how far to trust it.
type Result struct {
	Property    string
	Method      string // the estimator of Probability: "mc" or "is"
	Why         string // why that method
	Probability float64
	CILow       float64
	CIHigh      float64
	RelError    float64 // the interval's half-width over the estimate (+Inf with none seen)
	// UpperBound: no violation was seen; Probability is 0 and CIHigh a
	// one-sided 97.5% upper bound.
	UpperBound bool

	Runs         int // every run made
	EstimateRuns int // the runs Probability comes from
	Violations   int // violating runs among them
	ESS          float64
	// LargestWeightShare is the largest violating run's share of the
	// estimate (1/Violations at best, for plain Monte Carlo).
	LargestWeightShare float64

	AcquisitionsPerRun float64 // the mean, over the plain pilot runs
	PerAcquisition     float64
	PerAcquisitionLow  float64
	PerAcquisitionHigh float64

	// Trustworthy is false when the diagnostics say the interval cannot
	// be believed; Problems say why.
	Trustworthy bool
	Problems    []string
	Stopped     string // why the estimate stopped
	Tilts       []sim.Tilt
	CE          []CEStep
	Dominant    *Path
	// Splitting says what splitting did, when it was the method.
	Splitting  *SplitInfo
	Elapsed    time.Duration
	RunsPerSec float64
	ShardFile  *ShardFile // a shard's runs (Options.Shard), to write
}

// CEStep is one cross-entropy iteration: its runs' violations and the
// tilt it learnt.
type CEStep struct {
	Runs, Violations int
	Tilts            []sim.Tilt
}

// Path is the most likely violating run seen: the largest density of its
// tilted inputs under the model among the violating runs.
type Path struct {
	Seed  uint64
	Tilts []sim.Tilt // the run's tilts: replaying it needs them
	LogF  float64
	// Pauses are the random pauses of a splitting particle's run, whose
	// branches drew them (a plain replay of the seed would not).
	Pauses []model.RandomPause
	// alts are the next paths to pin should this one not replay plainly
	// (splitting's next mildest violating particles; see Pin).
	alts []*Path
}

// SplitInfo is what splitting did: its repetitions of Particles
// particles, and the levels they climbed in all.
type SplitInfo struct {
	Particles, Repetitions, Levels int
}

// ErrBadInput marks an Options error: the message says what is wrong.
var ErrBadInput = errors.New("bad input")

func badf(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBadInput}, a...)...)
}

// candidates are the tiltable sites of the model, one rule per kind of
// stream and site; a pilot run counts what each draws.
func candidates() []sim.Tilt {
	return []sim.Tilt{
		{Stream: "pauses:*", Site: "length"},
		{Stream: "pauses:*", Site: "every"},
		{Stream: "net:*", Site: "latency"},
		{Stream: "net:*", Site: "loss"},
		{Stream: "actor:*", Site: "section"},
		{Stream: "actor:*", Site: "think"},
		{Stream: "clock:*", Site: "rate"},
		{Stream: "fault:*", Site: "at"},
		{Stream: "fault:*", Site: "for"},
	}
}

// Describe says which input a rule tilts, in words.
func Describe(t sim.Tilt) string {
	what := map[string]string{
		"length": "pause lengths", "every": "pause arrivals", "latency": "network latency",
		"loss": "message loss", "section": "critical sections", "think": "think times",
		"rate": "clock rates", "at": "fault times", "for": "fault lengths",
	}[t.Site]
	switch {
	case t.A > 0 || t.B > 0:
		return fmt.Sprintf("%s (%s): %.3g of draws from Beta(%.3g, %.3g) on the spread", what, t.Stream, t.Q, t.A, t.B)
	case t.P > 0:
		return fmt.Sprintf("%s (%s): probability %.3g", what, t.Stream, t.P)
	case t.Scale > 0:
		return fmt.Sprintf("%s (%s): %.3g of draws from an exponential with %.3g× the mean", what, t.Stream, t.Q, t.Scale)
	case t.Q > 0:
		return fmt.Sprintf("%s (%s): %.3g of draws shifted by %+.3g σ", what, t.Stream, t.Q, t.Shift)
	}
	return fmt.Sprintf("%s (%s): untilted", what, t.Stream)
}

// Estimate estimates opt.Property's probability per run. The error is
// ErrBadInput for options it refuses, a run's error (a budget, a panic as
// *sweeprun.InternalError) otherwise; an interruption is not an error:
// the result says it stopped, with what it had.
func Estimate(ctx context.Context, opt Options) (*Result, error) {
	start := time.Now()
	if err := opt.check(); err != nil {
		return nil, err
	}
	if opt.MaxTime > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeout(ctx, opt.MaxTime)
		defer cancel()
	}
	e := &estimator{opt: opt, ctx: ctx, r: &runner{plan: opt.Plan, property: opt.Property, maxEvents: opt.MaxEvents, workers: opt.Workers, seed: opt.Seed}}
	e.res = &Result{Property: opt.Property.String()}
	if len(opt.Merge) > 0 {
		var err error
		if e.merge, err = checkShards(opt.Merge); err != nil {
			return nil, err
		}
		e.r.merge = e.merge
	}
	err := e.run()
	if err == nil {
		err = e.finishShards()
	}
	e.res.Elapsed = time.Since(start)
	if err != nil {
		return nil, err
	}
	return e.res, nil
}

func (o *Options) check() error {
	if !(o.RelError > 0 && o.RelError < 1) {
		return badf("--rel-error must be in (0, 1), got %v", o.RelError)
	}
	if o.Pilot == 0 {
		o.Pilot = 1000
	}
	if o.CERuns == 0 {
		o.CERuns = 1000
	}
	if o.Chunk == 0 {
		o.Chunk = 500
	}
	if o.MaxRuns < MinRuns || o.MaxRuns < o.Pilot {
		return badf("--max-runs %d is too small to start: the pilot alone makes %d plain runs (want at least %d)", o.MaxRuns, o.Pilot, max(MinRuns, o.Pilot))
	}
	if o.MaxTime < 0 {
		return badf("--max-time must not be negative, got %v", o.MaxTime)
	}
	switch o.Method {
	case Auto, IS, MC, Splitting:
	default:
		return badf("unknown --method %q; want auto, is, splitting or mc", o.Method)
	}
	if why := o.Property.CanViolate(o.Plan.Config()); why != "" {
		return badf("the scenario cannot violate %v: %s", o.Property, why)
	}
	if o.Workers < 1 {
		o.Workers = 1
	}
	if !o.Shard.IsZero() && len(o.Merge) > 0 {
		return badf("--shard and --merge go apart: shards make runs, the merge folds them")
	}
	return nil
}

type estimator struct {
	opt Options
	ctx context.Context
	r   *runner
	res *Result

	merge       *shards // the shard files of a merge
	mainStarted bool    // the main phase began (mainPhase)

	splitPlain []plainBlock // the first particles of splitting's repetitions: plain runs
}

func (e *estimator) logf(format string, a ...any) {
	if e.opt.Log != nil {
		fmt.Fprintf(e.opt.Log, format+"\n", a...)
	}
}

// stopped says why ctx is done.
func (e *estimator) stopped() string {
	if errors.Is(e.ctx.Err(), context.DeadlineExceeded) {
		return "--max-time reached"
	}
	return "interrupted"
}

func (e *estimator) run() error {
	opt, res := e.opt, e.res
	// The pilot: plain runs (zero tilts draw as the model does) that
	// count each site's draws and time a run.
	t0 := time.Now()
	pilot, err := e.r.batch(e.ctx, MC, candidates(), 0, opt.Pilot)
	res.Runs += len(pilot)
	if err != nil && e.ctx.Err() == nil {
		return err
	}
	perRun := time.Since(t0) / time.Duration(max(1, len(pilot)))
	if len(pilot) > 0 {
		res.RunsPerSec = float64(len(pilot)) / time.Since(t0).Seconds()
	}
	acq := 0
	k0 := 0
	for i := range pilot {
		acq += pilot[i].acq
		if pilot[i].violated {
			k0++
		}
	}
	if len(pilot) > 0 {
		res.AcquisitionsPerRun = float64(acq) / float64(len(pilot))
	}
	if len(pilot) < opt.Pilot {
		res.Method, res.Why = MC, "stopped during the pilot"
		e.finishMC(pilot, e.stopped())
		return nil
	}
	sites := tiltable(pilot)
	needMC := math.Inf(1)
	if k0 > 0 {
		p := float64(k0) / float64(len(pilot))
		needMC = mcRuns(p, opt.RelError)
	} else {
		// At best p is the pilot's upper bound.
		needMC = mcRuns(upperZero(len(pilot)), opt.RelError)
	}
	e.logf("pilot: %d plain runs in %v (%.0f runs/s with %d workers), %d violating; plain Monte Carlo to ±%.0f%% needs %s runs (%s)",
		len(pilot), time.Since(t0).Round(time.Millisecond), res.RunsPerSec, opt.Workers, k0, 100*opt.RelError, countWords(needMC, k0 == 0), timeWords(needMC, perRun))
	e.logf("budget: at most %d runs (%s)%s", opt.MaxRuns, timeWords(float64(opt.MaxRuns), perRun), maxTimeWords(opt.MaxTime))

	method, why := opt.Method, "asked for with --method"
	if method == Auto {
		switch {
		case k0 > 0 && needMC <= float64(opt.MaxRuns) && (needMC <= cheapMC*float64(opt.Pilot) || len(sites) == 0):
			method, why = MC, fmt.Sprintf("the pilot saw %d violating runs in %d, so plain Monte Carlo reaches ±%.0f%% in about %.3g runs", k0, len(pilot), 100*opt.RelError, needMC)
		case len(sites) > 0 && k0 == 0:
			method, why = IS, fmt.Sprintf("the pilot saw no violation in %d runs, so plain Monte Carlo needs at least %.3g runs and perhaps far more; importance sampling tilts %s", len(pilot), needMC, siteNames(sites))
		case len(sites) > 0:
			method, why = IS, fmt.Sprintf("plain Monte Carlo would need about %.3g runs (budget %d, and auto takes it only within %d pilots' worth); importance sampling tilts %s", needMC, opt.MaxRuns, cheapMC, siteNames(sites))
		default:
			method, why = Splitting, fmt.Sprintf("plain Monte Carlo would need %s runs, and the scenario has no random input that can be tilted (tiltable: lognormal or exponential pauses, latencies, critical sections, think times; message loss); multilevel splitting branches runs on the danger score, whatever their randomness", countWords(needMC, k0 == 0))
		}
	}
	res.Method, res.Why = method, why
	if method == IS && len(sites) == 0 {
		return badf("--method is: the scenario has no random input that can be tilted (lognormal or exponential pauses, latencies, critical sections or think times, message loss, clock rate spreads, or fault times with at_spread or for_spread)")
	}
	if method == MC && opt.Method == MC && needMC > float64(opt.MaxRuns) {
		return badf("plain Monte Carlo to ±%.0f%% needs %s runs (%s), more than --max-runs %d allows; raise --max-runs or --rel-error, or use --method is",
			100*opt.RelError, countWords(needMC, k0 == 0), timeWords(needMC, perRun), opt.MaxRuns)
	}
	e.logf("method: %s, because %s", method, why)
	switch method {
	case MC:
		return e.mc(pilot)
	case Splitting:
		return e.split(pilot)
	}
	return e.is(pilot, sites)
}

// mcRuns is how many plain runs reach a 95% half-width of rel·p.
func mcRuns(p, rel float64) float64 {
	return math.Ceil((z95 / rel) * (z95 / rel) * (1 - p) / p)
}

// upperZero is the exact one-sided 97.5% upper bound on p with no event
// in n runs, 1 - 0.025^(1/n), about 3.69/n.
func upperZero(n int) float64 {
	return -math.Expm1(math.Log(0.025) / float64(n))
}

// clopperPearson is the exact 95% interval of k events in n runs.
func clopperPearson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(0.025)
	}
	hi = 1
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(0.975)
	}
	return lo, hi
}

func (e *estimator) mc(runs []sample) error {
	opt := e.opt
	if done, err := e.mainPhase(MC, candidates(), len(runs), runs); done {
		return err
	}
	why := ""
	for why == "" {
		k := violations(runs)
		if k > 0 {
			lo, hi := clopperPearson(k, len(runs))
			p := float64(k) / float64(len(runs))
			if max(p-lo, hi-p)/p <= opt.RelError {
				why = fmt.Sprintf("±%.0f%% reached", 100*opt.RelError)
				break
			}
		}
		n := min(opt.Chunk, opt.MaxRuns-e.res.Runs)
		if n <= 0 {
			why = "--max-runs reached"
			break
		}
		more, err := e.r.batch(e.ctx, MC, candidates(), len(runs), n)
		e.res.Runs += len(more)
		runs = append(runs, more...)
		if err != nil {
			if why = e.halt(err); why != "" {
				break
			}
			return err
		}
	}
	e.finishMC(runs, why)
	return nil
}

func violations(runs []sample) int {
	k := 0
	for i := range runs {
		if runs[i].violated {
			k++
		}
	}
	return k
}

func (e *estimator) finishMC(runs []sample, stopped string) {
	res := e.res
	k, n := violations(runs), len(runs)
	res.Stopped, res.EstimateRuns, res.Violations = stopped, n, k
	res.CILow, res.CIHigh = clopperPearson(k, n)
	res.ESS = float64(n)
	res.Trustworthy = true
	if k == 0 {
		res.UpperBound = true
		res.RelError = math.Inf(1)
		if n > 0 {
			res.CIHigh = upperZero(n)
		}
	} else {
		res.Probability = float64(k) / float64(n)
		res.RelError = max(res.Probability-res.CILow, res.CIHigh-res.Probability) / res.Probability
		res.LargestWeightShare = 1 / float64(k)
	}
	res.Dominant = dominant(runs, candidates())
	e.perAcquisition()
}

func (e *estimator) perAcquisition() {
	res := e.res
	if res.AcquisitionsPerRun <= 0 {
		return
	}
	res.PerAcquisition = res.Probability / res.AcquisitionsPerRun
	res.PerAcquisitionLow = res.CILow / res.AcquisitionsPerRun
	res.PerAcquisitionHigh = res.CIHigh / res.AcquisitionsPerRun
}

// dominant is the violating run with the largest log f, the first of
// equals.
func dominant(runs []sample, tilts []sim.Tilt) *Path {
	var best *Path
	for i := range runs {
		if runs[i].violated && (best == nil || runs[i].logF > best.LogF) {
			best = &Path{Seed: runs[i].seed, Tilts: tilts, LogF: runs[i].logF}
		}
	}
	return best
}

// tiltable are the candidate rules whose site drew in some pilot run,
// with the kind of draw.
func tiltable(pilot []sample) []site {
	var out []site
	for j, t := range candidates() {
		s := site{tilt: t}
		for i := range pilot {
			st := pilot[i].sites[j]
			if st.N > 0 {
				s.kind = st.Kind
				s.draws += float64(st.N)
			}
		}
		if s.draws > 0 {
			s.draws /= float64(len(pilot))
			out = append(out, s)
		}
	}
	return out
}

// site is one tiltable input: its rule, its kind of draw, and its mean
// draws per plain run.
type site struct {
	tilt  sim.Tilt
	kind  sim.DrawKind
	draws float64
}

func siteNames(sites []site) string {
	var names []string
	for _, s := range sites {
		names = append(names, strings.SplitN(Describe(s.tilt), " (", 2)[0])
	}
	return strings.Join(names, ", ")
}

func countWords(n float64, atLeast bool) string {
	s := fmt.Sprintf("%.3g", n)
	if math.IsInf(n, 1) {
		s = "unboundedly many"
	}
	if atLeast {
		return "at least " + s
	}
	return "about " + s
}

func timeWords(n float64, perRun time.Duration) string {
	t := n * perRun.Seconds()
	switch {
	case math.IsInf(t, 1):
		return "forever"
	case t < 120:
		return fmt.Sprintf("%.0f s at the pilot's pace", math.Ceil(t))
	case t < 2*3600:
		return fmt.Sprintf("%.0f min at the pilot's pace", t/60)
	case t < 2*86400:
		return fmt.Sprintf("%.1f hours at the pilot's pace", t/3600)
	}
	return fmt.Sprintf("%.3g days at the pilot's pace", t/86400)
}

func maxTimeWords(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf(", or %v (--max-time), whichever comes first", d)
}

// sortedScores orders run indexes by score, highest first, ties by index.
func sortedScores(scores []float64) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx
}
