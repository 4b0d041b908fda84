package model

import (
	"cmp"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/sim"
)

// A run that finds violations tells each one's story: an excerpt of the
// notable records in its window (check.Violation.Window). The fast run
// that found them kept no records, but it knows the windows, so the run is
// replayed (exactly: narration draws no random number and schedules no
// event) narrated only inside those windows, and each window keeps only
// what its excerpt shows (check.Excerpter): the replay's memory is bounded
// by the number of violations, not by the run's length, and outside the
// windows it costs what a fast run costs. A full narration (--trace, a
// timeline) is a narrated run instead (Plan.RunTraced).

// storyteller cuts the excerpts of a story replay as its records come.
type storyteller struct {
	windows []storyWindow // as the report lists the violations
	byFrom  []int         // indexes into windows by window start
	next    int           // the first of byFrom not yet open
	open    []int         // windows open at the last record
}

type storyWindow struct {
	from, to time.Duration
	x        check.Excerpter
}

// newStoryteller returns the storyteller of violations vs and the spans to
// narrate: the union of their windows.
func newStoryteller(vs []check.Violation) (*storyteller, []sim.Span) {
	s := &storyteller{windows: make([]storyWindow, len(vs)), byFrom: make([]int, len(vs))}
	for i, v := range vs {
		s.windows[i].from, s.windows[i].to = v.Window()
		s.byFrom[i] = i
	}
	slices.SortStableFunc(s.byFrom, func(a, b int) int { return cmp.Compare(s.windows[a].from, s.windows[b].from) })
	var spans []sim.Span
	for _, i := range s.byFrom {
		w := s.windows[i]
		if n := len(spans); n > 0 && w.from <= spans[n-1].To {
			spans[n-1].To = max(spans[n-1].To, w.to)
			continue
		}
		spans = append(spans, sim.Span{From: w.from, To: w.to})
	}
	return s, spans
}

// record is the span recorder's sink: a notable record goes to every
// window open at its time.
func (s *storyteller) record(r sim.Record) {
	e, ok := story.Event(r)
	if !ok {
		return
	}
	for s.next < len(s.byFrom) && s.windows[s.byFrom[s.next]].from <= r.At {
		s.open = append(s.open, s.byFrom[s.next])
		s.next++
	}
	s.open = slices.DeleteFunc(s.open, func(i int) bool { return s.windows[i].to < r.At })
	for _, i := range s.open {
		s.windows[i].x.Add(e)
	}
}

// keptBytes is what the excerpters keep, with the events' text, for the
// budget's watch.
func (s *storyteller) keptBytes() uint64 {
	n := 0
	for i := range s.windows {
		n += s.windows[i].x.Kept()
	}
	return uint64(n) * uint64(unsafe.Sizeof(check.Event{})+48)
}

// tell gives each violation of rep its excerpt. The replay found the
// violations the first run found, in the same order; anything else is a
// broken invariant of the replay's exactness.
func (s *storyteller) tell(rep *check.Report) {
	if len(rep.Violations) != len(s.windows) {
		panic(fmt.Sprintf("model: the story replay found %d violations, the run %d", len(rep.Violations), len(s.windows)))
	}
	for i := range rep.Violations {
		v := &rep.Violations[i]
		if from, to := v.Window(); from != s.windows[i].from || to != s.windows[i].to {
			panic(fmt.Sprintf("model: the story replay's violation %d spans [%v, %v], the run's [%v, %v]", i, from, to, s.windows[i].from, s.windows[i].to))
		}
		v.Excerpt = s.windows[i].x.Excerpt()
	}
}
