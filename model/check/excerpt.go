package check

import (
	"fmt"
	"slices"
	"time"
)

// Window is the span of true time a violation's excerpt covers, both ends
// included: from the earlier hold's start (a mutex overlap's A) or the
// violation's Start (resource violations) to its End.
func (v Violation) Window() (from, to time.Duration) {
	from = v.Start
	if v.Kind == MutexOverlap && v.A.ID != 0 {
		from = min(from, v.A.Start)
	}
	return from, v.End
}

// Excerpter cuts one violation's excerpt from the log events of its window,
// given one at a time in true-time order, keeping at most MaxExcerpt+2 of
// them whatever the window's length: the first MaxExcerpt while there are
// no more, then the first MaxExcerpt/2+1 and the last MaxExcerpt/2+1, which
// are what the excerpt shows and the bounds of the elided middle. Check cuts
// its excerpts with it from the whole log; a run that keeps no log (a
// story replay, see model) feeds it the events of the window as they
// happen. The zero value is ready to use.
type Excerpter struct {
	first []Event // the first events, up to MaxExcerpt
	last  []Event // once n > MaxExcerpt: the last half+1 events, a ring
	n     int     // events given
}

const half = MaxExcerpt / 2

// Add gives the next event of the window.
func (x *Excerpter) Add(e Event) {
	x.n++
	switch {
	case x.n <= MaxExcerpt:
		x.first = append(x.first, e)
	case x.n == MaxExcerpt+1:
		// The ring starts with the last half events so far. Event i (from
		// 0) of the window goes to x.last[i%(half+1)].
		x.last = make([]Event, half+1)
		for i := MaxExcerpt - half; i < MaxExcerpt; i++ {
			x.last[i%(half+1)] = x.first[i]
		}
		x.last[MaxExcerpt%(half+1)] = e
		x.first = slices.Clone(x.first[:half+1])
	default:
		x.last[(x.n-1)%(half+1)] = e
	}
}

// Len is the number of events given.
func (x *Excerpter) Len() int { return x.n }

// Kept is the number of events x keeps: at most MaxExcerpt+2.
func (x *Excerpter) Kept() int { return len(x.first) + len(x.last) }

// Excerpt returns the excerpt: every event given, if there are at most
// MaxExcerpt, else the first and last MaxExcerpt/2 with one event of Kind
// "elided" between them saying how many were skipped, and from when to
// when. It does not alias x.
func (x *Excerpter) Excerpt() []Event {
	if x.n <= MaxExcerpt {
		return slices.Clone(x.first)
	}
	at := func(i int) Event { return x.last[i%(half+1)] }
	skipped := x.n - MaxExcerpt
	out := make([]Event, 0, MaxExcerpt+1)
	out = append(out, x.first[:half]...)
	out = append(out, Event{
		At:   x.first[half].At,
		Kind: "elided",
		Text: fmt.Sprintf("%d events elided, from %v to %v", skipped, x.first[half].At, at(x.n-half-1).At),
	})
	for i := x.n - half; i < x.n; i++ {
		out = append(out, at(i))
	}
	return out
}
