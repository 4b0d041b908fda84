package network

import (
	"fmt"
	"strings"
	"testing"
)

// checkKindNames: every kind from first to last parses back from its
// name, bad is refused with the error want, and the kinds just outside
// (the zero kind and last+1) print as Type(n).
func checkKindNames[K interface {
	~uint8
	fmt.Stringer
}](t *testing.T, first, last K, parse func(string) (K, error), bad, want string) {
	t.Helper()
	for k := first; k <= last; k++ {
		got, err := parse(k.String())
		if err != nil || got != k {
			t.Errorf("parse(%q) = %v, %v; want %v", k.String(), got, err, k)
		}
	}
	if _, err := parse(bad); err == nil || err.Error() != want {
		t.Errorf("parse(%q) error = %v, want %q", bad, err, want)
	}
	typ := strings.TrimPrefix(fmt.Sprintf("%T", first), "network.")
	for _, k := range []K{0, last + 1} {
		if s, w := k.String(), fmt.Sprintf("%s(%d)", typ, uint8(k)); s != w {
			t.Errorf("%s.String() = %q, want %q", w, s, w)
		}
	}
}

func TestTailKindNames(t *testing.T) {
	checkKindNames(t, TailNone, TailPareto, ParseTailKind, "gamma",
		`unknown tail "gamma"; want one of none, lognormal, pareto`)
}
