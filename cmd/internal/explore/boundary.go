package explore

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// BoundaryOptions are boundary's flags.
type BoundaryOptions struct {
	Base     *scenarios.Base
	Arg      string // the base as the user named it, for replay commands
	Sets     []scenarios.Override
	Key      string
	From, To string // literals: numbers, or durations with a unit
	Tol      string // "" for a thousandth of the range (1 ms, 1 for integers, at least)
	Seeds    int
	Property Property // Mutex or Resource
	Workers  int
}

// Probe is the verdict at one value of the key over the seeds.
type Probe struct {
	Value    float64
	Violates bool
	Seed     uint64 // the first violating seed, or the first seed when safe
}

// Boundary is what a bisection found.
type Boundary struct {
	Key             string
	From, To        Probe
	Safe, Violating Probe // the last safe and first violating values probed
	Tol             float64
	Probes, Runs    int
	Seeds           int
	FirstSeed       uint64
	Analytic        *Prediction // nil where no closed form applies
	format          func(float64) string
	replay          func(Probe) string
}

// Format writes a value of the key as its flags and files do.
func (b *Boundary) Format(v float64) string { return b.format(v) }

// Replay is a command that replays a probe's run.
func (b *Boundary) Replay(p Probe) string { return b.replay(p) }

// bisector probes one key of one base.
type bisector struct {
	opt      BoundaryOptions
	duration bool
	integer  bool
	seed     uint64
}

// faultField matches a key that sets one field of one fault.
var faultField = regexp.MustCompile(`^faults\[(\d+)\]\.(by|for)$`)

// FindBoundary bisects opt.Key between From and To to the value where the
// verdict flips; errors are bad input (exit 2). When the verdict does not
// flip the error is a *NoFlipError and the Boundary has the two ends.
func FindBoundary(opt BoundaryOptions) (*Boundary, error) {
	if opt.Seeds < 1 {
		return nil, fmt.Errorf("--seeds must be at least 1, got %d", opt.Seeds)
	}
	if opt.Property != Mutex && opt.Property != Resource {
		return nil, fmt.Errorf("--property: boundary judges mutex or resource, not %v", opt.Property)
	}
	bs := &bisector{opt: opt}
	from, to, err := bs.parseRange()
	if err != nil {
		return nil, err
	}
	sc, err := opt.Base.Apply(opt.Sets...)
	if err != nil {
		return nil, err
	}
	bs.seed = sc.Seed
	tol := (to - from) / 1000
	switch {
	case opt.Tol != "":
		if tol, err = bs.parse("--tol", opt.Tol); err != nil {
			return nil, err
		}
		if tol <= 0 {
			return nil, fmt.Errorf("--tol must be positive, got %s", opt.Tol)
		}
	case bs.duration:
		tol = max(math.Round(tol/ms)*ms, ms)
	case bs.integer:
		tol = max(math.Round(tol), 1)
	}
	b := &Boundary{Key: opt.Key, Tol: tol, Seeds: opt.Seeds, FirstSeed: bs.seed, format: bs.format}
	b.replay = func(p Probe) string {
		return fmt.Sprintf("redlocksim run %s --seed %d --set %s", shellWord(opt.Arg), p.Seed, shellWord(opt.Key+"="+bs.format(p.Value)))
	}
	probe := func(v float64) (Probe, error) {
		b.Probes++
		b.Runs += opt.Seeds
		return bs.probe(v)
	}
	if b.From, err = probe(from); err != nil {
		return nil, err
	}
	if b.To, err = probe(to); err != nil {
		return nil, err
	}
	if b.From.Violates == b.To.Violates {
		return b, &NoFlipError{Boundary: b, msg: fmt.Sprintf("%s=%s and %s=%s: %s over seeds %d to %d, so the verdict does not flip in [%s, %s]; widen the range or change --seeds",
			opt.Key, bs.format(from), opt.Key, bs.format(to), b.noFlip(), bs.seed, bs.seed+uint64(opt.Seeds)-1, bs.format(from), bs.format(to))}
	}
	lo, hi := b.From, b.To
	for math.Abs(hi.Value-lo.Value) > tol {
		mid := bs.round(lo.Value + (hi.Value-lo.Value)/2)
		if mid == lo.Value || mid == hi.Value {
			break
		}
		p, err := probe(mid)
		if err != nil {
			return nil, err
		}
		if p.Violates == lo.Violates {
			lo = p
		} else {
			hi = p
		}
	}
	b.Safe, b.Violating = lo, hi
	if lo.Violates {
		b.Safe, b.Violating = hi, lo
	}
	b.Analytic = bs.predict(b.Safe)
	return b, nil
}

// NoFlipError is FindBoundary's answer when the verdict is the same at
// both ends of the range: a finding about the scenario, but bad input for
// a bisection. Boundary holds the two probes.
type NoFlipError struct {
	Boundary *Boundary
	msg      string
}

func (e *NoFlipError) Error() string { return e.msg }

// noFlip says what both ends of a range that does not flip showed.
func (b *Boundary) noFlip() string {
	if b.From.Violates {
		return "violates at both ends"
	}
	return "safe at both ends"
}

// shellWord quotes s for a POSIX shell when it holds anything a shell
// would expand or split (a key's [index] is a glob).
func shellWord(s string) string {
	if !strings.ContainsAny(s, " \t\"'[]*?$&;|<>()\\`") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// parseRange reads From and To: both durations (with a unit) or both
// numbers.
func (bs *bisector) parseRange() (float64, float64, error) {
	_, errA := time.ParseDuration(bs.opt.From)
	_, errB := time.ParseDuration(bs.opt.To)
	bs.duration = errA == nil && errB == nil && !isNumber(bs.opt.From) && !isNumber(bs.opt.To)
	if !bs.duration {
		_, ia := strconv.ParseInt(bs.opt.From, 10, 64)
		_, ib := strconv.ParseInt(bs.opt.To, 10, 64)
		bs.integer = ia == nil && ib == nil
	}
	from, err := bs.parse("--from", bs.opt.From)
	if err != nil {
		return 0, 0, err
	}
	to, err := bs.parse("--to", bs.opt.To)
	if err != nil {
		return 0, 0, err
	}
	if from >= to {
		return 0, 0, fmt.Errorf("--from %s must be less than --to %s", bs.opt.From, bs.opt.To)
	}
	return from, to, nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func (bs *bisector) parse(flag, s string) (float64, error) {
	if bs.duration {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("%s %q: the range is in durations, so this must be one too (like 10s)", flag, s)
		}
		return float64(d), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s %q is neither a number nor a duration: boundary bisects a numeric key", flag, s)
	}
	return f, nil
}

func (bs *bisector) round(v float64) float64 {
	switch {
	case bs.duration:
		return math.Round(v/ms) * ms
	case bs.integer:
		return math.Round(v)
	}
	return v
}

func (bs *bisector) format(v float64) string {
	switch {
	case bs.duration:
		return time.Duration(v).String()
	case bs.integer:
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func (bs *bisector) value(v float64) any {
	switch {
	case bs.duration:
		return time.Duration(v).String()
	case bs.integer:
		return int64(v)
	}
	return v
}

// config is the base with the key at v. A fault's step or length of zero
// means no such fault (the model refuses a step of 0s): the fault is left
// out.
func (bs *bisector) config(v float64) (model.Config, error) {
	o := scenarios.Override{Key: bs.opt.Key, Value: bs.value(v), File: "--key", Line: 0}
	sc, err := bs.opt.Base.Apply(append(slices.Clone(bs.opt.Sets), o)...)
	if err != nil && v == 0 {
		if m := faultField.FindStringSubmatch(bs.opt.Key); m != nil {
			o.Value = bs.value(1)
			if bs.duration {
				o.Value = bs.value(ms)
			}
			if sc, err2 := bs.opt.Base.Apply(append(slices.Clone(bs.opt.Sets), o)...); err2 == nil {
				i, _ := strconv.Atoi(m[1])
				c := sc.Config
				c.Faults = slices.Delete(slices.Clone(c.Faults), i, i+1)
				return c, nil
			}
		}
	}
	if err != nil {
		return model.Config{}, fmt.Errorf("%w (probing %s)", err, bs.format(v))
	}
	return sc.Config, nil
}

// probe runs the seeds at v in parallel and judges them.
func (bs *bisector) probe(v float64) (Probe, error) {
	cfg, err := bs.config(v)
	if err != nil {
		return Probe{}, err
	}
	n := bs.opt.Seeds
	bad := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(bs.opt.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				seed := bs.seed + uint64(i)
				r, err := sweeprun.Guard(seed, func() (model.Result, error) { return model.RunFast(cfg, seed) })
				errs[i] = err
				bad[i] = err == nil && (bs.opt.Property == Mutex && !r.MutexSafe() || bs.opt.Property == Resource && !r.ResourceSafe())
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	p := Probe{Value: v, Seed: bs.seed}
	for i := range n {
		if ie := (*sweeprun.InternalError)(nil); errors.As(errs[i], &ie) {
			ie.Replay = fmt.Sprintf("redlocksim run %s --seed %d --set %s", shellWord(bs.opt.Arg), ie.Seed, shellWord(bs.opt.Key+"="+bs.format(v)))
			return Probe{}, ie
		}
		if errs[i] != nil {
			return Probe{}, fmt.Errorf("--key %s at %s: %w", bs.opt.Key, bs.format(v), errs[i])
		}
		if bad[i] {
			p.Violates, p.Seed = true, bs.seed+uint64(i)
			break
		}
	}
	return p, nil
}
