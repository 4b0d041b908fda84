package scenarios

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/scenarios/internal/keypath"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomldoc"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomlpos"
)

// decoder turns the decoded TOML (maps, slices and scalars, exactly as
// written) into a Scenario, collecting every problem as an *Error.
type decoder struct {
	file string
	pos  *tomlpos.Positions // nil if the positions could not be trusted
	errs []*Error
	// origins maps a Config field's Go path ("Nodes[2].Clock",
	// "Network.Links[0]") to the file key it was decoded from, for the
	// fields whose file keys are not their Go names.
	origins map[string]origin
	// dataFiles are the measurement files the empirical tables read.
	dataFiles []DataFile
	duration  time.Duration // the run's, once decoded: a chrony log's steps stop there
	// arrivals are the pause times of the logs the empirical tables read,
	// by table path, for every = "from-log".
	arrivals map[string][]time.Duration
}

func (d *decoder) errAt(path, format string, a ...any) {
	line, _ := d.pos.Nearest(path)
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Key: path, Msg: fmt.Sprintf(format, a...)})
}

// sign says which durations a key accepts.
type sign uint8

const (
	anySign sign = iota
	nonNegative
	positive
	period       // at least MinPeriod
	periodOrZero // 0 (none) or at least MinPeriod
)

// table is one TOML table of the file with its path. An absent table is an
// empty one, so that every key of it is absent too; bad marks a value that
// should have been a table and was not, so that its keys are not also
// reported missing.
type table struct {
	d    *decoder
	path string
	m    map[string]any
	bad  bool
}

// table checks that v (the value at path; nil if absent) is a table whose
// keys are all in valid.
func (d *decoder) table(path string, v any, valid []string) *table {
	t := &table{d: d, path: path}
	switch m := v.(type) {
	case nil:
		return t
	case map[string]any:
		t.m = m
	default:
		t.bad = true
		d.errAt(path, "must be a table, got %s", tomldoc.Describe(v))
		return t
	}
	d.checkKeys(t, valid)
	return t
}

// checkKeys reports every key of t not in valid: in the wrong case, close
// to a valid one, or unknown.
func (d *decoder) checkKeys(t *table, valid []string) {
	where := "at the top level"
	if t.path != "" {
		where = "in " + t.path
	}
	for _, k := range slices.Sorted(maps.Keys(t.m)) {
		if slices.Contains(valid, k) {
			continue
		}
		path := keypath.Join(t.path, k)
		if i := slices.IndexFunc(valid, func(v string) bool { return strings.EqualFold(v, k) }); i >= 0 {
			d.errAt(path, "keys are case-sensitive: write %q", valid[i])
			continue
		}
		if s := suggest(k, valid); s != "" {
			d.errAt(path, "unknown key; did you mean %q? (valid %s: %s)", s, where, strings.Join(valid, ", "))
			continue
		}
		if len(valid) == 0 {
			d.errAt(path, "unknown key; no keys are valid %s", where)
			continue
		}
		hint := ""
		if t.path != "" && slices.Contains(topKeys, k) {
			hint = fmt.Sprintf("; a key after a [table] header belongs to that table: move %s above the first header", k)
		}
		d.errAt(path, "unknown key (valid %s: %s)%s", where, strings.Join(valid, ", "), hint)
	}
}

// suggest is the valid key closest to k if it is a likely typo.
func suggest(k string, valid []string) string {
	best, bestD := "", 3
	for _, v := range valid {
		if d := editDistance(strings.ToLower(k), v); d < bestD {
			best, bestD = v, d
		}
	}
	if bestD > max(1, len(k)/3) {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b in
// bytes (insertions, deletions, substitutions and swaps of neighbours),
// capped at 10 for long inputs.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 10
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			d[i][j] = min(d[i-1][j-1]+c, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func (t *table) key(k string) string { return keypath.Join(t.path, k) }

func (t *table) errf(k, format string, a ...any) { t.d.errAt(t.key(k), format, a...) }

func (t *table) has(k string) bool {
	_, ok := t.m[k]
	return ok
}

// require reports k missing, unless the table itself was bad.
func (t *table) require(k, what string) bool {
	if t.has(k) {
		return true
	}
	if t.hasFold(k) {
		return false // reported as written in the wrong case
	}
	if !t.bad {
		t.errf(k, "required: %s", what)
	}
	return false
}

// sub is the table at key k (empty if absent).
func (t *table) sub(k string, valid []string) *table {
	if !t.has(k) && t.hasFold(k) {
		// Reported as written in the wrong case; its keys are not also
		// missing.
		return &table{d: t.d, path: t.key(k), bad: true}
	}
	return t.d.table(t.key(k), t.m[k], valid)
}

// hasFold reports whether t has k in any case.
func (t *table) hasFold(k string) bool {
	for other := range t.m {
		if strings.EqualFold(other, k) {
			return true
		}
	}
	return false
}

// str sets *dst to the string at k; it reports whether k was there and
// valid.
func (t *table) str(k string, dst *string) bool {
	s, ok := typed[string](t, k, "a string")
	if !ok {
		return false
	}
	if msg := CheckText(k, s); msg != "" {
		t.errf(k, "%s", msg)
		return false
	}
	*dst = s
	return true
}

// name sets *dst to the endpoint name at k.
func (t *table) name(k string, dst *string) bool {
	var s string
	if !t.str(k, &s) {
		return false
	}
	if err := checkName(s); err != nil {
		t.errf(k, "%v", err)
		return false
	}
	*dst = s
	return true
}

// checkName accepts the names endpoints may have.
func checkName(s string) error {
	if s == "" {
		return fmt.Errorf("a name must not be empty")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("%q is not a valid name: use letters, digits, '-', '_' and '.'", s)
		}
	}
	if len(s) > 64 {
		return fmt.Errorf("name %.20q... is longer than 64 bytes", s)
	}
	return nil
}

// typed is the value at k if it has TOML's type T; if k is there with
// another type, it says k must be want.
func typed[T any](t *table, k, want string) (T, bool) {
	v, ok := t.m[k]
	if !ok {
		return *new(T), false
	}
	x, ok := v.(T)
	if !ok {
		t.errf(k, "must be %s, got %s", want, tomldoc.Describe(v))
	}
	return x, ok
}

func (t *table) boolean(k string, dst *bool) bool {
	b, ok := typed[bool](t, k, "true or false")
	if ok {
		*dst = b
	}
	return ok
}

// integer sets *dst to the integer at k, which must lie in [lo, hi].
func (t *table) integer(k string, dst *int64, lo, hi int64) bool {
	n, ok := typed[int64](t, k, "an integer")
	if !ok {
		return false
	}
	if n < lo || n > hi {
		switch {
		case hi < math.MaxInt32:
			t.errf(k, "must be between %d and %d, got %d", lo, hi, n)
		case n < lo && lo == 0:
			t.errf(k, "must not be negative, got %d", n)
		case n < lo:
			t.errf(k, "must be at least %d, got %d", lo, n)
		default:
			t.errf(k, "must be at most %d, got %d", hi, n)
		}
		return false
	}
	*dst = n
	return true
}

// count is integer for an int field.
func (t *table) count(k string, dst *int, lo, hi int64) bool {
	var n int64
	if !t.integer(k, &n, lo, hi) {
		return false
	}
	*dst = int(n)
	return true
}

// float sets *dst to the finite number at k; an integer is accepted too.
func (t *table) float(k string, dst *float64) bool {
	v, ok := t.m[k]
	if !ok {
		return false
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	default:
		t.errf(k, "must be a number, got %s", tomldoc.Describe(v))
		return false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		t.errf(k, "must be a finite number, got %v", f)
		return false
	}
	*dst = f
	return true
}

// durationSyntax is the grammar of time.ParseDuration: a sign, then one or
// more numbers (a decimal fraction allowed) each with a unit. A string it
// matches that ParseDuration refuses overflowed.
var durationSyntax = regexp.MustCompile(`^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+$`)

// shorten quotes s for a message, cut in the middle if it is long.
func shorten(s string) string {
	if len(s) <= 40 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q…%q (%d bytes)", s[:16], s[len(s)-8:], len(s))
}

// dur sets *dst to the duration at k, written as a string with a unit.
func (t *table) dur(k string, dst *time.Duration, s sign) bool {
	v, ok := t.m[k]
	if !ok {
		return false
	}
	var d time.Duration
	switch x := v.(type) {
	case string:
		var err error
		d, err = time.ParseDuration(x)
		if err != nil && durationSyntax.MatchString(x) {
			// Well written, but past what an int64 of nanoseconds holds
			// (about 292 years): time.ParseDuration says only "invalid".
			t.errf(k, "the duration %s is too large: at most %v (100 years)", shorten(x), clocks.Horizon)
			return false
		}
		if err != nil {
			t.errf(k, "%s is not a duration: write a number with a unit, like \"250ms\" or \"10s\" (units: ns, us, µs, ms, s, m, h)", tomldoc.Describe(v))
			return false
		}
	case int64:
		t.errf(k, "%s", bareDuration(strconv.FormatInt(x, 10)))
		return false
	case float64:
		t.errf(k, "%s", bareDuration(strconv.FormatFloat(x, 'g', -1, 64)))
		return false
	default:
		t.errf(k, "must be a duration string like \"10s\", got %s", tomldoc.Describe(v))
		return false
	}
	switch {
	case d > clocks.Horizon || d < -clocks.Horizon:
		t.errf(k, "must be within ±%v (100 years), got %v", clocks.Horizon, d)
		return false
	case s == nonNegative && d < 0:
		t.errf(k, "must not be negative, got %v", d)
		return false
	case s == positive && d <= 0:
		t.errf(k, "must be positive, got %v", d)
		return false
	case s == period && d < MinPeriod:
		t.errf(k, "must be at least %v, got %v: a shorter period has no physical meaning and makes a run's events without bound", MinPeriod, d)
		return false
	case s == periodOrZero && d != 0 && d < MinPeriod:
		t.errf(k, "must be 0s (none) or at least %v, got %v: a shorter interval has no physical meaning and makes a run's events without bound", MinPeriod, d)
		return false
	}
	*dst = d
	return true
}

// enum sets *dst to parse(the string at k); parse's error names the valid
// values.
func enum[T any](t *table, k string, dst *T, parse func(string) (T, error)) bool {
	var s string
	if !t.str(k, &s) {
		return false
	}
	v, err := parse(s)
	if err != nil {
		t.errf(k, "%v", err)
		return false
	}
	*dst = v
	return true
}

// strings sets *dst to the array of strings at k.
func (t *table) strings(k string, dst *[]string) bool {
	v, ok := t.m[k]
	if !ok {
		return false
	}
	return t.d.strings(t.key(k), v, dst)
}

func (d *decoder) strings(path string, v any, dst *[]string) bool {
	arr, ok := v.([]any)
	if !ok {
		d.errAt(path, "must be an array of strings, got %s", tomldoc.Describe(v))
		return false
	}
	out := make([]string, 0, len(arr))
	good := true
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			d.errAt(keypath.Index(path, i), "must be a string, got %s", tomldoc.Describe(e))
			good = false
			continue
		}
		out = append(out, s)
	}
	if good {
		*dst = out
	}
	return good
}

// tables is the array of tables at k: [[k]] sections or an array of inline
// tables. Each element is checked against valid.
func (t *table) tables(k string, valid []string) []*table {
	v, ok := t.m[k]
	if !ok {
		return nil
	}
	path := t.key(k)
	elems, ok := tomldoc.TableArray(v)
	if !ok {
		t.errf(k, "must be an array of tables ([[%s]] sections or [{...}, ...]), got %s", path, tomldoc.Describe(v))
		return nil
	}
	out := make([]*table, len(elems))
	for i, e := range elems {
		out[i] = t.d.table(keypath.Index(path, i), e, valid)
	}
	return out
}

// bareDuration says that the bare number n is not a duration, suggesting
// n with a unit only where that is a duration in range: "-Infs" and
// "1e+308s" are not.
func bareDuration(n string) string {
	ok := true
	for _, unit := range []string{"s", "ms"} {
		d, err := time.ParseDuration(n + unit)
		ok = ok && err == nil && d >= -clocks.Horizon && d <= clocks.Horizon
	}
	if !ok {
		return fmt.Sprintf("a duration is a string with a unit, like \"250ms\" or \"10s\" (at most %v), not the bare number %s", clocks.Horizon, n)
	}
	return fmt.Sprintf("a duration is a string with a unit: write \"%ss\" or \"%sms\", not the bare number %s", n, n, n)
}
