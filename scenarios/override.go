package scenarios

import (
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/redlocksim/redlocksim/scenarios/internal/keypath"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomldoc"
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
//
// An override with Delete set (see Delete) removes Key instead of setting
// it; Value is then unused.
type Override struct {
	Key    string
	Value  any // string, int64, float64, bool, []any, map[string]any, ...
	File   string
	Line   int
	Delete bool
}

// Delete is the override that removes key from the scenario file, made at
// file: a tool that writes a changed scenario drops what no longer
// describes it (the explorer drops the base's [debate], whose argument is
// not its schedule's). key is a top-level key ("debate") or a key of a
// top-level table ("debate.answer") that the scenario format has; a key
// the file does not have is no change, since the result is the same, and
// a key the format does not have is an error when the override applies.
// The command line has no deletion.
func Delete(key, file string) Override { return Override{Key: key, File: file, Delete: true} }

// String returns the override as key=literal, which ParseOverride reads back
// to the same override; a deletion is "delete key", which it does not.
func (o Override) String() string {
	if o.Delete {
		return "delete " + o.Key
	}
	return o.Key + "=" + tomldoc.Format(o.Value)
}

// Arg returns the override as key=value in the shortest form that
// ParseOverride reads back to the same override: a string that is a bare
// word and would not read as another value is written without quotes
// (lock.ttl=10s, resource.mode=fencing), anything else as String does.
func (o Override) Arg() string {
	if o.Delete {
		return o.String()
	}
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
	if _, err := keypath.Parse(key); err != nil {
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
	if tomlpos.CheckDepth("v = "+lit) != nil {
		// Checked before decoding: an inline table nested 30,000 deep
		// took the decoder 24 GB.
		return nil, fmt.Errorf("arrays and inline tables nest more than %d deep; no scenario needs more than 3", tomlpos.MaxDepth)
	}
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

// CheckKey reports whether key is a well-formed key path: names of
// letters, digits, '_' and '-' joined by dots, each followed by any number
// of [N] indices. It does not say whether the scenario format has the key;
// applying the override does.
func CheckKey(key string) error {
	_, err := keypath.Parse(key)
	return err
}
