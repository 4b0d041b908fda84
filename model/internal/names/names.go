package names

import (
	"fmt"
	"strings"
)

// Parse is the T whose name in names is s, searched from index first (1
// where the zero value is unset and has no name); otherwise an error
// "unknown what "s" (valid: ...)" listing the names from first.
func Parse[T ~uint8](names []string, first int, what, s string) (T, error) {
	for i := first; i < len(names); i++ {
		if names[i] == s {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q (valid: %s)", what, s, strings.Join(names[first:], ", "))
}
