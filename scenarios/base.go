package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/internal/keypath"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomldoc"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomlpos"
)

// TopKeys lists the top-level keys of a scenario file, in the order the
// format's documentation (README.md beside this file) lists them.
func TopKeys() []string { return slices.Clone(topKeys) }

// Base is a scenario document kept undecoded, so that overrides can be
// applied to it and the result decoded by the same strict loader as a file:
// Apply edits a copy of the decoded TOML document at each override's key
// path and decodes and validates that, so every problem is reported as
// Parse reports it, with a file, a line and a key. A Base is safe for
// concurrent use.
type Base struct {
	file   string
	raw    map[string]any
	pos    *tomlpos.Positions // nil if positions could not be trusted
	prefix string             // "" for a whole file, else the key of the table that holds the scenario
}

// NewBase reads a scenario file's contents as a Base; file is the name
// used in errors, as for Parse. Only TOML syntax is checked here.
func NewBase(file string, data []byte) (*Base, error) {
	raw, pos, err := decodeRaw(file, data)
	if err != nil {
		return nil, err
	}
	return &Base{file: file, raw: raw, pos: pos}, nil
}

// NewInlineBase is NewBase for a scenario written as the table at key of a
// larger document (a sweep spec's [base]). Errors name file and the lines
// of the larger document; the scenario's name is file's base name unless
// the table sets one.
func NewInlineBase(file string, data []byte, key string) (*Base, error) {
	raw, pos, err := decodeRaw(file, data)
	if err != nil {
		return nil, err
	}
	line, _ := pos.Nearest(key)
	m, ok := raw[key].(map[string]any)
	if !ok {
		return nil, &Error{File: file, Line: line, Key: key, Msg: fmt.Sprintf("must be a table holding a scenario, got %s", tomldoc.Describe(raw[key]))}
	}
	return &Base{file: file, raw: m, pos: pos, prefix: key}, nil
}

// LoadBase reads a built-in scenario by name, or a scenario file by path,
// as LoadNamed does, as a Base.
func LoadBase(arg string) (*Base, error) {
	if IsFile(arg) {
		data, err := ReadFile(arg)
		if err != nil {
			return nil, err
		}
		return NewBase(arg, data)
	}
	data, err := libraryData(arg)
	if err != nil {
		return nil, err
	}
	return NewBase(arg+".toml", data)
}

// ApplySets is Apply with the overrides given as --set arguments
// (ParseOverrides): the scenario, and the parsed overrides for Hash or
// Render. A bad --set is ParseOverrides' error, before Apply runs.
func (b *Base) ApplySets(sets []string) (*Scenario, []Override, error) {
	o, err := ParseOverrides(sets)
	if err != nil {
		return nil, nil, err
	}
	sc, err := b.Apply(o...)
	if err != nil {
		return nil, nil, err
	}
	return sc, o, nil
}

// LoadWithSets is LoadBase then ApplySets, except that the --set
// arguments are parsed first: a command line with a bad --set and a bad
// scenario name reports the --set.
func LoadWithSets(arg string, sets []string) (*Base, *Scenario, []Override, error) {
	o, err := ParseOverrides(sets)
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := LoadBase(arg)
	if err != nil {
		return nil, nil, nil, err
	}
	sc, err := b.Apply(o...)
	if err != nil {
		return nil, nil, nil, err
	}
	return b, sc, o, nil
}

// ApplyOverrides parses a scenario file's contents with overrides applied
// (see Base.Apply). With no overrides it is Parse.
func ApplyOverrides(file string, data []byte, overrides []Override) (*Scenario, error) {
	b, err := NewBase(file, data)
	if err != nil {
		return nil, err
	}
	return b.Apply(overrides...)
}

// LoadNamedWith is LoadNamed with overrides applied: what `redlocksim run
// NAME|FILE --set key=value ...` loads.
func LoadNamedWith(arg string, overrides []Override) (*Scenario, error) {
	b, err := LoadBase(arg)
	if err != nil {
		return nil, err
	}
	return b.Apply(overrides...)
}

// DecodeRaw decodes a TOML document of the scenarios' family (a tour,
// say) as the loader decodes a scenario: its size and nesting checked,
// a syntax error as the loader words it, and the line of every key (nil
// when the positions cannot be trusted).
func DecodeRaw(file string, data []byte) (map[string]any, *tomlpos.Positions, error) {
	return decodeRaw(file, data)
}

func decodeRaw(file string, data []byte) (raw map[string]any, pos *tomlpos.Positions, err error) {
	defer func() {
		if r := recover(); r != nil {
			raw, pos, err = nil, nil, &Error{File: file, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	if err := CheckSize(file, int64(len(data))); err != nil {
		return nil, nil, err
	}
	if err := CheckNesting(file, data); err != nil {
		return nil, nil, err
	}
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, nil, SyntaxError(file, string(data), err)
	}
	pos, err = tomlpos.Scan(string(data))
	if err == nil {
		err = pos.Agrees(md.Keys())
	}
	if err != nil {
		pos = nil // as Parse: keys but no lines rather than wrong lines
	}
	if raw == nil {
		raw = map[string]any{}
	}
	return raw, pos, nil
}

// Apply decodes and validates the scenario with the overrides applied in
// order (a later one may change what an earlier one set). The error, if
// any, is as Parse's: *Errors in line order. A problem at an override's
// key, or under a table the override created, names the override's File
// and Line; every other problem names the base's file and line.
func (b *Base) Apply(overrides ...Override) (s *Scenario, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, &Error{File: b.file, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	raw := tomldoc.Clone(b.raw).(map[string]any)
	anchors := make([]string, len(overrides))
	var bad []*Error
	for i, o := range overrides {
		a, err := o.set(raw)
		if err != nil {
			// Reported with the loader's problems: the other overrides
			// still apply, so that one run shows every mistake.
			bad = append(bad, err)
			anchors[i] = "\x00" // blames nothing
			continue
		}
		anchors[i] = a
	}
	d := &decoder{file: b.file, origins: make(map[string]origin)}
	if b.prefix == "" {
		d.pos = b.pos
	}
	s = d.scenario(raw)
	// The model's rules run on a document that decoded cleanly, with every
	// override in place; compiling is the one validation. Before it, the
	// loader's own bound on the workload's rate (see limits.go).
	if len(d.errs) == 0 && len(bad) == 0 {
		d.busyLoop(&s.Config)
	}
	if len(d.errs) == 0 && len(bad) == 0 {
		s.Plan, err = model.Compile(&s.Config)
		d.modelErrors(err)
	}
	if len(d.errs) == 0 && len(bad) == 0 {
		return s, nil
	}
	for _, e := range d.errs {
		if i := blame(e.Key, overrides, anchors); i >= 0 {
			e.File, e.Line = overrides[i].File, overrides[i].Line
		} else if b.prefix != "" {
			path := b.prefix
			if e.Key != "" {
				path += "." + e.Key
			}
			e.Line, _ = b.pos.Nearest(path)
		}
	}
	d.errs = append(d.errs, bad...)
	return nil, d.result()
}

// blame is the index of the override a problem at key belongs to, or -1:
// the last override whose anchor (its key, or the first table on its path
// that it created) is key or contains key.
func blame(key string, overrides []Override, anchors []string) int {
	for i := len(overrides) - 1; i >= 0; i-- {
		a := anchors[i]
		if key == a || strings.HasPrefix(key, a+".") || strings.HasPrefix(key, a+"[") {
			return i
		}
	}
	return -1
}

// TOML writes the base as a scenario file of its own, through the one
// writer for whole scenario files (tomldoc.Write): top-level keys first,
// then a [table] per table and a [[table]] per element of an array of
// tables, keys in the order README.md (the format) lists them and sorted after.
// Comments and formatting are not kept; the meaning is: loading the result
// with overrides gives what Apply gives. For an inline base without a name
// the name is set to the one Apply uses. Equal documents give equal text,
// so the result also identifies the base.
func (b *Base) TOML() []byte {
	raw := b.raw
	if _, ok := raw["name"]; !ok && b.prefix != "" {
		raw = tomldoc.Clone(raw).(map[string]any)
		raw["name"] = baseName(b.file)
	}
	return tomldoc.Write(raw, documentedOrder)
}

// Hash is the scenario's content hash: 32 hex digits (16 bytes of a
// SHA-256) of its meaning, the base's TOML as TOML writes it (so comments
// and layout do not count) and the overrides in order. The same file and
// overrides give the same hash on any machine; any change of a value
// changes it. run, real and hunt print it as scenario_hash.
func (b *Base) Hash(overrides ...Override) string {
	h := sha256.New()
	base := b.TOML()
	fmt.Fprintf(h, "redlocksim scenario v1\nbase %d\n%s\n", len(base), base)
	for _, o := range overrides {
		fmt.Fprintf(h, "set %q\n", o.String())
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// set applies o to the document root and returns its anchor (see
// tomldoc.Set); a problem is an *Error at o's file, line and key. A
// deletion's anchor is its key: nothing under it is left to blame.
func (o Override) set(root map[string]any) (string, *Error) {
	if o.Delete {
		if err := o.remove(root); err != nil {
			return "", err
		}
		return o.Key, nil
	}
	anchor, err := tomldoc.Set(root, o.Key, tomldoc.Clone(o.Value))
	if err != nil {
		return "", &Error{File: o.File, Line: o.Line, Key: o.Key, Msg: err.Error()}
	}
	return anchor, nil
}

// remove deletes o's key from root: a top-level key of the scenario
// format, or a key of one of its top-level tables.
func (o Override) remove(root map[string]any) *Error {
	bad := func(format string, a ...any) *Error {
		return &Error{File: o.File, Line: o.Line, Key: o.Key, Msg: "cannot delete: " + fmt.Sprintf(format, a...)}
	}
	segs, err := keypath.Parse(o.Key)
	if err != nil {
		return bad("%v", err)
	}
	if len(segs) > 2 || slices.ContainsFunc(segs, func(s keypath.Seg) bool { return s.Name == "" }) {
		return bad("name a top-level key or a key of a top-level table, like debate or debate.answer")
	}
	unknown := func(k string, valid []string, where string) *Error {
		if s := suggest(k, valid); s != "" {
			return bad("unknown key; did you mean %q? (valid %s: %s)", s, where, strings.Join(valid, ", "))
		}
		return bad("unknown key (valid %s: %s)", where, strings.Join(valid, ", "))
	}
	top := segs[0].Name
	if !slices.Contains(topKeys, top) {
		return unknown(top, topKeys, "at the top level")
	}
	if len(segs) == 1 {
		delete(root, top)
		return nil
	}
	valid, ok := tableKeys[top]
	if !ok || top == "faults" { // faults is an array of tables
		return bad("%s is not a table; delete %s itself", top, top)
	}
	k := segs[1].Name
	if !slices.Contains(valid, k) {
		return unknown(k, valid, "in "+top)
	}
	switch t := root[top].(type) {
	case nil: // no table, so no key: as deleted
	case map[string]any:
		delete(t, k)
	default:
		return bad("%s is %s, not a table", top, tomldoc.Describe(t))
	}
	return nil
}

// tableKeys are the documented key orders of a scenario file's tables.
var tableKeys = map[string][]string{
	"": topKeys, "debate": debateKeys, "expect": expectKeys, "lock": lockKeys, "workload": workloadKeys, "resource": resourceKeys,
	"nodes": nodesKeys, "node": nodeOverrideKeys, "clients": clientsKeys, "client": clientOverrideKey,
	"store": storeKeys, "sentinel": sentinelKeys, "network": networkKeys, "link": linkKeys, "faults": faultKeys,
}

func documentedOrder(table string) []string { return tableKeys[table] }

// Value is the value key has in the base with the overrides applied (the
// last override of key wins), as the document writes it, and whether the
// document gives one; a key it does not give takes the model's default.
func (b *Base) Value(key string, overrides ...Override) (any, bool) {
	for i := len(overrides) - 1; i >= 0; i-- {
		if o := overrides[i]; o.Key == key {
			return o.Value, !o.Delete
		}
	}
	return tomldoc.Get(b.raw, key)
}
