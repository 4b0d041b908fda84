package explore

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// Over is one key of an onset curve's x axis and the values it takes, as
// written on the command line (TOML literals, or bare words like 10s).
type Over struct {
	Key    string
	Values []scenarios.Override
}

// ParseOver reads `KEY=v1,v2,...`: the values are split at the commas
// outside brackets, braces and quotes, so a value may be an inline table
// or an array; each is read as ParseOverride reads a --set value. The
// overrides name "--over" as their file.
func ParseOver(s string) (Over, error) {
	key, list, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" || strings.TrimSpace(list) == "" {
		return Over{}, fmt.Errorf("--over %q: want KEY=v1,v2,..., like lock.ttl=1s,2s,5s", s)
	}
	if err := scenarios.CheckKey(key); err != nil {
		return Over{}, fmt.Errorf("--over %s: %v", key, err)
	}
	o := Over{Key: key}
	for _, lit := range SplitList(list) {
		ov, err := scenarios.ParseOverride(key + "=" + lit)
		if err != nil {
			return Over{}, fmt.Errorf("--over %s: value %q: %v", key, lit, err)
		}
		ov.File = "--over"
		o.Values = append(o.Values, ov)
	}
	return o, nil
}

// SplitList splits a list of TOML values at its commas, except those
// inside brackets, braces or quoted strings (an array, an inline table or
// a string is one value), and trims each value: --over's list, and plot
// --where's.
func SplitList(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// CurveOptions are boundary --over's: a bisection of Key (BoundaryOptions)
// at each point of the x axis. Several Over keys move together, value i
// of each at point i (zipped, not crossed), like a TTL and the critical
// section that goes with it; the first is the curve's x axis.
type CurveOptions struct {
	BoundaryOptions
	Over []Over
}

// CurvePoint is the bisection at one point of the x axis. Boundary is
// nil-free: where the verdict does not flip in the range, NoFlip says
// what both ends showed and the bracket is empty.
type CurvePoint struct {
	At       []scenarios.Override // one per Over key
	Boundary *Boundary
	NoFlip   string // "" when the verdict flips
}

// FindCurve bisects opt.Key at every point of the x axis, one point after
// another (each probe runs its seeds in parallel), so the result does not
// depend on the workers. Every point is validated before the first run:
// a value the loader refuses is an error naming it, as the loader says.
// progress, if not nil, is called after each point.
func FindCurve(opt CurveOptions, progress func(CurvePoint)) ([]CurvePoint, error) {
	if len(opt.Over) == 0 {
		return nil, errors.New("--over: name the key the curve runs over, like --over lock.ttl=1s,2s,5s")
	}
	n := len(opt.Over[0].Values)
	for _, o := range opt.Over {
		if o.Key == opt.Key {
			return nil, fmt.Errorf("--over %s: that is the key being bisected (--key)", o.Key)
		}
		if len(o.Values) != n {
			return nil, fmt.Errorf("--over %s has %d values and --over %s has %d: several --over keys move together, so each needs one value per point", opt.Over[0].Key, n, o.Key, len(o.Values))
		}
	}
	points := make([][]scenarios.Override, n)
	for i := range n {
		for _, o := range opt.Over {
			points[i] = append(points[i], o.Values[i])
		}
		if _, err := opt.Base.Apply(append(slices.Clone(opt.Sets), points[i]...)...); err != nil {
			return nil, fmt.Errorf("at %s: %w", overArgs(points[i]), err)
		}
	}
	var out []CurvePoint
	for _, at := range points {
		bo := opt.BoundaryOptions
		bo.Sets = append(slices.Clone(opt.Sets), at...)
		b, err := FindBoundary(bo)
		cp := CurvePoint{At: at, Boundary: b}
		if nf := (*NoFlipError)(nil); errors.As(err, &nf) {
			cp.NoFlip = b.noFlip()
		} else if err != nil {
			return nil, err
		}
		out = append(out, cp)
		if progress != nil {
			progress(cp)
		}
	}
	return out, nil
}

// overArgs writes a point's overrides as key=value, joined by spaces.
func overArgs(os []scenarios.Override) string {
	s := make([]string, len(os))
	for i, o := range os {
		s[i] = o.Arg()
	}
	return strings.Join(s, " ")
}

// CurveColumns are the onset curve's CSV columns after the Over keys':
//
//	key               the bisected key
//	safe, violating   the measured bracket: the last value probed that was
//	                  safe on every seed and the first that violated on one
//	                  (empty where the verdict does not flip in the range)
//	verdict           "flips", or what both ends showed
//	tol               the bisection's tolerance: the bracket is at most this wide
//	seeds, first_seed the seeds each probe ran (first_seed to first_seed+seeds−1)
//	probes, runs      values probed and runs made
//	analytic_onset    the closed form's value for a typical hold (empty where it has none)
//	analytic_low, analytic_high   the closed form's range (empty where it has none)
//	analytic_formula  the closed form, as boundary prints it
//
// Values are in the key's units as its files write them: a number (ppm for
// nodes.clock.rate_ppm), or a duration with a unit.
var CurveColumns = []string{"key", "safe", "violating", "verdict", "tol", "seeds", "first_seed", "probes", "runs", "analytic_onset", "analytic_low", "analytic_high", "analytic_formula"}

// WriteCurve writes the curve as CSV: a header of the Over keys and
// CurveColumns, then one row per point in order.
func WriteCurve(w io.Writer, over []Over, points []CurvePoint) error {
	cw := csv.NewWriter(w)
	var head []string
	for _, o := range over {
		head = append(head, o.Key)
	}
	cw.Write(append(head, CurveColumns...))
	for _, p := range points {
		var row []string
		for _, o := range p.At {
			row = append(row, sweep.Cell(o.Value))
		}
		b := p.Boundary
		safe, viol, verdict := b.Format(b.Safe.Value), b.Format(b.Violating.Value), "flips"
		if p.NoFlip != "" {
			safe, viol, verdict = "", "", p.NoFlip
		}
		row = append(row, b.Key, safe, viol, verdict, b.Format(b.Tol), strconv.Itoa(b.Seeds), strconv.FormatUint(b.FirstSeed, 10),
			strconv.Itoa(b.Probes), strconv.Itoa(b.Runs))
		at, lo, hi, formula := "", "", "", ""
		if a := b.Analytic; a != nil {
			f := analyticFormat(b.Key)
			lo, hi, formula = f(a.Lo), f(a.Hi), a.Formula
			if a.HasOnset {
				at = f(a.Onset)
			}
		}
		cw.Write(append(row, at, lo, hi, formula))
	}
	cw.Flush()
	return cw.Error()
}
