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
//
// A run of events that repeat one another (the same actor, kind and text,
// one after another: a client failing to acquire thirty times while the
// holder is partitioned away) is one line of the excerpt, its Repeats and
// Last saying how many and until when. It counts once against MaxExcerpt,
// so that thirty identical attempts never push the events that caused
// the violation out of its story.
type Excerpter struct {
	first []Event // the first lines, up to MaxExcerpt
	last  []Event // once n > MaxExcerpt: the last half+1 lines, a ring
	n     int     // lines: events given, a run of repeats counting once
	given int     // events given
}

const half = MaxExcerpt / 2

// Add gives the next event of the window.
func (x *Excerpter) Add(e Event) {
	x.given++
	if x.n > 0 {
		if prev := x.latest(); e.repeats(*prev) {
			prev.Repeats++
			prev.Last = e.At
			return
		}
	}
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

// latest is the last line kept, which the next event may repeat.
func (x *Excerpter) latest() *Event {
	if x.n <= MaxExcerpt {
		return &x.first[x.n-1]
	}
	return &x.last[(x.n-1)%(half+1)]
}

// Len is the number of events given.
func (x *Excerpter) Len() int { return x.given }

// Kept is the number of events x keeps: at most MaxExcerpt+2.
func (x *Excerpter) Kept() int { return len(x.first) + len(x.last) }

// Excerpt returns the excerpt: every line, if there are at most
// MaxExcerpt, else the first and last MaxExcerpt/2 with one event of Kind
// "elided" between them saying how many events were skipped, and from
// when to when. It does not alias x.
func (x *Excerpter) Excerpt() []Event {
	if x.n <= MaxExcerpt {
		return slices.Clone(x.first)
	}
	at := func(i int) Event { return x.last[i%(half+1)] }
	out := make([]Event, 0, MaxExcerpt+1)
	out = append(out, x.first[:half]...)
	for i := x.n - half; i < x.n; i++ {
		out = append(out, at(i))
	}
	skipped := x.given
	for _, e := range out {
		skipped -= 1 + e.Repeats
	}
	elided := Event{
		At:   x.first[half].At,
		Kind: "elided",
		Text: fmt.Sprintf("%d events elided, from %v to %v", skipped, x.first[half].At, at(x.n-half-1).end()),
	}
	return slices.Insert(out, half, elided)
}
