package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/redlocksim/redlocksim/model"
)

// Expected verdicts, as [expect] spells them.
const (
	Safe      = "safe"
	Violation = "violation"
)

// Liveness is the property value under which run judges liveness.
const Liveness = "liveness"

// properties are the values of the top-level property key.
var properties = []string{"mutex", "resource", Liveness}

// Expect is what a scenario expects of the checker's verdicts: Safe,
// Violation, or "" when it does not say.
type Expect struct {
	Mutex    string // mutual exclusion
	Resource string // the protected resource
}

// Scenario is one scenario file, decoded and validated.
type Scenario struct {
	Name        string
	Description string
	Lesson      string
	Seed        uint64 // the default seed (1 unless the file says)
	// Property is what the scenario was written to show broken or kept:
	// "mutex", "resource", "liveness", or "" when it does not say. Run
	// judges liveness only when it is Liveness.
	Property string
	// LivenessLimit is how long a client may wait for the lock once the
	// faults have healed; 0 means DefaultLivenessLimit.
	LivenessLimit time.Duration
	// Debate is the argument of the debate the scenario answers ([debate]);
	// zero when the file has none.
	Debate Debate
	Expect Expect
	Source string // the file it came from, as given to Load or Parse
	// DataFiles are the measurement files its empirical tables read, in
	// the order the loader met them.
	DataFiles []DataFile
	Config    model.Config
	// Plan is Config compiled, ready to run. It was compiled from Config
	// as loaded; after changing Config, run Config instead.
	Plan *model.Plan
}

// Error is one problem with a scenario file, at a line (0 when the problem
// has no single line, e.g. a required key that is missing from a table the
// file does not have) and a key path such as "lock.ttl" or
// "faults[2].target".
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Load reads and parses the scenario file at path. Errors name the path as
// given.
func Load(path string) (*Scenario, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes a scenario file's contents; name is the file name used in
// errors and in Source, and its base name without extension is the
// scenario's name unless the file sets one.
//
// The error, if any, is a single *Error or an errors.Join of several, in
// line order; use errors.As, or Errors, to get at them.
func Parse(name string, data []byte) (*Scenario, error) {
	b, err := NewBase(name, data)
	if err != nil {
		return nil, err
	}
	return b.Apply()
}

// Errors lists the *Errors in err, which Load or Parse returned.
func Errors(err error) []*Error {
	if e, ok := err.(*Error); ok {
		return []*Error{e}
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*Error
		for _, err := range j.Unwrap() {
			out = append(out, Errors(err)...)
		}
		return out
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	return nil
}

// SyntaxError turns the error BurntSushi/toml returned for the document
// name (whose text is doc) into an *Error with its line and the parser's
// hint, as the loader reports it; a sweep spec's syntax errors read the
// same. An unquoted duration (ttl = 8s), the commonest slip, gets the
// quoted form to write instead of the parser's words.
func SyntaxError(name, doc string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		if key, value, ok := unquotedDuration(doc, pe.Position.Line); ok {
			return &Error{File: name, Line: pe.Position.Line, Key: key,
				Msg: fmt.Sprintf("a duration is a string: write %s = \"%s\", with the quotes", lastKey(key), value)}
		}
		msg := pe.Message
		if pe.Usage != "" {
			msg += " (" + strings.TrimSpace(strings.SplitN(pe.Usage, "\n", 2)[0]) + ")"
		}
		return &Error{File: name, Line: pe.Position.Line, Key: pe.LastKey, Msg: "invalid TOML: " + msg}
	}
	return &Error{File: name, Msg: "invalid TOML: " + err.Error()}
}

// unquotedDurationLine is a key set to a duration without its quotes:
// 8s, 1.5ms, 1m30s, -2s.
var unquotedDurationLine = regexp.MustCompile(`^\s*([A-Za-z0-9_.-]+)\s*=\s*(-?[0-9]+(?:\.[0-9]+)?(?:ns|us|µs|ms|s|m|h)(?:[0-9]+(?:\.[0-9]+)?(?:ns|us|µs|ms|s|m|h))*)\s*(?:#.*)?$`)

// unquotedDuration reports whether line n (from 1) of doc sets a key to an
// unquoted duration, and the key and the duration if it does.
func unquotedDuration(doc string, n int) (key, value string, ok bool) {
	lines := strings.Split(doc, "\n")
	if n < 1 || n > len(lines) {
		return "", "", false
	}
	m := unquotedDurationLine.FindStringSubmatch(strings.TrimSuffix(lines[n-1], "\r"))
	if m == nil {
		return "", "", false
	}
	if _, err := time.ParseDuration(m[2]); err != nil {
		return "", "", false
	}
	key = m[1]
	for i := n - 2; i >= 0; i-- { // the table the line is in: the last header above it
		if h := tableHeader.FindStringSubmatch(lines[i]); h != nil {
			key = strings.TrimSpace(h[1]) + "." + key
			break
		}
	}
	return key, m[2], true
}

var tableHeader = regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$`)

func lastKey(key string) string { return key[strings.LastIndex(key, ".")+1:] }

// result sorts and deduplicates the errors and joins them.
func (d *decoder) result() error { return JoinErrors(d.errs, false) }

// JoinErrors drops duplicate errors, puts the rest in line order (by file
// first when byFile), errors without a line last, and joins them; a single
// error comes back as itself. The sort is stable, so errors on one line keep
// the order in which they were found.
func JoinErrors(errs []*Error, byFile bool) error {
	seen := make(map[Error]bool)
	var out []*Error
	for _, e := range errs {
		if !seen[*e] {
			seen[*e] = true
			out = append(out, e)
		}
	}
	line := func(e *Error) int {
		if e.Line == 0 {
			return math.MaxInt
		}
		return e.Line
	}
	slices.SortStableFunc(out, func(a, b *Error) int {
		c := cmp.Compare(line(a), line(b))
		if byFile {
			c = cmp.Or(cmp.Compare(a.File, b.File), c)
		}
		return c
	})
	if len(out) == 1 {
		return out[0]
	}
	all := make([]error, len(out))
	for i, e := range out {
		all[i] = e
	}
	return errors.Join(all...)
}

// baseName is the file's name without directory or extension.
func baseName(name string) string {
	b := filepath.Base(name)
	return strings.TrimSuffix(b, filepath.Ext(b))
}
