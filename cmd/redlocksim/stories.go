package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/redlocksim/redlocksim/model/check"
)

// toldStory is a violation's excerpt as printed: its number (from 1) and its
// lines.
type toldStory struct {
	n      int
	lines  []check.Event
	events map[check.Event]bool
}

// writeStories prints each violation with the story that explains it. One
// fault usually causes several violations (gc-pause: a stale write, the
// update it lost, and the overlap behind both) whose excerpts tell the same
// story, so a story is printed once: a violation whose every line is in a
// story printed above refers to that story instead, and one whose story
// begins with a story printed above refers to it and prints only what
// follows.
func writeStories(w io.Writer, vs []check.Violation) {
	var told []toldStory
	for i, v := range vs {
		fmt.Fprintf(w, "  %d. %s: %s\n", i+1, v.Kind, v.Summary)
		if s, ok := storyHolding(told, v.Excerpt); ok {
			if len(v.Excerpt) == len(s.events) {
				fmt.Fprintf(w, "       (the story is %d's, above)\n", s.n)
			} else {
				fmt.Fprintf(w, "       (the story is %d's above, up to %s)\n", s.n, fmtSeconds(v.Excerpt[len(v.Excerpt)-1].At))
			}
			continue
		}
		rest := v.Excerpt
		if s, ok := storyBeginning(told, v.Excerpt); ok {
			fmt.Fprintf(w, "       (%d's story, above, and then:)\n", s.n)
			rest = v.Excerpt[len(s.lines):]
		}
		s := toldStory{n: i + 1, lines: v.Excerpt, events: make(map[check.Event]bool, len(v.Excerpt))}
		for _, e := range v.Excerpt {
			s.events[e] = true
		}
		for _, e := range rest {
			fmt.Fprintf(w, "       %12s  %s\n", fmtSeconds(e.At), e.Line())
		}
		told = append(told, s)
	}
}

// storyHolding returns the first story that contains every event of
// excerpt. An empty excerpt is nobody's story: it has nothing to refer to.
func storyHolding(told []toldStory, excerpt []check.Event) (toldStory, bool) {
	if len(excerpt) == 0 {
		return toldStory{}, false
	}
	for _, s := range told {
		all := true
		for _, e := range excerpt {
			if !s.events[e] {
				all = false
				break
			}
		}
		if all {
			return s, true
		}
	}
	return toldStory{}, false
}

// storyBeginning returns the longest story that excerpt begins with, line
// for line.
func storyBeginning(told []toldStory, excerpt []check.Event) (toldStory, bool) {
	var best toldStory
	for _, s := range told {
		if len(s.lines) > len(best.lines) && len(s.lines) < len(excerpt) && slices.Equal(s.lines, excerpt[:len(s.lines)]) {
			best = s
		}
	}
	return best, len(best.lines) > 0
}
