package estimate

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/redlocksim/redlocksim/scenarios/sweep"
	"github.com/redlocksim/redlocksim/sim"
)

// Sharding an estimate (--shard K/N, then --merge), so that a Slurm array
// can make its runs.
//
// An estimate is a prefix and a main phase. The prefix (the pilot, the
// choice of method, the cross-entropy iterations that choose the tilt) is
// deterministic and small; every shard makes it, and so does the merge,
// so that all of them hold the same tilt without talking to each other
// (a digest of the prefix's decisions, in every shard file, proves it).
// The main phase is the long one: its runs are cut into the chunks
// between two looks at the stopping rule, and chunk c belongs to shard
// c mod N + 1. A shard cannot see the others' runs, so it cannot stop at
// ±R. It makes its chunks in order until its own runs, taken as 1/N of
// what all shards made by then, say that the stopping rule would be met
// with shareMargin times the runs it needs (projected, below), or up to
// the budget (--max-runs; always with AllRuns), and writes them: a
// deterministic function of its own runs. The merge makes the prefix
// again, then folds the shards' runs in run order with the unsharded
// estimator's own loop, which stops where one machine would have stopped:
// its output is the unsharded output, byte for byte, as long as that stop
// comes before the first shard's end. A shard stopped early (its
// --max-time, a signal) leaves a gap, and so does a shard whose projection
// the estimate outran; the merge stops at the gap, and says which.

// ShardFile is what one shard made of an estimate's main phase.
type ShardFile struct {
	Shard  sweep.Shard
	Digest string // the inputs and the prefix's decisions
	Phase  string // the main phase (MC or IS), "" when the estimate had none
	From   int    // the main phase's first run index
	Budget int    // the main phase's runs in all shards, at most
	// Share is where the shard's runs end in the main phase: it made its
	// chunks below Share (Budget, or the end of the chunk its projection
	// stopped after).
	Share int
	Chunk int
	// Complete: the shard made all of its share (false: --max-time or a
	// signal stopped it).
	Complete bool
	Runs     []ShardRun // ascending Index
	// Reps are a splitting shard's repetitions (Phase Splitting, whose
	// rows are repetitions: From 0, Chunk 1), ascending Index.
	Reps []ShardRep
}

// ShardRep is one repetition of splitting: what the merge folds of it.
// Its failure-path candidates are only their mildness and place; the
// merge makes again the repetitions of those it picks.
type ShardRep struct {
	Index     int
	P         float64
	Hits      int
	Spends    []int     // the runs of each step (rep.spends)
	PlainHits []int     // rep.plainHits
	Mildest   []float64 // its candidates' mildness, mildest first
	Pos       []int     // and their places (cand.pos)
}

// ShardRun is one main-phase run: what the estimator folds of it.
type ShardRun struct {
	Index    int
	Violated bool
	Acq      int
	LogLR    float64
	LogF     float64
}

// owner is the shard (1-based) of main-phase run i.
func (f *ShardFile) owner(i int) int { return sweep.Of((i-f.From)/f.Chunk, f.Shard.N) }

// Count is how many main-phase runs the shard makes: those it owns in
// the share.
func (f *ShardFile) Count() int {
	n := 0
	for c := 0; c*f.Chunk < f.Share; c++ {
		if sweep.Of(c, f.Shard.N) == f.Shard.K {
			n += min(f.Chunk, f.Share-c*f.Chunk)
		}
	}
	return n
}

const shardMagic = "# redlocksim estimate shard "

// WriteTo writes the shard file: a header line, then one CSV row per run,
// the floats in the shortest form that reads back exactly.
func (f *ShardFile) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%sdigest=%s shard=%s phase=%s from=%d budget=%d share=%d chunk=%d complete=%t\n",
		shardMagic, f.Digest, f.Shard, orNone(f.Phase), f.From, f.Budget, f.Share, f.Chunk, f.Complete)
	if f.Phase == Splitting {
		fmt.Fprintln(bw, splitHeader)
		for _, r := range f.Reps {
			ms := make([]string, len(r.Mildest))
			for i, m := range r.Mildest {
				ms[i] = strconv.FormatFloat(m, 'g', -1, 64) + ":" + strconv.Itoa(r.Pos[i])
			}
			fmt.Fprintf(bw, "%d,%s,%d,%s,%s,%s\n", r.Index, strconv.FormatFloat(r.P, 'g', -1, 64), r.Hits,
				ints(r.Spends), ints(r.PlainHits), strings.Join(ms, " "))
		}
		return 0, bw.Flush()
	}
	fmt.Fprintln(bw, "run,violated,acquisitions,log_lr,log_f")
	for _, r := range f.Runs {
		v := 0
		if r.Violated {
			v = 1
		}
		fmt.Fprintf(bw, "%d,%d,%d,%s,%s\n", r.Index, v, r.Acq,
			strconv.FormatFloat(r.LogLR, 'g', -1, 64), strconv.FormatFloat(r.LogF, 'g', -1, 64))
	}
	return 0, bw.Flush()
}

// splitHeader is a splitting shard file's header row: a repetition a
// row, its lists space-separated, a candidate as mildness:place.
const splitHeader = "repetition,estimate,hits,spends,plain_violating,candidates"

func ints(a []int) string {
	s := make([]string, len(a))
	for i, v := range a {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, " ")
}

// readSplitRow reads one row of a splitting shard file.
func readSplitRow(line string) (ShardRep, error) {
	c := strings.Split(line, ",")
	if len(c) != 6 {
		return ShardRep{}, fmt.Errorf("want 6 cells (%s), got %d", splitHeader, len(c))
	}
	var r ShardRep
	var errs []error
	atoi := func(s string) int {
		v, err := strconv.Atoi(s)
		errs = append(errs, err)
		return v
	}
	list := func(s string) []int {
		var out []int
		for _, f := range strings.Fields(s) {
			out = append(out, atoi(f))
		}
		return out
	}
	r.Index = atoi(c[0])
	var err error
	r.P, err = strconv.ParseFloat(c[1], 64)
	errs = append(errs, err)
	r.Hits = atoi(c[2])
	r.Spends, r.PlainHits = list(c[3]), list(c[4])
	for _, f := range strings.Fields(c[5]) {
		m, pos, ok := strings.Cut(f, ":")
		if !ok {
			errs = append(errs, fmt.Errorf("candidate %q is not mildness:place", f))
			continue
		}
		v, err := strconv.ParseFloat(m, 64)
		errs = append(errs, err)
		r.Mildest, r.Pos = append(r.Mildest, v), append(r.Pos, atoi(pos))
	}
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	if len(r.Spends) == 0 || r.P < 0 || r.Hits < 0 {
		return r, fmt.Errorf("a repetition has its plain particles' runs, an estimate and hits of at least 0")
	}
	return r, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// ReadShardFile reads a file WriteTo wrote; name is for its errors.
func ReadShardFile(r io.Reader, name string) (*ShardFile, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	bad := func(line int, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	if !sc.Scan() {
		return nil, bad(1, "empty: not an estimate shard file")
	}
	rest, ok := strings.CutPrefix(sc.Text(), shardMagic)
	if !ok {
		return nil, bad(1, "not an estimate shard file: the first line should start %q (estimate --shard K/N --shard-out FILE writes one)", strings.TrimSpace(shardMagic))
	}
	kv := map[string]string{}
	for _, fld := range strings.Fields(rest) {
		k, v, _ := strings.Cut(fld, "=")
		kv[k] = v
	}
	f := &ShardFile{Digest: kv["digest"], Phase: kv["phase"]}
	if f.Phase == "none" {
		f.Phase = ""
	}
	var errs []error
	num := func(k string) int {
		n, err := strconv.Atoi(kv[k])
		errs = append(errs, err)
		return n
	}
	f.From, f.Budget, f.Share, f.Chunk = num("from"), num("budget"), num("share"), num("chunk")
	var err error
	f.Complete, err = strconv.ParseBool(kv["complete"])
	errs = append(errs, err)
	k, n, _ := strings.Cut(kv["shard"], "/")
	f.Shard.K, f.Shard.N = num2(k, &errs), num2(n, &errs)
	if errors.Join(errs...) != nil || f.Digest == "" || f.Shard.N < 1 || f.Shard.K < 1 || f.Shard.K > f.Shard.N ||
		f.Chunk < 1 || f.Budget < 0 || f.Share < 0 || f.Share > f.Budget || f.From < 0 || !slices.Contains([]string{"", MC, IS, Splitting}, f.Phase) {
		return nil, bad(1, "malformed header %q", sc.Text())
	}
	if f.Phase == Splitting {
		return readSplitShard(sc, f, bad)
	}
	if !sc.Scan() || sc.Text() != "run,violated,acquisitions,log_lr,log_f" {
		return nil, bad(2, "want the header row run,violated,acquisitions,log_lr,log_f")
	}
	line := 2
	for sc.Scan() {
		line++
		c := strings.Split(sc.Text(), ",")
		if len(c) != 5 {
			return nil, bad(line, "want 5 cells (run,violated,acquisitions,log_lr,log_f), got %d", len(c))
		}
		var r ShardRun
		var e [5]error
		r.Index, e[0] = strconv.Atoi(c[0])
		v, e1 := strconv.Atoi(c[1])
		e[1] = e1
		if v != 0 && v != 1 {
			e[1] = errors.New("violated is 0 or 1")
		}
		r.Violated = v == 1
		r.Acq, e[2] = strconv.Atoi(c[2])
		r.LogLR, e[3] = strconv.ParseFloat(c[3], 64)
		r.LogF, e[4] = strconv.ParseFloat(c[4], 64)
		if err := errors.Join(e[:]...); err != nil {
			return nil, bad(line, "%v", err)
		}
		if r.Index < f.From || r.Index >= f.From+f.Share || f.owner(r.Index) != f.Shard.K {
			return nil, bad(line, "run %d is not one of shard %s's runs", r.Index, f.Shard)
		}
		if len(f.Runs) > 0 && r.Index <= f.Runs[len(f.Runs)-1].Index {
			return nil, bad(line, "run %d is out of order", r.Index)
		}
		f.Runs = append(f.Runs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if f.Complete && len(f.Runs) != f.Count() {
		return nil, fmt.Errorf("%s: says it is complete but has %d of its %d runs", name, len(f.Runs), f.Count())
	}
	return f, nil
}

// readSplitShard reads the rows of a splitting shard file after its
// first line.
func readSplitShard(sc *bufio.Scanner, f *ShardFile, bad func(int, string, ...any) error) (*ShardFile, error) {
	if !sc.Scan() || sc.Text() != splitHeader {
		return nil, bad(2, "want the header row %s", splitHeader)
	}
	line := 2
	for sc.Scan() {
		line++
		r, err := readSplitRow(sc.Text())
		if err != nil {
			return nil, bad(line, "%v", err)
		}
		if r.Index < 0 || f.owner(r.Index) != f.Shard.K {
			return nil, bad(line, "repetition %d is not one of shard %s's", r.Index, f.Shard)
		}
		if len(f.Reps) > 0 && r.Index <= f.Reps[len(f.Reps)-1].Index {
			return nil, bad(line, "repetition %d is out of order", r.Index)
		}
		f.Reps = append(f.Reps, r)
	}
	if err := sc.Err(); err != nil {
		return nil, bad(line, "%v", err)
	}
	return f, nil
}

func num2(s string, errs *[]error) int {
	n, err := strconv.Atoi(s)
	*errs = append(*errs, err)
	return n
}

// shards is the merge's view of all the shard files: every run of the
// main phase that some shard made.
type shards struct {
	files []*ShardFile // by K-1
	runs  map[int]*ShardRun
	reps  map[int]*ShardRep // a splitting estimate's repetitions
	n     int               // and their particles
}

// checkShards checks that files are every shard of one estimate, once.
func checkShards(files []*ShardFile) (*shards, error) {
	if len(files) == 0 {
		return nil, badf("--merge: no shard files")
	}
	n := files[0].Shard.N
	s := &shards{files: make([]*ShardFile, n), runs: map[int]*ShardRun{}, reps: map[int]*ShardRep{}}
	for _, f := range files {
		h := files[0]
		if f.Shard.N != n || f.Digest != h.Digest || f.Phase != h.Phase || f.From != h.From || f.Budget != h.Budget || f.Chunk != h.Chunk {
			return nil, badf("--merge: shard %s and shard %s are of different estimates (their digests, shard counts or main phases differ)", h.Shard, f.Shard)
		}
		if s.files[f.Shard.K-1] != nil {
			return nil, badf("--merge: shard %s is given twice", f.Shard)
		}
		s.files[f.Shard.K-1] = f
		for i := range f.Runs {
			s.runs[f.Runs[i].Index] = &f.Runs[i]
		}
		for i := range f.Reps {
			s.reps[f.Reps[i].Index] = &f.Reps[i]
		}
	}
	for k, f := range s.files {
		if f == nil {
			return nil, badf("--merge: shard %d/%d is missing", k+1, n)
		}
	}
	return s, nil
}

// gapError is a main-phase run that no shard made: past the share
// (outran), or in it (a shard stopped early).
type gapError struct {
	run, shard, of int
	share          int  // the share, if the run is past it
	rep            bool // run is a splitting repetition
}

func (g *gapError) Error() string {
	if g.share > 0 {
		return fmt.Sprintf("shard %d/%d stopped where its runs projected the estimate's stop (before run %d of the main phase), and the estimate had not stopped; this is what the runs before give, not what one machine prints: make the shards again with --all-runs", g.shard, g.of, g.share)
	}
	what := "run"
	if g.rep {
		what = "repetition"
	}
	return fmt.Sprintf("shard %d/%d stopped before %s %d of the main phase (its --max-time or a signal)", g.shard, g.of, what, g.run)
}

// repetition is splitting's repetition i in a merge, from its shard's
// row, with room runs left: as one machine would have made it, it is
// unfinished when its steps do not all fit, and then counts the runs of
// the steps that do.
func (s *shards) repetition(i, room int) (rep, bool, error) {
	row, ok := s.reps[i]
	if !ok {
		f := s.files[0]
		if room < s.n {
			return rep{}, false, nil // its plain particles would not fit
		}
		return rep{}, false, &gapError{run: i, shard: f.owner(i), of: f.Shard.N, rep: true}
	}
	out := rep{p: row.P, hits: row.Hits, iterations: len(row.Spends) - 1, plainHits: row.PlainHits}
	for _, sp := range row.Spends {
		if out.runs+sp > room {
			return out, false, nil
		}
		out.runs += sp
		out.spends = append(out.spends, sp)
	}
	for j, m := range row.Mildest {
		out.cands = append(out.cands, cand{mildest: m, rep: i, pos: row.Pos[j]})
	}
	return out, true, nil
}

// serve is batch in a merge: runs from..from+n-1 of the main phase from
// the shard files, up to the first that no shard made.
func (s *shards) serve(r *runner, phase string, from, n int) ([]sample, error) {
	out := make([]sample, 0, n)
	for i := from; i < from+n; i++ {
		run, ok := s.runs[i]
		if !ok {
			f := s.files[s.files[0].owner(i)-1]
			g := &gapError{run: i, shard: f.Shard.K, of: f.Shard.N}
			if i >= f.From+f.Share {
				g.share = f.Share
			}
			return out, g
		}
		out = append(out, sample{seed: runSeed(r.seed, phase, i), violated: run.Violated, logLR: run.LogLR, logF: run.LogF, acq: run.Acq})
	}
	return out, nil
}

// halt says why a main phase stops on err, or "" if err is a failure: a
// done context (--max-time, a signal) or, in a merge, a shard's gap.
func (e *estimator) halt(err error) string {
	if e.ctx.Err() != nil {
		return e.stopped()
	}
	if g := (*gapError)(nil); errors.As(err, &g) {
		return g.Error()
	}
	return ""
}

// digest is the hash of what every shard and the merge must agree on: the
// options that decide the runs and the prefix's decisions so far.
func (e *estimator) digest() string {
	o, res := e.opt, e.res
	h := sha256.New()
	fmt.Fprintf(h, "redlocksim estimate shard v1\ninputs %q\nproperty %v method %s rel %v max-runs %d seed %d max-events %d pilot %d ce %d chunk %d\n",
		o.Inputs, o.Property, o.Method, o.RelError, o.MaxRuns, o.Seed, o.MaxEvents, o.Pilot, o.CERuns, o.Chunk)
	fmt.Fprintf(h, "method %s why %q runs %d acq %v problems %q\n", res.Method, res.Why, res.Runs, res.AcquisitionsPerRun, res.Problems)
	if res.Method == Splitting {
		fmt.Fprintf(h, "particles %d\n", o.Particles)
	}
	for _, t := range res.Tilts {
		fmt.Fprintf(h, "tilt %+v\n", t)
	}
	for _, c := range res.CE {
		fmt.Fprintf(h, "ce %d %d %+v\n", c.Runs, c.Violations, c.Tilts)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// mainPhase is called as the main phase starts (phase, from its run
// from, with tilts; lead, for plain Monte Carlo, is the pilot, whose runs
// the phase goes on from). In a shard it makes the shard's runs and
// reports done; in a merge it checks the shard files against this
// estimate's own prefix; else it does nothing.
func (e *estimator) mainPhase(phase string, tilts []sim.Tilt, from int, lead []sample) (done bool, err error) {
	opt := e.opt
	budget := max(0, opt.MaxRuns-e.res.Runs)
	e.mainStarted = true
	if e.merge != nil {
		f := e.merge.files[0]
		if d := e.digest(); f.Digest != d || f.Phase != phase || f.From != from || f.Budget != budget || f.Chunk != opt.Chunk {
			return true, badf("--merge: the shard files are of another estimate: their digest %s (main phase %s from run %d, %d runs) is not this one's %s (%s from run %d, %d runs); give the scenario, --set and every flag the shards had",
				f.Digest, orNone(f.Phase), f.From, f.Budget, d, phase, from, budget)
		}
		return false, nil
	}
	if opt.Shard.IsZero() {
		return false, nil
	}
	f := &ShardFile{Shard: opt.Shard, Digest: e.digest(), Phase: phase, From: from, Budget: budget, Share: budget, Chunk: opt.Chunk, Complete: true}
	e.res.ShardFile = f
	e.logf("shard %s: making chunks %d, %d, ... (%d of the main phase's %d runs at most)", opt.Shard, opt.Shard.K-1, opt.Shard.K-1+opt.Shard.N, f.Count(), budget)
	own := projection{n: opt.Shard.N, rel: opt.RelError, lead: lead}
	for c := opt.Shard.K - 1; c*opt.Chunk < budget; c += opt.Shard.N {
		n := min(opt.Chunk, budget-c*opt.Chunk)
		runs, err := e.r.batch(e.ctx, phase, tilts, from+c*opt.Chunk, n)
		e.res.Runs += len(runs)
		for i := range runs {
			s := &runs[i]
			f.Runs = append(f.Runs, ShardRun{Index: from + c*opt.Chunk + i, Violated: s.violated, Acq: s.acq, LogLR: s.logLR, LogF: s.logF})
			own.add(s)
		}
		if err != nil {
			if e.ctx.Err() == nil {
				return true, err
			}
			f.Complete = false
			e.res.Stopped = e.stopped()
			return true, nil
		}
		if !opt.AllRuns && own.stops(phase) && c*opt.Chunk+n < budget {
			f.Share = c*opt.Chunk + n
			e.res.Stopped = fmt.Sprintf("the shard's runs project the estimate's stop with %d× its runs by run %d of the main phase", shareMargin, f.From+f.Share)
			e.logf("shard %s: %s", opt.Shard, e.res.Stopped)
			return true, nil
		}
	}
	e.res.Stopped = "the shard's share of the main phase is made"
	return true, nil
}

// shareMargin is how many times the runs the stopping rule looks to need
// a shard's projection asks for before the shard stops.
const shareMargin = 2

// projection is a shard's own main-phase runs, read as 1/n of what all n
// shards made by the same round, to project the merged estimate's stop.
type projection struct {
	n    int
	rel  float64
	lead []sample // plain Monte Carlo: the pilot, which the phase goes on from
	st   isStats
}

func (p *projection) add(s *sample) { p.st.add(s) }

// stops reports whether the stopping rule, on all shards' runs as these
// project them, would be met with shareMargin times the runs it needs:
// the interval's half-width within rel/√shareMargin of the estimate (the
// half-width goes as one over the root of the runs), the counts the
// diagnostics ask for shareMargin times over, the largest weight's share
// within maxShare/shareMargin. It is a function of the shard's own runs,
// so a shard's file is the same at any worker count.
func (p *projection) stops(phase string) bool {
	n := float64(p.n)
	tight := p.rel / math.Sqrt(shareMargin)
	if phase == MC {
		k := violations(p.lead) + p.n*p.st.hits
		runs := len(p.lead) + p.n*p.st.n
		if k == 0 {
			return false
		}
		lo, hi := clopperPearson(k, runs)
		q := float64(k) / float64(runs)
		return max(q-lo, hi-q)/q <= tight
	}
	s := p.st
	if s.hits == 0 || s.n < 2 {
		return false
	}
	// n shards like this one: every sum n times, the largest weight the
	// same; the half-width shrinks by √n.
	return n*float64(s.hits) >= shareMargin*minHits && n*s.essHits() >= shareMargin*minESS &&
		s.share()/n <= maxShare/shareMargin && s.half()/math.Sqrt(n) <= tight*s.p()
}

// splitMainPhase is mainPhase for splitting, whose main phase is
// repetitions of n particles. A shard makes its repetitions (i with
// i mod N = K − 1) and reports done. It cannot see the others', so it
// makes each of its own whose plain particles one machine could still
// afford, counting the runs before it at their least: its own
// repetitions' runs and n for each of the others'. That way every
// repetition the merge needs is made, and the merge folds them with one
// machine's budget and stopping rule. In a merge it checks the shard
// files against this estimate.
func (e *estimator) splitMainPhase(n int) (done bool, err error) {
	opt := e.opt
	budget := max(0, opt.MaxRuns-e.res.Runs)
	e.mainStarted = true
	if e.merge != nil {
		f := e.merge.files[0]
		if d := e.digest(); f.Digest != d || f.Phase != Splitting || f.From != 0 || f.Budget != budget || f.Chunk != 1 {
			return true, badf("--merge: the shard files are of another estimate: their digest %s (main phase %s, %d runs) is not this one's %s (%s, %d runs); give the scenario, --set and every flag the shards had",
				f.Digest, orNone(f.Phase), f.Budget, d, Splitting, budget)
		}
		e.merge.n = n
		return false, nil
	}
	if opt.Shard.IsZero() {
		return false, nil
	}
	f := &ShardFile{Shard: opt.Shard, Digest: e.digest(), Phase: Splitting, Budget: budget, Chunk: 1, Complete: true}
	e.res.ShardFile = f
	e.logf("shard %s: making repetitions %d, %d, ... while one machine could afford them", opt.Shard, opt.Shard.K-1, opt.Shard.K-1+opt.Shard.N)
	before := 0 // the runs before repetition i, at least
	for i := 0; before+n <= budget; i++ {
		if f.owner(i) != opt.Shard.K {
			before += n
			continue
		}
		r, ok, err := e.repetition(i, n, math.MaxInt)
		e.res.Runs += r.runs
		if err != nil {
			return true, err
		}
		if !ok {
			f.Complete = false
			e.res.Stopped = e.stopped()
			return true, nil
		}
		row := ShardRep{Index: i, P: r.p, Hits: r.hits, Spends: r.spends, PlainHits: r.plainHits}
		for _, c := range r.cands {
			row.Mildest, row.Pos = append(row.Mildest, c.mildest), append(row.Pos, c.pos)
		}
		f.Reps = append(f.Reps, row)
		before += r.runs
	}
	e.res.Stopped = "the shard's share of the main phase is made"
	return true, nil
}

// finishShards ends a shard or a merge whose estimate had no main phase
// (it ended in its prefix): every shard's file says so, with the same
// digest.
func (e *estimator) finishShards() error {
	if e.mainStarted {
		return nil
	}
	if e.merge != nil {
		if f := e.merge.files[0]; f.Phase != "" || f.Digest != e.digest() {
			return badf("--merge: the shard files are of another estimate: their digest %s is not this one's %s; give the scenario, --set and every flag the shards had", f.Digest, e.digest())
		}
		return nil
	}
	if !e.opt.Shard.IsZero() {
		if e.ctx.Err() != nil {
			return fmt.Errorf("shard %s %s before its main phase began: no shard file, since its prefix is not the others'", e.opt.Shard, e.stopped())
		}
		e.res.ShardFile = &ShardFile{Shard: e.opt.Shard, Digest: e.digest(), Chunk: e.opt.Chunk, Complete: true}
	}
	return nil
}
