package sweep

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/internal/keypath"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomldoc"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomlpos"
)

// Seeding says how run seeds depend on the point.
type Seeding uint8

const (
	_ Seeding = iota
	// Independent: each (point, replicate) has its own seed.
	Independent
	// Common: replicate r has the same seed at every point (common random
	// numbers), so that points are compared on the same draws.
	Common
)

func (s Seeding) String() string {
	switch s {
	case Independent:
		return "independent"
	case Common:
		return "common"
	}
	return fmt.Sprintf("Seeding(%d)", uint8(s))
}

// DefaultSeeds is the number of runs per point when the spec does not say.
const DefaultSeeds = 10

// MaxSeeds bounds the runs per point.
const MaxSeeds = 1_000_000

// maxPoints bounds the points of one spec, so that a typo cannot ask for
// more than a machine could run.
const maxPoints = 10_000_000

// maxErrors is how many distinct problems Parse reports before it stops
// validating points.
const maxErrors = 20

// Spec is a decoded sweep spec.
type Spec struct {
	Name        string
	Description string // one line
	Lesson      string // what the sweep shows and how to read its figure
	// File is the spec's file name as given to Parse ("NAME.toml" for a
	// library sweep); Arg is how to name the spec on the command line
	// (the library name, or the path).
	File, Arg string
	// BaseRef is the base as the spec names it, resolved: a library
	// scenario's name, or a file path relative to the working directory.
	// It is "" for an inline [base].
	BaseRef string
	Base    *scenarios.Base
	// Set are the fixed overrides applied to every point before the
	// point's own.
	Set []scenarios.Override
	// Axes are the grid's axes in the order written; the last varies
	// fastest.
	Axes []Axis
	// Points are the explicit points, each a list of overrides. With axes
	// too, every explicit point is crossed with the whole grid (explicit
	// points outermost).
	Points [][]scenarios.Override
	// Columns are the keys the points vary: the explicit points' keys in
	// the order they first appear, then the axes' keys.
	Columns []string
	Seeds   int    // runs per point
	Seed    uint64 // base seed of the run seeds
	Seeding Seeding

	// Where the counts were written, for Factors: the spec's seeds line
	// (0 if the spec leaves seeds to the default), or what set Seeds
	// instead (SetSeeds); the line of the first [[points]].
	seedsLine  int
	seedsFrom  string
	pointsLine int
}

// Axis is one grid axis: a key and the values it takes, each as an
// override that knows the spec line it was written on.
type Axis struct {
	Key    string
	Values []scenarios.Override
	Line   int    // where the axis is written in the spec
	path   string // in the spec, for errors: axes.lock.ttl
}

// Top-level keys of a spec.
var specKeys = []string{"name", "description", "lesson", "base", "seeds", "seed", "seeding", "set", "axes", "points"}

// Load reads a library sweep by name, or a spec file by path (an argument
// with a .toml suffix or a path separator, as for scenarios).
func Load(arg string) (*Spec, error) {
	if scenarios.IsFile(arg) {
		data, err := scenarios.ReadFile(arg)
		if err != nil {
			return nil, err
		}
		return parse(arg, arg, data, false)
	}
	data, ok := scenarios.SweepFile(arg)
	if !ok {
		return nil, fmt.Errorf("no built-in sweep is called %q (built-in sweeps: %s)", arg, strings.Join(scenarios.SweepNames(), ", "))
	}
	return parse(arg+".toml", arg, data, true)
}

// Parse decodes a spec file's contents; file names it in errors, and a
// base given as a relative path is found relative to file's directory.
// Every point (of a large spec, a sample: see CheckedAtLoad) is expanded
// and its scenario validated. The error, if any, is one *scenarios.Error
// or an errors.Join of several.
func Parse(file string, data []byte) (*Spec, error) {
	return parse(file, file, data, false)
}

type specDecoder struct {
	file string
	pos  *tomlpos.Positions
	// order is each key path's index in the document (MetaData.Keys).
	order map[string]int
	errs  []*scenarios.Error
}

func (d *specDecoder) errAt(path, format string, a ...any) {
	line, _ := d.pos.Nearest(path)
	d.errs = append(d.errs, &scenarios.Error{File: d.file, Line: line, Key: path, Msg: fmt.Sprintf(format, a...)})
}

func (d *specDecoder) line(path string) int {
	line, _ := d.pos.Nearest(path)
	return line
}

func parse(file, arg string, data []byte, library bool) (spec *Spec, err error) {
	defer func() {
		if r := recover(); r != nil {
			spec, err = nil, &scenarios.Error{File: file, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	if err := scenarios.CheckSize(file, int64(len(data))); err != nil {
		return nil, err
	}
	if err := scenarios.CheckNesting(file, data); err != nil {
		return nil, err
	}
	var raw map[string]any
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, scenarios.SyntaxError(file, string(data), err)
	}
	d := &specDecoder{file: file, order: make(map[string]int)}
	if pos, err := tomlpos.Scan(string(data)); err == nil && pos.Agrees(md.Keys()) == nil {
		d.pos = pos
	}
	for i, k := range md.Keys() {
		p := ""
		for _, part := range k {
			p = keypath.Join(p, part)
		}
		if _, ok := d.order[p]; !ok {
			d.order[p] = i
		}
	}
	s := &Spec{File: file, Arg: arg, Seeds: DefaultSeeds, Seeding: Independent}
	s.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))

	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if slices.Contains(specKeys, k) {
			continue
		}
		if i := slices.IndexFunc(specKeys, func(v string) bool { return strings.EqualFold(v, k) }); i >= 0 {
			d.errAt(keypath.Join("", k), "keys are case-sensitive: write %q", specKeys[i])
			continue
		}
		hint := ""
		if slices.Contains(scenarios.TopKeys(), k) {
			hint = fmt.Sprintf("; %s is a scenario key: put it in [base], or vary it under [set], [axes] or [[points]] as %s.KEY", k, k)
		}
		d.errAt(keypath.Join("", k), "unknown key (valid at the top level of a sweep: %s)%s", strings.Join(specKeys, ", "), hint)
	}
	str := func(k string, dst *string) {
		if v, ok := raw[k]; ok {
			if x, ok := v.(string); !ok {
				d.errAt(k, "must be a string, got %s", tomldoc.Describe(v))
			} else if msg := scenarios.CheckText(k, x); msg != "" {
				d.errAt(k, "%s", msg)
			} else {
				*dst = x
			}
		}
	}
	str("name", &s.Name)
	if strings.TrimSpace(s.Name) == "" {
		d.errAt("name", "must not be empty")
	}
	str("description", &s.Description)
	str("lesson", &s.Lesson)
	if v, ok := raw["seeds"]; ok {
		n, ok := v.(int64)
		switch {
		case !ok:
			d.errAt("seeds", "must be an integer (runs per point), got %s", tomldoc.Describe(v))
		case n < 1 || n > MaxSeeds:
			d.errAt("seeds", "must be between 1 and %d, got %d", MaxSeeds, n)
		default:
			s.Seeds, s.seedsLine = int(n), d.line("seeds")
		}
	}
	seedSet := false
	if v, ok := raw["seed"]; ok {
		n, ok := v.(int64)
		switch {
		case !ok:
			d.errAt("seed", "must be an integer, got %s", tomldoc.Describe(v))
		case n < 0:
			d.errAt("seed", "must not be negative, got %d", n)
		default:
			s.Seed, seedSet = uint64(n), true
		}
	}
	if v, ok := raw["seeding"]; ok {
		switch v {
		case "independent":
			s.Seeding = Independent
		case "common":
			s.Seeding = Common
		default:
			d.errAt("seeding", "must be \"independent\" or \"common\", got %s", tomldoc.Describe(v))
		}
	}

	switch b := raw["base"].(type) {
	case nil:
		d.errAt("base", `required: a built-in scenario's name (base = "baseline"), a scenario file (base = "my.toml"), or an inline [base] table`)
	case string:
		ref := b
		switch {
		case !scenarios.IsFile(b):
		case library:
			d.errAt("base", "a built-in sweep's base must be a built-in scenario or inline, not the file %q", b)
			ref = ""
		case !filepath.IsAbs(b):
			ref = filepath.Join(filepath.Dir(file), b)
		}
		if ref != "" {
			base, err := scenarios.LoadBase(ref)
			if err != nil {
				d.errAt("base", "%v", err)
			} else {
				s.Base, s.BaseRef = base, ref
			}
		}
	case map[string]any:
		base, err := scenarios.NewInlineBase(file, data, "base")
		if err != nil {
			d.errs = append(d.errs, scenarios.Errors(err)...)
		} else {
			s.Base = base
		}
	default:
		d.errAt("base", "must be a scenario's name or path, or a table, got %s", tomldoc.Describe(b))
	}

	if v, ok := raw["set"]; ok {
		if _, isMap := v.(map[string]any); !isMap {
			d.errAt("set", "must be a table of keys and values, like [set] lock.ttl = \"5s\", got %s", tomldoc.Describe(v))
		} else {
			s.Set = d.overrides("set", v)
		}
	}
	if v, ok := raw["axes"]; ok {
		if _, isMap := v.(map[string]any); !isMap {
			d.errAt("axes", "must be a table of keys and value lists, like [axes] lock.ttl = [\"1s\", \"5s\"], got %s", tomldoc.Describe(v))
		} else {
			s.Axes = d.axes(v)
		}
	}
	if v, ok := raw["points"]; ok {
		s.Points = d.points(v)
		s.pointsLine = d.line(keypath.Index("points", 0))
	}
	d.columns(s)
	if len(d.errs) == 0 {
		if n := s.gridSize() * max(1, len(s.Points)); n > maxPoints || n <= 0 {
			d.errAt("axes", "the sweep has %d points, more than %d", n, maxPoints)
		}
	}
	if len(d.errs) > 0 {
		return nil, join(d.errs)
	}
	if err := s.validate(seedSet); err != nil {
		return nil, err
	}
	return s, nil
}

// leaf is one key = value under a table of the spec, flattened to its
// scenario key path.
type leaf struct {
	key   string // scenario key path: "lock.ttl", "faults[0].for"
	path  string // spec key path, for lines: "axes.lock.ttl", `axes."faults[0].for"`
	value any
	line  int // where written (0 if unknown)
	order int // index in the decoder's key list, for keys on one line
}

// flatten lists the values under a table of the spec, descending into
// tables, in the order they are written: `lock.ttl = 1`, `[x.lock] ttl = 1`
// and `"lock.ttl" = 1` all give key lock.ttl. A name with a dot or a
// bracket (quoted) is a whole key path, and its value is a leaf even if it
// is a table.
func (d *specDecoder) flatten(path, key, name string, v any, out *[]leaf) {
	if m, ok := v.(map[string]any); ok && (key == "" || !strings.ContainsAny(name, ".[")) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			sub := k
			if key != "" {
				sub = key + "." + k
			}
			d.flatten(keypath.Join(path, k), sub, k, m[k], out)
		}
		return
	}
	order, ok := d.order[path]
	if !ok {
		order = math.MaxInt // inside an array of tables: the line decides
	}
	*out = append(*out, leaf{key: key, path: path, value: v, line: d.pos.Line(path), order: order})
}

// leaves flattens the table at path and sorts by position; it reports
// keys that are not key paths, the seed, and a key given twice.
func (d *specDecoder) leaves(path string, v any) []leaf {
	var out []leaf
	d.flatten(path, "", "", v, &out)
	// In the order written; walking the keys sorted made the order of equals fixed.
	slices.SortStableFunc(out, func(a, b leaf) int { return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.order, b.order)) })
	var good []leaf
	seen := make(map[string]leaf)
	for _, l := range out {
		if _, err := keypath.Parse(l.key); err != nil {
			d.errAt(l.path, "%v", err)
			continue
		}
		if l.key == "seed" {
			d.errAt(l.path, "the sweep derives each run's seed from the spec's seed; set seed at the top level of the spec")
			continue
		}
		if prev, dup := seen[l.key]; dup {
			d.errAt(l.path, "%s is already given on line %d", l.key, d.line(prev.path))
			continue
		}
		seen[l.key] = l
		good = append(good, l)
	}
	return good
}

func (d *specDecoder) overrides(path string, v any) []scenarios.Override {
	var out []scenarios.Override
	for _, l := range d.leaves(path, v) {
		out = append(out, scenarios.Override{Key: l.key, Value: l.value, File: d.file, Line: d.line(l.path)})
	}
	return out
}

func (d *specDecoder) axes(v any) []Axis {
	var out []Axis
	for _, l := range d.leaves("axes", v) {
		arr, ok := tomldoc.TableArray(l.value) // [[axes.x]] decodes as tables
		if !ok {
			d.errAt(l.path, "an axis is a list of values, like [\"1s\", \"5s\"], got %s; to give every point one value, put the key in [set]", tomldoc.Describe(l.value))
			continue
		}
		if len(arr) == 0 {
			d.errAt(l.path, "an axis needs at least one value")
			continue
		}
		a := Axis{Key: l.key, path: l.path, Line: d.line(l.path), Values: make([]scenarios.Override, 0, len(arr))}
		seen := make(map[string]int, len(arr))
		for i, e := range arr {
			ep := keypath.Index(l.path, i)
			lit := tomldoc.Format(e)
			if j, dup := seen[lit]; dup {
				d.errAt(ep, "%s appears twice in the axis (values %d and %d)", lit, j, i)
				continue
			}
			seen[lit] = i
			a.Values = append(a.Values, scenarios.Override{Key: l.key, Value: e, File: d.file, Line: d.line(ep)})
		}
		out = append(out, a)
	}
	return out
}

func (d *specDecoder) points(v any) [][]scenarios.Override {
	elems, ok := tomldoc.TableArray(v)
	if !ok {
		d.errAt("points", "must be an array of tables ([[points]] sections), got %s", tomldoc.Describe(v))
		return nil
	}
	if len(elems) == 0 {
		d.errAt("points", "needs at least one point")
		return nil
	}
	var out [][]scenarios.Override
	seen := make(map[string]int)
	for i, e := range elems {
		path := keypath.Index("points", i)
		if _, ok := e.(map[string]any); !ok {
			d.errAt(path, "a point is a table of keys and values, got %s", tomldoc.Describe(e))
			continue
		}
		sets := d.overrides(path, e)
		if len(sets) == 0 {
			d.errAt(path, "a point sets at least one key")
			continue
		}
		id := pointKey(sets)
		if j, dup := seen[id]; dup {
			d.errAt(path, "the same point as points[%d]", j)
			continue
		}
		seen[id] = i
		out = append(out, sets)
	}
	return out
}

// columns fills s.Columns and reports axes that overlap each other or the
// explicit points' keys: the order in which they apply would matter.
func (d *specDecoder) columns(s *Spec) {
	var cols []string
	for _, p := range s.Points {
		for _, o := range p {
			if !slices.Contains(cols, o.Key) {
				cols = append(cols, o.Key)
			}
		}
	}
	for _, a := range s.Axes {
		for _, c := range cols {
			if overlaps(a.Key, c) {
				line := 0
				if len(a.Values) > 0 {
					line = a.Values[0].Line
				}
				d.errs = append(d.errs, &scenarios.Error{File: d.file, Line: line, Key: a.path,
					Msg: fmt.Sprintf("overlaps %s, which %s already sets: give each key in one place", c, where(c, s.Points))})
			}
		}
		cols = append(cols, a.Key)
	}
	s.Columns = cols
}

func where(col string, points [][]scenarios.Override) string {
	for _, p := range points {
		for _, o := range p {
			if o.Key == col {
				return "[[points]]"
			}
		}
	}
	return "another axis"
}

// overlaps reports whether one key path is the other or inside it.
func overlaps(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || strings.HasPrefix(b, a+".") || strings.HasPrefix(b, a+"[")
}

// join sorts problems by file and line, drops duplicates and joins them.
func join(errs []*scenarios.Error) error { return scenarios.JoinErrors(errs, true) }
