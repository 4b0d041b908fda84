package client

import "testing"

// Every algorithm is whole in the table: a name that parses back, a step,
// a token source, and either the consensus store or the fewest Redis
// nodes it runs on with the validator's words for fewer. A new algorithm
// fails here until its entry says all of it.
func TestEveryAlgorithmIsWhole(t *testing.T) {
	for a := Algorithm(1); a < maxAlgorithm; a++ {
		s := algorithms[a]
		if got, err := ParseAlgorithm(s.name); err != nil || got != a {
			t.Errorf("%d: name %q parses to %v, %v", a, s.name, got, err)
		}
		if s.new == nil {
			t.Errorf("%v: no step (new)", a)
		}
		if tok := a.Tokens(); tok != IncrToken && tok != RevisionToken {
			t.Errorf("%v: no token source", a)
		}
		fewest, msg := a.FewestNodes()
		switch {
		case a.Store() && fewest != 0:
			t.Errorf("%v: on the store, yet needs %d Redis nodes", a, fewest)
		case !a.Store() && (fewest < 1 || msg == ""):
			t.Errorf("%v: runs on Redis nodes, but its fewest nodes are %d (%q)", a, fewest, msg)
		}
		if a.Store() && a.Sentinel() {
			t.Errorf("%v: both on the store and under a sentinel", a)
		}
	}
	for _, a := range []Algorithm{0, maxAlgorithm} {
		if a.Valid() || a.Store() || a.Sentinel() || a.AsksAll() || a.Elapsed() {
			t.Errorf("%v: an invalid algorithm answers yes", a)
		}
	}
}
