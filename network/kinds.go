package network

import "strconv"

// kindName is the name of kind k of a kind numbered from 1 (names[k]), or
// typ(k) for a k outside names, the zero kind included.
func kindName[K ~uint8](names []string, k K, typ string) string {
	if k >= 1 && int(k) < len(names) {
		return names[k]
	}
	return typ + "(" + strconv.Itoa(int(k)) + ")"
}

// parseKind is the kind numbered from 1 that names calls s.
func parseKind[K ~uint8](names []string, s string) (K, bool) {
	for k := 1; k < len(names); k++ {
		if names[k] == s {
			return K(k), true
		}
	}
	return 0, false
}
