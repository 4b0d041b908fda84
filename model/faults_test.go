package model

import (
	"slices"
	"testing"

	"github.com/redlocksim/redlocksim/model/story"
)

// TestEveryFaultKindIsWhole: each entry of the table carries everything its
// kind is, so that a kind added with a part missing fails here rather than
// in a run.
func TestEveryFaultKindIsWhole(t *testing.T) {
	names := map[string]FaultKind{}
	for k := FaultKind(1); k < maxFaultKind; k++ {
		d := faultKinds[k]
		if d.name == "" || d.check == nil || d.apply == nil {
			t.Errorf("fault kind %d: name %q, check set %v, apply set %v; want all three", k, d.name, d.check != nil, d.apply != nil)
			continue
		}
		if prev, dup := names[d.name]; dup {
			t.Errorf("%v and %d share the name %q", prev, k, d.name)
		}
		names[d.name] = k
		if got, err := ParseFaultKind(d.name); err != nil || got != k {
			t.Errorf("ParseFaultKind(%q) = %v, %v; want %d", d.name, got, err, k)
		}
		for _, f := range d.takes {
			if !slices.Contains(faultFields, f) {
				t.Errorf("%v takes %q, which is not a Fault field (%v)", k, f, faultFields)
			}
		}
		for _, f := range d.needs {
			if !slices.Contains(d.takes, f) {
				t.Errorf("%v needs %q but does not take it", k, f)
			}
		}
		if d.record != "" && (!story.Told(d.record) || !story.Notable(d.record)) {
			t.Errorf("%v records %q: told %v, notable %v; a fault's record needs a sentence and a place in excerpts",
				k, d.record, story.Told(d.record), story.Notable(d.record))
		}
		if (d.fold != nil) != (k == ClockStep || k == ClockRate || k == ClockSlew) {
			t.Errorf("%v: folded into the clock %v; want exactly the clock kinds", k, d.fold != nil)
		}
	}
}
