package scenarios

import (
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomlpos"
)

// Override is one change to a scenario file made before it is decoded: the
// value at a key path, as the TOML decoder would have given it had the file
// said so. `redlocksim run --set key=value` and the axes of a sweep make
// them.
//
// Key addresses the file as written: table and key names joined by dots,
// array elements by a 0-based index ("lock.ttl", "clients.pauses.length.mean",
// "nodes.node[1].clock.rate_ppm", "faults[0].for"). Tables on the way that
// the file does not have are created; array elements must exist.
//
// File and Line say where the override was written: a sweep spec's file
// and line, or "--set" and 0 for the command line. Problems with the
// override's value, or with keys it created, are reported there rather
// than in the scenario file.
type Override struct {
	Key   string
	Value any // string, int64, float64, bool, []any, map[string]any, ...
	File  string
	Line  int
}

// String returns the override as key=literal, which ParseOverride reads back
// to the same override.
func (o Override) String() string { return o.Key + "=" + FormatValue(o.Value) }

// Arg returns the override as key=value in the shortest form that
// ParseOverride reads back to the same override: a string that is a bare
// word and would not read as another value is written without quotes
// (lock.ttl=10s, resource.mode=fencing), anything else as String does.
func (o Override) Arg() string {
	if s, ok := o.Value.(string); ok && bareWord(s) {
		if v, err := ParseValue(s); err == nil && v == any(s) {
			return o.Key + "=" + s
		}
	}
	return o.String()
}

// ParseOverride reads a command-line override, "key=value", where value is
// a TOML literal: `lock.ttl="10s"`, `nodes.count=3`,
// `resource.mode="fencing"`, `clients.pauses={every="5s", length={kind="constant", value="1s"}}`.
// As a convenience for the shell, a value that is not a TOML literal but a
// bare word of letters, digits and . _ - + : µ is taken as a string, so
// lock.ttl=10s and resource.mode=fencing work too; 10 stays an integer, true
// a boolean. The override's File is "--set".
func ParseOverride(s string) (Override, error) {
	key, lit, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Override{}, &Error{File: "--set", Key: key, Msg: fmt.Sprintf("want key=value, like lock.ttl=\"10s\", got %q", s)}
	}
	if err := CheckKey(key); err != nil {
		return Override{}, &Error{File: "--set", Key: key, Msg: err.Error()}
	}
	v, err := ParseValue(lit)
	if err != nil {
		return Override{}, &Error{File: "--set", Key: key, Msg: err.Error()}
	}
	return Override{Key: key, Value: v, File: "--set"}, nil
}

// ParseOverrides reads several command-line overrides; see ParseOverride.
func ParseOverrides(sets []string) ([]Override, error) {
	out := make([]Override, 0, len(sets))
	for _, s := range sets {
		o, err := ParseOverride(s)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// ParseValue reads one TOML literal: a string, number, boolean, array or
// inline table. A bare word (see ParseOverride) is taken as a string.
func ParseValue(lit string) (any, error) {
	lit = strings.TrimSpace(lit)
	var m map[string]any
	_, err := toml.Decode("v = "+lit, &m)
	if err == nil && len(m) == 1 {
		if v, ok := m["v"]; ok {
			return v, nil
		}
	}
	if bareWord(lit) {
		return lit, nil
	}
	if err == nil {
		err = fmt.Errorf("more than one value")
	}
	return nil, fmt.Errorf("%q is not a TOML value (write strings in quotes, like \"10s\"): %v", lit, err)
}

func bareWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-+:µ", r)) {
			return false
		}
	}
	return true
}

// segment is one step of a key path: a name, or an index into an array.
type segment struct {
	name  string
	index int // -1 for a name
}

// CheckKey reports whether key is a well-formed key path: names of
// letters, digits, '_' and '-' joined by dots, each followed by any number
// of [N] indices. It does not say whether the scenario format has the key;
// applying the override does.
func CheckKey(key string) error {
	_, err := splitKey(key)
	return err
}

func splitKey(key string) ([]segment, error) {
	bad := func(why string) error {
		return fmt.Errorf("%q is not a key path (%s): write names joined by dots, with [N] for an array element, like lock.ttl or faults[0].for", key, why)
	}
	if key == "" {
		return nil, bad("empty")
	}
	var segs []segment
	for _, part := range strings.Split(key, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name == "" {
			return nil, bad("an empty name")
		}
		for i := 0; i < len(name); i++ {
			if !isBareKey(name[i]) {
				return nil, bad(fmt.Sprintf("%q in a name", name[i]))
			}
		}
		segs = append(segs, segment{name: name, index: -1})
		if rest == "" && strings.Contains(part, "[") {
			return nil, bad("an empty index")
		}
		for rest != "" {
			idx, after, ok := strings.Cut(rest, "]")
			if !ok || idx == "" || strings.Trim(idx, "0123456789") != "" || len(idx) > 6 {
				return nil, bad("an index must be a number in brackets")
			}
			n, _ := strconv.Atoi(idx)
			segs = append(segs, segment{index: n})
			if after == "" {
				break
			}
			if !strings.HasPrefix(after, "[") {
				return nil, bad("text after an index")
			}
			rest = after[1:]
		}
	}
	return segs, nil
}

func isBareKey(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// TopKeys lists the top-level keys of a scenario file, in the order the
// README documents them.
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
		return nil, &Error{File: file, Line: line, Key: key, Msg: fmt.Sprintf("must be a table holding a scenario, got %s", describe(raw[key]))}
	}
	return &Base{file: file, raw: m, pos: pos, prefix: key}, nil
}

// LoadBase reads a built-in scenario by name, or a scenario file by path,
// as LoadNamed does, as a Base.
func LoadBase(arg string) (*Base, error) {
	if IsFile(arg) {
		data, err := os.ReadFile(arg)
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

func decodeRaw(file string, data []byte) (raw map[string]any, pos *tomlpos.Positions, err error) {
	defer func() {
		if r := recover(); r != nil {
			raw, pos, err = nil, nil, &Error{File: file, Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	if err := CheckNesting(file, data); err != nil {
		return nil, nil, err
	}
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, nil, SyntaxError(file, err)
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
	raw := cloneValue(b.raw).(map[string]any)
	anchors := make([]string, len(overrides))
	var bad []*Error
	for i, o := range overrides {
		a, err := setPath(raw, o)
		if err != nil {
			// Reported with the loader's problems: the other overrides
			// still apply, so that one run shows every mistake.
			bad = append(bad, err.(*Error))
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

// setPath sets the value at o.Key in root, creating missing tables. It
// returns the override's anchor: the path of the first key on the way that
// root did not have, or o.Key.
func setPath(root map[string]any, o Override) (string, error) {
	segs, err := splitKey(o.Key)
	if err != nil {
		return "", &Error{File: o.File, Line: o.Line, Key: o.Key, Msg: err.Error()}
	}
	fail := func(format string, a ...any) (string, error) {
		return "", &Error{File: o.File, Line: o.Line, Key: o.Key, Msg: fmt.Sprintf(format, a...)}
	}
	value := cloneValue(o.Value)
	var (
		cur    any = root
		put        = func(any) {} // replaces cur in its parent
		path   string
		anchor string
	)
	for i, s := range segs {
		last := i == len(segs)-1
		if s.index < 0 {
			m, ok := cur.(map[string]any)
			if !ok {
				return fail("%s is %s, not a table: it has no key %q", where(path), describe(cur), s.name)
			}
			path = tomlpos.Join(path, s.name)
			next, exists := m[s.name]
			if !exists {
				if !last && segs[i+1].index >= 0 {
					return fail("%s is not in the scenario, so there is no %s", path, tomlpos.Index(path, segs[i+1].index))
				}
				if anchor == "" {
					anchor = path
				}
				if !last {
					next = map[string]any{}
					m[s.name] = next
				}
			}
			if last {
				m[s.name] = value
				break
			}
			name := s.name
			cur, put = next, func(v any) { m[name] = v }
			continue
		}
		at := tomlpos.Index(path, s.index)
		switch arr := cur.(type) {
		case []map[string]any:
			if s.index >= len(arr) {
				return fail("%s has %d elements, so there is no %s", where(path), len(arr), at)
			}
			if last {
				if m, ok := value.(map[string]any); ok {
					arr[s.index] = m
					break
				}
				// A table array element replaced by a non-table: the
				// array becomes a plain one, for the loader to judge.
				plain := make([]any, len(arr))
				for j := range arr {
					plain[j] = arr[j]
				}
				plain[s.index] = value
				put(plain)
				break
			}
			j := s.index
			cur, put = arr[j], func(v any) {
				if m, ok := v.(map[string]any); ok {
					arr[j] = m
				}
			}
		case []any:
			if s.index >= len(arr) {
				return fail("%s has %d elements, so there is no %s", where(path), len(arr), at)
			}
			if last {
				arr[s.index] = value
				break
			}
			j := s.index
			cur, put = arr[j], func(v any) { arr[j] = v }
		default:
			if cur == nil {
				return fail("%s is not in the scenario, so there is no %s", where(path), at)
			}
			return fail("%s is %s, not an array: there is no %s", where(path), describe(cur), at)
		}
		path = at
	}
	if anchor == "" {
		anchor = o.Key
	}
	return anchor, nil
}

func where(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// cloneValue deep-copies a decoded TOML value.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneValue(e)
		}
		return m
	case []map[string]any:
		s := make([]map[string]any, len(x))
		for i, e := range x {
			s[i] = cloneValue(e).(map[string]any)
		}
		return s
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = cloneValue(e)
		}
		return s
	}
	return v
}

// FormatValue writes a decoded TOML value as a TOML literal on one line:
// strings quoted with TOML escapes, floats always with a '.' or exponent
// (so they read back as floats), arrays in brackets, tables inline with
// their keys sorted. Equal values give equal text, so the result also
// serves as a canonical form.
func FormatValue(v any) string {
	var b strings.Builder
	formatValue(&b, v)
	return b.String()
}

func formatValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		b.WriteString(quoteString(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		b.WriteString(formatFloat(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case time.Time:
		b.WriteString(x.Format(time.RFC3339Nano))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, e)
		}
		b.WriteByte(']')
	case []map[string]any:
		elems, _ := TableArray(x)
		formatValue(b, elems)
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(formatKey(k))
			b.WriteString(" = ")
			formatValue(b, x[k])
		}
		b.WriteByte('}')
	default:
		// Not produced by the TOML decoder; written visibly rather than
		// silently dropped.
		fmt.Fprintf(b, "%q", fmt.Sprint(v))
	}
}

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func formatKey(k string) string {
	if k == "" {
		return `""`
	}
	for i := 0; i < len(k); i++ {
		if !isBareKey(k[i]) {
			return quoteString(k)
		}
	}
	return k
}

// quoteString writes s as a TOML basic string.
func quoteString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TOML writes the base as a scenario file of its own: top-level keys
// first, then a [table] per table and a [[table]] per element of an array
// of tables, keys in the order the README documents the top level and
// sorted within tables. Comments and formatting are not kept; the meaning
// is: loading the result with overrides gives what Apply gives. For an
// inline base without a name the name is set to the one Apply uses. Equal
// documents give equal text, so the result also identifies the base.
func (b *Base) TOML() []byte {
	raw := b.raw
	if _, ok := raw["name"]; !ok && b.prefix != "" {
		raw = cloneValue(raw).(map[string]any)
		raw["name"] = baseName(b.file)
	}
	keys := slices.Clone(topKeys)
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var out strings.Builder
	var tables []string
	for _, k := range keys {
		v, ok := raw[k]
		if !ok {
			continue
		}
		if isTable(v) || isTableArray(v) {
			tables = append(tables, k)
			continue
		}
		writeKeyValue(&out, k, v)
	}
	for _, k := range tables {
		v := raw[k]
		if isTable(v) {
			fmt.Fprintf(&out, "\n[%s]\n", formatKey(k))
			m := v.(map[string]any)
			var arrays []string
			for _, sk := range schemaOrder(k, m) {
				if isTableArray(m[sk]) {
					arrays = append(arrays, sk)
					continue
				}
				writeKeyValue(&out, sk, m[sk])
			}
			for _, sk := range arrays {
				writeTables(&out, formatKey(k)+"."+formatKey(sk), sk, m[sk])
			}
			continue
		}
		writeTables(&out, formatKey(k), k, v)
	}
	return []byte(out.String())
}

// writeTables writes an array of tables as [[header]] sections.
func writeTables(out *strings.Builder, header, name string, v any) {
	for _, e := range tableElems(v) {
		fmt.Fprintf(out, "\n[[%s]]\n", header)
		for _, k := range schemaOrder(name, e) {
			writeKeyValue(out, k, e[k])
		}
	}
}

// tableKeys are the documented key orders of the tables TOML writes.
var tableKeys = map[string][]string{
	"expect": expectKeys, "lock": lockKeys, "workload": workloadKeys, "resource": resourceKeys,
	"nodes": nodesKeys, "node": nodeOverrideKeys, "clients": clientsKeys, "client": clientOverrideKey,
	"store": storeKeys, "sentinel": sentinelKeys, "network": networkKeys, "link": linkKeys, "faults": faultKeys,
}

// schemaOrder lists m's keys in the order the README documents table
// name's keys, then any others sorted.
func schemaOrder(name string, m map[string]any) []string {
	var keys []string
	for _, k := range tableKeys[name] {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

func writeKeyValue(out *strings.Builder, k string, v any) {
	out.WriteString(formatKey(k))
	out.WriteString(" = ")
	if s, ok := v.(string); ok && strings.Contains(s, "\n") {
		// A multi-line basic string: newlines kept, quotes escaped so that
		// no """ can end it early.
		out.WriteString(`"""` + "\n")
		for _, line := range strings.SplitAfter(s, "\n") {
			body, nl := strings.CutSuffix(line, "\n")
			q := quoteString(body)
			out.WriteString(q[1 : len(q)-1])
			if nl {
				out.WriteByte('\n')
			}
		}
		out.WriteString(`"""` + "\n")
		return
	}
	formatValue(out, v)
	out.WriteByte('\n')
}

func isTable(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// isTableArray reports whether v is a non-empty array whose elements are
// all tables.
func isTableArray(v any) bool {
	return len(tableElems(v)) > 0
}

func tableElems(v any) []map[string]any {
	switch x := v.(type) {
	case []map[string]any:
		return x
	case []any:
		out := make([]map[string]any, 0, len(x))
		for _, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				return nil
			}
			out = append(out, m)
		}
		return out
	}
	return nil
}
