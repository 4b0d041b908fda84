package keypath

import (
	"fmt"
	"strconv"
	"strings"
)

// Join is the path of key inside the table at parent ("" is the root).
func Join(parent, key string) string {
	k := QuoteKey(key)
	if parent == "" {
		return k
	}
	return parent + "." + k
}

// Index is the path of element i of the array at parent.
func Index(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// Parent strips the last name or index from path; the parent of a top-level
// key is "".
func Parent(path string) string {
	cut := 0
	inQuote := false
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case inQuote && c == '\\':
			i++
		case c == '"':
			inQuote = !inQuote
		case !inQuote && (c == '.' || c == '['):
			cut = i
		}
	}
	return path[:cut]
}

// IsBare reports whether c may appear in a bare TOML key.
func IsBare(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// QuoteKey writes k as a TOML key: bare if it can be, else quoted.
func QuoteKey(k string) string {
	if k == "" {
		return `""`
	}
	for i := 0; i < len(k); i++ {
		if !IsBare(k[i]) {
			return Quote(k)
		}
	}
	return k
}

// Quote writes s as a TOML basic string.
func Quote(s string) string {
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

// Seg is one step of a parsed path: a name, or an index when Name is "".
type Seg struct {
	Name  string
	Index int
}

// Parse reads a key path a person wrote (--set, a sweep axis): bare names
// joined by dots, each followed by any number of [N] indices. It does not
// say whether a document has the key.
func Parse(key string) ([]Seg, error) {
	bad := func(why string) error {
		return fmt.Errorf("%q is not a key path (%s): write names joined by dots, with [N] for an array element, like lock.ttl or faults[0].for", key, why)
	}
	if key == "" {
		return nil, bad("empty")
	}
	var segs []Seg
	for _, part := range strings.Split(key, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name == "" {
			return nil, bad("an empty name")
		}
		for i := 0; i < len(name); i++ {
			if !IsBare(name[i]) {
				return nil, bad(fmt.Sprintf("%q in a name", name[i]))
			}
		}
		segs = append(segs, Seg{Name: name})
		if rest == "" && strings.Contains(part, "[") {
			return nil, bad("an empty index")
		}
		for rest != "" {
			idx, after, ok := strings.Cut(rest, "]")
			if !ok || idx == "" || strings.Trim(idx, "0123456789") != "" || len(idx) > 6 {
				return nil, bad("an index must be a number in brackets")
			}
			n, _ := strconv.Atoi(idx)
			segs = append(segs, Seg{Index: n})
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
