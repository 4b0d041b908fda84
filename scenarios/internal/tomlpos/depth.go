package tomlpos

import "fmt"

// MaxDepth is how deeply arrays and inline tables may nest in a scenario
// or sweep spec. The formats need 3 at most (a sweep axis of inline
// tables holding a latency table); 16 leaves room, and refuses what can
// only be a mistake or an attack: a document nested 100,000 deep makes
// the decoder and the positions (which record each element's path, as
// long as its depth) cost memory quadratic in its size.
const MaxDepth = 16

// DepthError is a document nested deeper than MaxDepth.
type DepthError struct {
	Line int // where the nesting first goes past MaxDepth
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("line %d: arrays and inline tables nest more than %d deep here; a scenario needs at most 3", e.Line, MaxDepth)
}

// CheckDepth returns a *DepthError if arrays and inline tables nest deeper
// than MaxDepth anywhere in src. It reads src once, in constant memory,
// and follows only what decides nesting: strings (the four kinds, so that
// a bracket inside one does not count) and comments. It is meant to run
// before the decoder, on any input, valid TOML or not.
func CheckDepth(src string) error {
	depth, line := 0, 1
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '\n':
			line++
		case '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			if i+2 < len(src) && src[i+1] == c && src[i+2] == c {
				i, line = skipMultiline(src, i+3, c, line)
				continue
			}
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if src[i] == '\\' && c == '"' {
					i++
				}
			}
			if i < len(src) && src[i] == '\n' {
				line++ // an unterminated string: the decoder reports it
			}
		case '[', '{':
			depth++
			if depth > MaxDepth {
				return &DepthError{Line: line}
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// skipMultiline skips the body of a multi-line string from i, just after
// its opening quotes, and returns the index of its last closing quote (or
// len(src)) and the line there. The closing delimiter is the last three of
// a run of quotes.
func skipMultiline(src string, i int, q byte, line int) (int, int) {
	for ; i < len(src); i++ {
		switch {
		case src[i] == '\\' && q == '"':
			i++
			if i < len(src) && src[i] == '\n' {
				line++
			}
		case src[i] == '\n':
			line++
		case src[i] == q && i+2 < len(src) && src[i+1] == q && src[i+2] == q:
			i += 2
			for i+1 < len(src) && src[i+1] == q {
				i++
			}
			return i, line
		}
	}
	return i, line
}
