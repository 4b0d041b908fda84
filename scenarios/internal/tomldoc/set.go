package tomldoc

import (
	"fmt"

	"github.com/redlocksim/redlocksim/scenarios/internal/keypath"
)

// Set sets the value at key in root, creating the tables on the way that
// root does not have; array elements must exist. value is stored as given
// (clone it first if the caller keeps it). Set returns the anchor: the path
// of the first key on the way that root did not have, or key itself, which
// is what a problem with the new value belongs to.
func Set(root map[string]any, key string, value any) (anchor string, err error) {
	segs, err := keypath.Parse(key)
	if err != nil {
		return "", err
	}
	var (
		cur  any = root
		put      = func(any) {} // replaces cur in its parent
		path string
	)
	for i, s := range segs {
		last := i == len(segs)-1
		if s.Name != "" {
			m, ok := cur.(map[string]any)
			if !ok {
				return "", fmt.Errorf("%s is %s, not a table: it has no key %q", where(path), Describe(cur), s.Name)
			}
			path = keypath.Join(path, s.Name)
			next, exists := m[s.Name]
			if !exists {
				if !last && segs[i+1].Name == "" {
					return "", fmt.Errorf("%s is not in the scenario, so there is no %s", path, keypath.Index(path, segs[i+1].Index))
				}
				if anchor == "" {
					anchor = path
				}
				if !last {
					next = map[string]any{}
					m[s.Name] = next
				}
			}
			if last {
				m[s.Name] = value
				break
			}
			name := s.Name
			cur, put = next, func(v any) { m[name] = v }
			continue
		}
		at := keypath.Index(path, s.Index)
		switch arr := cur.(type) {
		case []map[string]any:
			if s.Index >= len(arr) {
				return "", fmt.Errorf("%s has %d elements, so there is no %s", where(path), len(arr), at)
			}
			if last {
				if m, ok := value.(map[string]any); ok {
					arr[s.Index] = m
					break
				}
				// A table array element replaced by a non-table: the
				// array becomes a plain one, for the loader to judge.
				plain := make([]any, len(arr))
				for j := range arr {
					plain[j] = arr[j]
				}
				plain[s.Index] = value
				put(plain)
				break
			}
			j := s.Index
			cur, put = arr[j], func(v any) {
				if m, ok := v.(map[string]any); ok {
					arr[j] = m
				}
			}
		case []any:
			if s.Index >= len(arr) {
				return "", fmt.Errorf("%s has %d elements, so there is no %s", where(path), len(arr), at)
			}
			if last {
				arr[s.Index] = value
				break
			}
			j := s.Index
			cur, put = arr[j], func(v any) { arr[j] = v }
		default:
			if cur == nil {
				return "", fmt.Errorf("%s is not in the scenario, so there is no %s", where(path), at)
			}
			return "", fmt.Errorf("%s is %s, not an array: there is no %s", where(path), Describe(cur), at)
		}
		path = at
	}
	if anchor == "" {
		anchor = key
	}
	return anchor, nil
}

func where(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}
