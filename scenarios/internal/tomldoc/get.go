package tomldoc

import "github.com/redlocksim/redlocksim/scenarios/internal/keypath"

// Get is the value at key (a path as Set takes it) in the decoded document
// root, and whether root holds one there.
func Get(root map[string]any, key string) (any, bool) {
	segs, err := keypath.Parse(key)
	if err != nil {
		return nil, false
	}
	var cur any = root
	for _, s := range segs {
		switch c := cur.(type) {
		case map[string]any:
			if s.Name == "" {
				return nil, false
			}
			v, ok := c[s.Name]
			if !ok {
				return nil, false
			}
			cur = v
		case []map[string]any:
			if s.Name != "" || s.Index >= len(c) {
				return nil, false
			}
			cur = c[s.Index]
		case []any:
			if s.Name != "" || s.Index >= len(c) {
				return nil, false
			}
			cur = c[s.Index]
		default:
			return nil, false
		}
	}
	return cur, true
}
