package explore

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model"
)

// Step is one drawn fault. Partitions and losses are drawn with how long
// they last: the step expands to the fault and, Lasts later, a heal (or the
// loss going back to the base's), so that shrinking treats the pair as one
// fault.
type Step struct {
	model.Fault
	Lasts time.Duration // partition and loss only
}

// Schedule is the drawn faults of one run, in the order drawn.
type Schedule []Step

// Faults expands the schedule into model faults after the base's own,
// ordered by time (stable, so equal times keep the drawn order).
func (s Schedule) Faults(base []model.Fault, baseLoss float64) []model.Fault {
	out := slices.Clone(base)
	var drawn []model.Fault
	for _, st := range s {
		drawn = append(drawn, st.Fault)
		if ends := kindRules[st.Kind].ends; ends != nil {
			drawn = append(drawn, ends(st, baseLoss))
		}
	}
	slices.SortStableFunc(drawn, func(a, b model.Fault) int { return cmp.Compare(a.At, b.At) })
	return append(out, drawn...)
}

// String writes the schedule on one line, faults in time order.
func (s Schedule) String() string {
	sorted := slices.Clone(s)
	slices.SortStableFunc(sorted, func(a, b Step) int { return cmp.Compare(a.At, b.At) })
	parts := make([]string, len(sorted))
	for i, st := range sorted {
		parts[i] = st.String()
	}
	if len(parts) == 0 {
		return "no faults"
	}
	return strings.Join(parts, "; ")
}

// String writes one step as "pause c1 at 1.05s for 12s".
func (st Step) String() string {
	at := " at " + st.At.String()
	if text := kindRules[st.Kind].text; text != nil {
		return text(st, at)
	}
	return fmt.Sprintf("%v %s%s", st.Kind, st.Target, at)
}

func orAll(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

func signed(d time.Duration) string {
	if d > 0 {
		return "+" + d.String()
	}
	return d.String()
}

// Shape is what de-duplicates counterexamples: the fault kinds and the roles
// of their targets, as a sorted multiset ("crash:node crash:node").
func (s Schedule) Shape(roles func(string) string) string {
	parts := make([]string, len(s))
	for i, st := range s {
		p := st.Kind.String()
		switch shape := kindRules[st.Kind].shape; {
		case shape != nil:
			p += shape(st, roles)
		case st.Target != "":
			p += ":" + roles(st.Target)
		}
		parts[i] = p
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

func roleOrAll(roles func(string) string, n string) string {
	if n == "" {
		return "*"
	}
	return roles(n)
}

// without is s with step i left out.
func (s Schedule) without(i int) Schedule {
	return slices.Delete(slices.Clone(s), i, i+1)
}
