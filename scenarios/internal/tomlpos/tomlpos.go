package tomlpos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/redlocksim/redlocksim/scenarios/internal/keypath"
)

// Positions records where each key path first appears.
type Positions struct {
	lines map[string]int
	keys  [][]string
}

// Line is the 1-based line on which path first appears, or 0 if it does not.
// A table's line is the line of its header (or of the first key that
// defines it implicitly); an array element's line is where the element
// starts.
func (p *Positions) Line(path string) int {
	if p == nil {
		return 0
	}
	return p.lines[path]
}

// Nearest is the line of path or, if path does not appear, of its longest
// prefix that does ("lock" for a missing "lock.ttl"), with that prefix. It
// returns 0 and "" when nothing on the way appears.
func (p *Positions) Nearest(path string) (int, string) {
	if p == nil {
		return 0, ""
	}
	for path != "" {
		if l, ok := p.lines[path]; ok {
			return l, path
		}
		path = keypath.Parent(path)
	}
	return 0, ""
}

// Agrees reports whether the scan saw the same keys, in the same order, as
// the decoder that produced keys (MetaData.Keys()).
func (p *Positions) Agrees(keys []toml.Key) error {
	if len(keys) != len(p.keys) {
		return fmt.Errorf("tomlpos: scanned %d keys, the decoder %d", len(p.keys), len(keys))
	}
	for i, k := range keys {
		if !slices.Equal(k, p.keys[i]) {
			return fmt.Errorf("tomlpos: key %d is %q, the decoder says %q", i, p.keys[i], []string(k))
		}
	}
	return nil
}

// Scan scans src, which toml.Decode must have accepted. It fails, rather
// than guessing, on anything it does not follow, and with a *DepthError
// on nesting deeper than MaxDepth: the paths it records are as long as
// the nesting is deep, so that limit keeps its memory linear in src.
func Scan(src string) (p *Positions, err error) {
	if err := CheckDepth(src); err != nil {
		return nil, err
	}
	s := &scanner{
		src:    stripBOM(src),
		line:   1,
		lines:  make(map[string]int),
		arrays: make(map[string]int),
	}
	defer func() {
		// A scanner bug must not take the caller down; the positions are
		// then simply unknown.
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("tomlpos: internal error at line %d: %v", s.line, r)
		}
	}()
	if err := s.document(); err != nil {
		return nil, err
	}
	return &Positions{lines: s.lines, keys: s.keys}, nil
}

// stripBOM drops a byte-order mark as toml.Decode does.
func stripBOM(src string) string {
	for _, bom := range []string{"\xef\xbb\xbf", "\xff\xfe", "\xfe\xff"} {
		if strings.HasPrefix(src, bom) {
			return src[len(bom):]
		}
	}
	return src
}

type scanner struct {
	src    string
	i      int
	line   int
	lines  map[string]int
	keys   [][]string
	arrays map[string]int // path of an array of tables → tables so far
}

func (s *scanner) errorf(format string, a ...any) error {
	return fmt.Errorf("tomlpos: line %d: %s", s.line, fmt.Sprintf(format, a...))
}

func (s *scanner) record(path string, line int) {
	if _, ok := s.lines[path]; !ok {
		s.lines[path] = line
	}
}

func (s *scanner) peek(off int) byte {
	if s.i+off < len(s.src) {
		return s.src[s.i+off]
	}
	return 0
}

func (s *scanner) eof() bool { return s.i >= len(s.src) }

// blanks skips spaces and tabs.
func (s *scanner) blanks() {
	for !s.eof() && (s.src[s.i] == ' ' || s.src[s.i] == '\t') {
		s.i++
	}
}

// comment skips a comment up to, not including, the end of the line.
func (s *scanner) comment() {
	if s.peek(0) != '#' {
		return
	}
	for !s.eof() && s.src[s.i] != '\n' {
		s.i++
	}
}

// gaps skips whitespace, newlines and comments.
func (s *scanner) gaps() {
	for !s.eof() {
		switch s.src[s.i] {
		case ' ', '\t', '\r':
			s.i++
		case '\n':
			s.i++
			s.line++
		case '#':
			s.comment()
		default:
			return
		}
	}
}

// lineEnd skips the rest of a line after a header or a key/value pair.
func (s *scanner) lineEnd() error {
	s.blanks()
	s.comment()
	if s.peek(0) == '\r' {
		s.i++
	}
	if s.eof() {
		return nil
	}
	if s.src[s.i] != '\n' {
		return s.errorf("expected the end of the line, found %q", s.src[s.i])
	}
	return nil
}

func (s *scanner) document() error {
	ctxPath, ctxNames := "", []string(nil)
	for {
		s.gaps()
		if s.eof() {
			return nil
		}
		line := s.line
		if s.src[s.i] == '[' {
			array := s.peek(1) == '['
			if array {
				s.i += 2
			} else {
				s.i++
			}
			s.blanks()
			parts, err := s.keyParts()
			if err != nil {
				return err
			}
			s.blanks()
			if array {
				if s.peek(0) != ']' || s.peek(1) != ']' {
					return s.errorf("expected ]] after an array of tables header")
				}
				s.i += 2
			} else {
				if s.peek(0) != ']' {
					return s.errorf("expected ] after a table header")
				}
				s.i++
			}
			ctxPath = s.header(parts, array, line)
			ctxNames = parts
			s.keys = append(s.keys, parts)
			if err := s.lineEnd(); err != nil {
				return err
			}
			continue
		}
		if err := s.keyValue(ctxPath, ctxNames); err != nil {
			return err
		}
		if err := s.lineEnd(); err != nil {
			return err
		}
	}
}

// header resolves a table header to its path: a name that is an array of
// tables so far stands for its last table.
func (s *scanner) header(parts []string, array bool, line int) string {
	p := ""
	for i, part := range parts {
		p = keypath.Join(p, part)
		last := i == len(parts)-1
		if last && array {
			n := s.arrays[p]
			s.arrays[p] = n + 1
			s.record(p, line)
			p = keypath.Index(p, n)
		} else if n := s.arrays[p]; n > 0 {
			p = keypath.Index(p, n-1)
		}
		s.record(p, line)
	}
	return p
}

// keyValue scans `a.b.c = value` in the table at path with names.
func (s *scanner) keyValue(path string, names []string) error {
	line := s.line
	parts, err := s.keyParts()
	if err != nil {
		return err
	}
	s.blanks()
	if s.peek(0) != '=' {
		return s.errorf("expected = after a key")
	}
	s.i++
	s.blanks()
	for _, part := range parts {
		path = keypath.Join(path, part)
		s.record(path, line)
	}
	full := append(append([]string(nil), names...), parts...)
	s.keys = append(s.keys, full)
	return s.value(path, full)
}

// keyParts scans a possibly dotted key.
func (s *scanner) keyParts() ([]string, error) {
	var parts []string
	for {
		s.blanks()
		k, err := s.simpleKey()
		if err != nil {
			return nil, err
		}
		parts = append(parts, k)
		s.blanks()
		if s.peek(0) != '.' {
			return parts, nil
		}
		s.i++
	}
}

func (s *scanner) simpleKey() (string, error) {
	switch s.peek(0) {
	case '"':
		return s.basicString()
	case '\'':
		return s.literalString()
	}
	start := s.i
	for !s.eof() && keypath.IsBare(s.src[s.i]) {
		s.i++
	}
	if s.i == start {
		return "", s.errorf("expected a key")
	}
	return s.src[start:s.i], nil
}

// value scans the value of the key at path, recording array elements and
// the keys of inline tables.
func (s *scanner) value(path string, names []string) error {
	switch c := s.peek(0); {
	case c == '"' || c == '\'':
		return s.skipString()
	case c == '[':
		s.i++
		return s.items(']', "array", func(n int) error {
			el := keypath.Index(path, n)
			s.record(el, s.line)
			return s.value(el, names)
		})
	case c == '{':
		s.i++
		return s.items('}', "inline table", func(int) error { return s.keyValue(path, names) })
	default:
		return s.scalar()
	}
}

// items scans the comma-separated items of an array or an inline table,
// from after its opening bracket to its closing one (end), item scanning
// the nth; what names the container in errors.
func (s *scanner) items(end byte, what string, item func(n int) error) error {
	for n := 0; ; n++ {
		s.gaps()
		if s.peek(0) == end {
			s.i++
			return nil
		}
		if s.eof() {
			return s.errorf("unterminated %s", what)
		}
		if err := item(n); err != nil {
			return err
		}
		s.gaps()
		switch s.peek(0) {
		case ',':
			s.i++
		case end:
			s.i++
			return nil
		default:
			return s.errorf("expected , or %c in an %s", end, what)
		}
	}
}

// scalar skips a number, boolean or date-time.
func (s *scanner) scalar() error {
	start := s.i
	for !s.eof() && !strings.ContainsRune(",]}#\n\r \t", rune(s.src[s.i])) {
		s.i++
	}
	// A date and a time may be separated by a space.
	if s.i-start == 10 && s.src[start+4] == '-' && s.peek(0) == ' ' && s.peek(1) >= '0' && s.peek(1) <= '9' {
		s.i++
		for !s.eof() && !strings.ContainsRune(",]}#\n\r \t", rune(s.src[s.i])) {
			s.i++
		}
	}
	if s.i == start {
		return s.errorf("expected a value")
	}
	return nil
}

func (s *scanner) skipString() error {
	var err error
	switch {
	case strings.HasPrefix(s.src[s.i:], `"""`):
		err = s.multiline('"', true)
	case strings.HasPrefix(s.src[s.i:], `'''`):
		err = s.multiline('\'', false)
	case s.peek(0) == '"':
		_, err = s.basicString()
	default:
		_, err = s.literalString()
	}
	return err
}

// multiline skips a multi-line string opened by three q's. Its closing
// delimiter is the last three of a run of up to five q's.
func (s *scanner) multiline(q byte, escapes bool) error {
	s.i += 3
	for !s.eof() {
		c := s.src[s.i]
		switch {
		case c == '\n':
			s.line++
			s.i++
		case c == '\\' && escapes:
			s.i++
			if s.peek(0) == '\n' {
				s.line++
			}
			s.i++
		case c == q:
			n := 0
			for s.peek(n) == q {
				n++
			}
			s.i += n
			if n >= 3 {
				return nil
			}
		default:
			s.i++
		}
	}
	return s.errorf("unterminated multi-line string")
}

func (s *scanner) literalString() (string, error) {
	s.i++
	start := s.i
	for !s.eof() && s.src[s.i] != '\'' && s.src[s.i] != '\n' {
		s.i++
	}
	if s.peek(0) != '\'' {
		return "", s.errorf("unterminated literal string")
	}
	v := s.src[start:s.i]
	s.i++
	return v, nil
}

// basicString scans a one-line "string" and returns its value.
func (s *scanner) basicString() (string, error) {
	s.i++
	var b strings.Builder
	for !s.eof() {
		c := s.src[s.i]
		switch c {
		case '"':
			s.i++
			return b.String(), nil
		case '\n':
			return "", s.errorf("unterminated string")
		case '\\':
			r, n, err := unescape(s.src[s.i:])
			if err != nil {
				return "", s.errorf("%v", err)
			}
			b.WriteRune(r)
			s.i += n
		default:
			b.WriteByte(c)
			s.i++
		}
	}
	return "", s.errorf("unterminated string")
}

// unescape decodes the escape sequence at the start of e.
func unescape(e string) (rune, int, error) {
	if len(e) < 2 {
		return 0, 0, fmt.Errorf("bad escape")
	}
	simple := map[byte]rune{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', 'e': 0x1b, '"': '"', '\\': '\\'}
	if r, ok := simple[e[1]]; ok {
		return r, 2, nil
	}
	digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e[1]]
	if digits == 0 || len(e) < 2+digits {
		return 0, 0, fmt.Errorf("bad escape %q", e[:2])
	}
	v, err := strconv.ParseUint(e[2:2+digits], 16, 32)
	if err != nil || !utf8.ValidRune(rune(v)) {
		return 0, 0, fmt.Errorf("bad escape %q", e[:2+digits])
	}
	return rune(v), 2 + digits, nil
}
