package sweeprun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// DefaultMaxRuns is the most runs a sweep (or one shard of it) makes
// unless Options.MaxRuns says otherwise: about a day of two cores at the
// library's rates, and 1.25 MB of the bitmaps that say which runs are done.
const DefaultMaxRuns = 10_000_000

// RefusedError is a sweep refused before its first run: too many runs,
// too long by its estimate, an output that cannot be written, or a point
// that cannot run. Nothing ran and no journal is left.
type RefusedError struct {
	Msg string
	Err error // the cause, if another error (a point's *model.BudgetError)
}

func (e *RefusedError) Error() string { return e.Msg }
func (e *RefusedError) Unwrap() error { return e.Err }

func refused(format string, a ...any) error { return &RefusedError{Msg: fmt.Sprintf(format, a...)} }

// CheckRuns refuses, as Run would before anything else, a sweep (opt's
// shard of it) of more runs than opt.MaxRuns, or with sampling options
// that do not go together. It works from the spec's counts alone, so it
// costs nothing whatever the spec's size: a command calls it before
// anything that costs in proportion to the points.
func CheckRuns(spec *sweep.Spec, opt Options) error {
	smp, err := samplingOf(spec, opt)
	if err != nil {
		return err
	}
	return checkRuns(spec, opt.Shard, opt.Shard.Count(spec.NumPoints())*smp.per, opt.MaxRuns, smp.adaptive())
}

// checkRuns refuses a sweep of more runs than maxRuns (0:
// DefaultMaxRuns), naming the lines of the spec that multiply up to the
// count.
func checkRuns(spec *sweep.Spec, sh sweep.Shard, slots, maxRuns int, adaptive bool) error {
	if maxRuns <= 0 {
		maxRuns = DefaultMaxRuns
	}
	if slots <= maxRuns {
		return nil
	}
	var b strings.Builder
	what := "runs"
	if adaptive {
		what = "runs at most (every point at --max-seeds)"
	}
	fmt.Fprintf(&b, "%s has %d %s, more than --max-runs %d", spec.File, slots, what, maxRuns)
	if !sh.IsZero() {
		fmt.Fprintf(&b, " in shard %s (%d of its %d points)", sh, sh.Count(spec.NumPoints()), spec.NumPoints())
	}
	b.WriteString("; the count is the product of\n")
	for _, f := range spec.Factors() {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	b.WriteString("lower one of these, split the sweep into shards (--shard K/N, each within the budget), or raise --max-runs")
	return refused("%s", b.String())
}

// checkOutput refuses an output path that cannot be written, before any
// run: a directory, a missing parent, a directory that does not let us
// create files (the journal goes beside the output, the output itself is
// written under a temporary name beside its target). A device or pipe is
// written directly at the end and is not opened here (opening a pipe
// would wait for its reader).
func checkOutput(flag, path string) error {
	fi, err := os.Stat(path)
	special := err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
	switch {
	case err == nil && fi.IsDir():
		return refused("cannot write %s %s: it is a directory; name a file in it, like %s", flag, path, filepath.Join(path, "results.csv"))
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return refused("cannot write %s %s: %v", flag, path, unwrapPath(err))
	}
	dir := filepath.Dir(path)
	if di, err := os.Stat(dir); err != nil || !di.IsDir() {
		return refused("cannot write %s %s: no directory %s", flag, path, dir)
	}
	probe, err := os.CreateTemp(dir, ".redlocksim-probe*")
	if err != nil {
		return refused("cannot write %s %s: cannot create a file in %s (%v)", flag, path, dir, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	if special {
		return nil // a device or a pipe: written directly, at the end
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return refused("cannot write %s %s: %v", flag, path, unwrapPath(err))
	}
	f.Abort()
	return nil
}

// unwrapPath is the reason of a *fs.PathError without its repeated path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// CheckPoints compiles every point of the shard and checks its budget
// before the first run: a point whose scenario does not build, or whose
// run could not fit maxEvents by the bound its Config gives, is refused
// with its axis values and the spec lines that set them. The loader
// checked only a sample of a large spec's points (sweep.CheckedAtLoad);
// this checks them all, at a cost in proportion to the points, so it
// comes after CheckRuns.
func CheckPoints(spec *sweep.Spec, sh sweep.Shard, maxEvents uint64) error {
	for lp := range sh.Count(spec.NumPoints()) {
		p := spec.Point(sh.Point(lp))
		s, err := spec.Scenario(p)
		if err == nil {
			err = s.Plan.CheckBudget(maxEvents)
		}
		if err != nil {
			return &RefusedError{Msg: fmt.Sprintf("point %d of %s cannot run (%s): %v", p.Index, spec.File, describePoint(p), err), Err: err}
		}
	}
	return nil
}

// describePoint names a point's values with where each was written:
// "clients.count = 1000 at big.toml:5, nodes.count = 1000 at big.toml:6".
func describePoint(p sweep.Point) string {
	if len(p.Overrides) == 0 {
		return "the base as it is"
	}
	parts := make([]string, len(p.Overrides))
	for i, o := range p.Overrides {
		parts[i] = o.String()
		if o.File != "" {
			parts[i] += fmt.Sprintf(" at %s:%d", o.File, o.Line)
		}
	}
	return strings.Join(parts, ", ")
}
