package explore

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
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
	for _, lit := range results.SplitList(list) {
		ov, err := scenarios.ParseOverride(key + "=" + lit)
		if err != nil {
			return Over{}, fmt.Errorf("--over %s: value %q: %v", key, lit, err)
		}
		ov.File = "--over"
		o.Values = append(o.Values, ov)
	}
	return o, nil
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

// WriteCurve writes the curve as CSV in package results' onset-curve
// format (results.CurveColumns): a header of the Over keys and the curve's
// columns, then one row per point in order.
func WriteCurve(w io.Writer, over []Over, points []CurvePoint) error {
	var keys []string
	for _, o := range over {
		keys = append(keys, o.Key)
	}
	rows := make([]results.CurveRow, len(points))
	for i, p := range points {
		var at []string
		for _, o := range p.At {
			at = append(at, sweep.Cell(o.Value))
		}
		b := p.Boundary
		safe, viol, verdict := b.Format(b.Safe.Value), b.Format(b.Violating.Value), results.CurveFlips
		if p.NoFlip != "" {
			safe, viol, verdict = "", "", p.NoFlip
		}
		rows[i] = results.CurveRow{At: at, Key: b.Key, Safe: safe, Violating: viol, Verdict: verdict, Tol: b.Format(b.Tol),
			Seeds: strconv.Itoa(b.Seeds), FirstSeed: strconv.FormatUint(b.FirstSeed, 10), Probes: strconv.Itoa(b.Probes), Runs: strconv.Itoa(b.Runs)}
		if a := b.Analytic; a != nil {
			f := analyticFormat(b.Key)
			rows[i].Low, rows[i].High, rows[i].Formula = f(a.Lo), f(a.Hi), a.Formula
			if a.HasOnset {
				rows[i].Onset = f(a.Onset)
			}
		}
	}
	return results.WriteCurve(w, keys, rows)
}
