package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomldoc"
)

// Point is one point of a sweep: the overrides that make its scenario
// from the base (after the spec's [set]).
type Point struct {
	Index int
	// Overrides are the point's own: the explicit point's keys, then one
	// value per axis.
	Overrides []scenarios.Override
	// Cells are the point's value for each of the spec's Columns, as Cell
	// writes it; "" where the point leaves the key to the base.
	Cells []string
	// Key identifies the point by its overrides, whatever its index: the
	// lines key=literal, sorted.
	Key string
}

// gridSize is the number of grid points (1 without axes), capped just
// above maxPoints so that it cannot overflow.
func (s *Spec) gridSize() int {
	n := 1
	for _, a := range s.Axes {
		n *= len(a.Values)
		if n > maxPoints {
			return maxPoints + 1
		}
	}
	return n
}

// NumPoints is the number of points: the explicit points (one if there are
// none) times the grid's points.
func (s *Spec) NumPoints() int { return max(1, len(s.Points)) * s.gridSize() }

// Runs is the number of runs: NumPoints × Seeds.
func (s *Spec) Runs() int { return s.NumPoints() * s.Seeds }

// Point returns point i (0 ≤ i < NumPoints). Points are numbered explicit
// point first (outermost), then the grid with the last axis varying
// fastest, as nested loops in the order the axes are written.
func (s *Spec) Point(i int) Point {
	if i < 0 || i >= s.NumPoints() {
		panic(fmt.Sprintf("sweep: point %d of %d", i, s.NumPoints()))
	}
	g := s.gridSize()
	var os []scenarios.Override
	if len(s.Points) > 0 {
		os = append(os, s.Points[i/g]...)
	}
	r := i % g
	idx := make([]int, len(s.Axes))
	for j := len(s.Axes) - 1; j >= 0; j-- {
		n := len(s.Axes[j].Values)
		idx[j] = r % n
		r /= n
	}
	for j, a := range s.Axes {
		os = append(os, a.Values[idx[j]])
	}
	cells := make([]string, len(s.Columns))
	for c, col := range s.Columns {
		for _, o := range os {
			if o.Key == col {
				cells[c] = Cell(o.Value)
			}
		}
	}
	return Point{Index: i, Overrides: os, Cells: cells, Key: pointKey(os)}
}

// Cell writes an axis value for a CSV cell: a string as it is (10s,
// fencing), anything else as its TOML literal (100, 0.5, true,
// {kind = "constant", value = "1s"}).
func Cell(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return tomldoc.Format(v)
}

func pointKey(os []scenarios.Override) string {
	lines := make([]string, len(os))
	for i, o := range os {
		lines[i] = o.String()
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// Scenario is point p's scenario: the base with the spec's [set] and the
// point's overrides applied.
func (s *Spec) Scenario(p Point) (*scenarios.Scenario, error) {
	built.Add(1)
	all := make([]scenarios.Override, 0, len(s.Set)+len(p.Overrides))
	all = append(append(all, s.Set...), p.Overrides...)
	return s.Base.Apply(all...)
}

// RunSeed is the seed of replicate rep (0-based) of point p:
//
//	h    = FNV-1a-64("redlocksim-sweep\x00" + p.Key + "\x00" + decimal(rep))
//	       (with seeding = "common": FNV-1a-64("redlocksim-sweep\x00\x00" + decimal(rep)))
//	x    = Seed XOR h
//	seed = splitmix64(x) >> 1
//
// where splitmix64 is one step of the generator (x += 0x9e3779b97f4a7c15,
// then the finaliser), as in sim.StreamSeed. The top bit is cleared so
// that the seed is a valid TOML integer (`seed = N`, `--seed N`). The
// seed depends on the point's overrides, not its index, so it is the same
// whatever the worker count or shard, and a point keeps its seeds when
// other points are added to the spec.
func (s *Spec) RunSeed(p Point, rep int) uint64 {
	h := fnv1a(fnvOffset, "redlocksim-sweep\x00")
	if s.Seeding != Common {
		h = fnv1a(h, p.Key)
	}
	h = fnv1a(h, "\x00")
	h = fnv1a(h, strconv.Itoa(rep))
	x := s.Seed ^ h
	return splitmix64(x) >> 1
}

const fnvOffset = 14695981039346656037

func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func splitmix64(x uint64) uint64 {
	z := x + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Hash identifies what decides the sweep's results, as 32 hex digits (the
// first 16 bytes of a SHA-256): the base scenario's meaning (its TOML as
// Base.TOML writes it, so comments and layout do not count), the fixed
// overrides, the columns, every point's overrides in order, the runs per
// point, the base seed and the seeding. The name and description do not
// count. Shard files carry it, and merge refuses shards whose hashes
// differ.
func (s *Spec) Hash() string {
	h := sha256.New()
	base := s.Base.TOML()
	fmt.Fprintf(h, "redlocksim sweep v1\nseeds %d\nseed %d\nseeding %v\nbase %d\n%s\n", s.Seeds, s.Seed, s.Seeding, len(base), base)
	for _, o := range s.Set {
		fmt.Fprintf(h, "set %q\n", o.String())
	}
	for _, c := range s.Columns {
		fmt.Fprintf(h, "column %q\n", c)
	}
	for i := range s.NumPoints() {
		fmt.Fprintf(h, "point %q\n", s.Point(i).Key)
	}
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:16])
}

// BaseTOML is the base scenario as a file of its own (scenarios.Base.TOML).
func (s *Spec) BaseTOML() []byte { return s.Base.TOML() }

// Replay is a shell command that runs replicate seed of point p alone with
// `redlocksim run`: the base, --seed, and a --set for each of the spec's
// [set] and the point's overrides. For an inline base it first writes the
// base to NAME.base.toml with `redlocksim sweep SPEC --print-base`.
func (s *Spec) Replay(p Point, seed uint64) string {
	var b strings.Builder
	base := s.BaseRef
	if base == "" {
		base = s.Name + ".base.toml"
		fmt.Fprintf(&b, "redlocksim sweep %s --print-base > %s && ", ShellQuote(s.Arg), ShellQuote(base))
	}
	fmt.Fprintf(&b, "redlocksim run %s --seed %d", ShellQuote(base), seed)
	for _, o := range s.Set {
		b.WriteString(" --set " + ShellQuote(o.Arg()))
	}
	for _, o := range p.Overrides {
		b.WriteString(" --set " + ShellQuote(o.Arg()))
	}
	return b.String()
}

// ShellQuote quotes s for a POSIX shell: as it is when it has only safe
// characters, else in single quotes.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-./:=+,@%", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// CheckedAtLoad is the most points Parse applies to the base: every point
// of a spec that has no more, else a sample of this many that gives each
// explicit point and each axis value (up to this many of them) at least
// once. Applying a point to the base costs tens of microseconds and a
// spec may have ten million points: checking them all at load took a
// minute, before a sweep far over its run budget was refused. Whoever runs
// the points checks every one of them first (sweeprun's preflight), once
// the run count, known from the spec's counts alone, is within the budget.
const CheckedAtLoad = 1024

// built counts the scenarios Spec.Scenario has made in this process.
var built atomic.Int64

// ScenariosBuilt is how many point scenarios this process has made (by
// Parse's checks, Spec.Scenario and those who call it): what a refusal
// costs, for tests that show it costs little.
func ScenariosBuilt() int64 { return built.Load() }

// loadSample is the indices of the points Parse checks, in order: all of
// them, or for a larger spec the first CheckedAtLoad of the diagonal
// that takes value k mod n of every factor (explicit points and axes) at
// its k-th point.
func (s *Spec) loadSample() []int {
	n := s.NumPoints()
	if n <= CheckedAtLoad {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	most := len(s.Points)
	for _, a := range s.Axes {
		most = max(most, len(a.Values))
	}
	g := s.gridSize()
	out := make([]int, 0, min(most, CheckedAtLoad))
	for k := range cap(out) {
		i, stride := 0, 1
		for j := len(s.Axes) - 1; j >= 0; j-- {
			i += k % len(s.Axes[j].Values) * stride
			stride *= len(s.Axes[j].Values)
		}
		if len(s.Points) > 0 {
			i += k % len(s.Points) * g
		}
		out = append(out, i)
	}
	return out
}

// validate applies every point (or, for a large spec, a sample: see
// CheckedAtLoad) to the base; it sets the base seed from the base
// scenario unless the spec gave one.
func (s *Spec) validate(seedSet bool) error {
	var errs []*scenarios.Error
	seen := make(map[scenarios.Error]bool)
	// The base's own problems (with [set]) are reported as they are; a
	// problem that only a point's combination makes says which point.
	inBase := make(map[scenarios.Error]bool)
	if _, err := s.Base.Apply(s.Set...); err != nil {
		for _, e := range scenarios.Errors(err) {
			inBase[*e] = true
		}
	}
	var first *scenarios.Scenario
	for _, i := range s.loadSample() {
		p := s.Point(i)
		sc, err := s.Scenario(p)
		if err == nil {
			if first == nil {
				first = sc
			}
			continue
		}
		list := scenarios.Errors(err)
		if len(list) == 0 {
			list = []*scenarios.Error{{File: s.File, Msg: err.Error()}}
		}
		for _, e := range list {
			if seen[*e] {
				continue
			}
			seen[*e] = true
			e := *e
			if !inBase[e] && !s.atOverride(e, p) && len(p.Overrides) > 0 {
				// A problem the point's combination makes in the base:
				// say which point.
				e.Msg += fmt.Sprintf(" (at point %d: %s)", i, strings.ReplaceAll(p.Key, "\n", ", "))
			}
			errs = append(errs, &e)
		}
		if len(errs) >= maxErrors {
			break
		}
	}
	if len(errs) > 0 {
		return join(errs)
	}
	if !seedSet {
		s.Seed = first.Seed
	}
	return nil
}

// atOverride reports whether e names where one of the point's overrides
// (or the spec's [set]) was written.
func (s *Spec) atOverride(e scenarios.Error, p Point) bool {
	for _, o := range slices.Concat(s.Set, p.Overrides) {
		if e.File == o.File && e.Line == o.Line {
			return true
		}
	}
	return false
}

// Factor is one of the counts whose product is a sweep's number of runs:
// an axis's values, the explicit points, or the seeds per point, with
// where it was written.
type Factor struct {
	What  string // "axes.lock.ttl", "[[points]]", "seeds"
	Count int
	// Where is "file:line" in the spec, or what set the count instead
	// ("--seeds", "the default").
	Where string
}

// String is the factor as a line of a message: "spec.toml:7:
// axes.lock.ttl: 10 values", "spec.toml:3: seeds = 400", "--seeds 400".
func (f Factor) String() string {
	switch {
	case f.What == "seeds" && strings.HasPrefix(f.Where, "--"):
		return f.Where
	case f.What == "seeds":
		return fmt.Sprintf("%s: seeds = %d", f.Where, f.Count)
	case f.What == "[[points]]":
		return fmt.Sprintf("%s: [[points]]: %d points", f.Where, f.Count)
	}
	return fmt.Sprintf("%s: %s: %d values", f.Where, f.What, f.Count)
}

// Factors are the counts that multiply up to Runs, in the order written:
// the explicit points, each axis, then the seeds per point.
func (s *Spec) Factors() []Factor {
	at := func(line int) string {
		if line > 0 {
			return fmt.Sprintf("%s:%d", s.File, line)
		}
		return s.File
	}
	var out []Factor
	if len(s.Points) > 0 {
		out = append(out, Factor{What: "[[points]]", Count: len(s.Points), Where: at(s.pointsLine)})
	}
	for _, a := range s.Axes {
		out = append(out, Factor{What: a.path, Count: len(a.Values), Where: at(a.Line)})
	}
	seeds := Factor{What: "seeds", Count: s.Seeds, Where: at(s.seedsLine)}
	switch {
	case s.seedsFrom != "":
		seeds.Where = s.seedsFrom // "--seeds 400"
	case s.seedsLine == 0:
		seeds.Where = s.File + " (the default, as the spec gives no seeds)"
	}
	return append(out, seeds)
}

// SetSeeds replaces the runs per point, from says by what (a flag, as
// "--seeds 400"), for Factors.
func (s *Spec) SetSeeds(n int, from string) {
	s.Seeds, s.seedsFrom = n, from
}
