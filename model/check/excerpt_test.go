package check

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cutWhole is the excerpt as a slice of the whole window gives it, the way
// Check cut excerpts before the Excerpter: the Excerpter, which sees one
// event at a time and keeps at most MaxExcerpt+2, must give the same.
// Runs of repeated events are collapsed first, over the whole window.
func cutWhole(ev []Event) []Event {
	ev = collapseWhole(ev)
	if len(ev) <= MaxExcerpt {
		return ev
	}
	skipped := ev[half : len(ev)-half]
	n := 0
	for _, e := range skipped {
		n += 1 + e.Repeats
	}
	out := append([]Event(nil), ev[:half]...)
	out = append(out, Event{At: skipped[0].At, Kind: "elided",
		Text: fmt.Sprintf("%d events elided, from %v to %v", n, skipped[0].At, skipped[len(skipped)-1].end())})
	return append(out, ev[len(ev)-half:]...)
}

// collapseWhole makes each run of events that repeat one another one line.
func collapseWhole(ev []Event) []Event {
	var out []Event
	for _, e := range ev {
		if k := len(out) - 1; k >= 0 && e.Actor == out[k].Actor && e.Kind == out[k].Kind && e.Text == out[k].Text {
			out[k].Repeats++
			out[k].Last = e.At
			continue
		}
		out = append(out, e)
	}
	return out
}

func TestExcerpterMatchesWholeWindow(t *testing.T) {
	for n := 0; n <= 3*MaxExcerpt+7; n++ {
		var ev []Event
		var x Excerpter
		for i := range n {
			e := Event{At: time.Duration(i) * time.Millisecond, Actor: "c1", Kind: "tick", Text: fmt.Sprint(i)}
			ev = append(ev, e)
			x.Add(e)
			require.LessOrEqual(t, x.Kept(), MaxExcerpt+2, "n %d: kept", i+1)
		}
		require.Equal(t, n, x.Len())
		require.Equal(t, cutWhole(ev), x.Excerpt(), "n %d", n)
	}
}

// Windows where runs of repeats fall anywhere, across the ring's seams
// too, cut the same as collapsing the whole window and then slicing it.
func TestExcerpterCollapsesRepeatsAsTheWholeWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		var ev []Event
		var x Excerpter
		n := rng.IntN(4 * MaxExcerpt)
		for i := range n {
			text := fmt.Sprint(i)
			if i > 0 && rng.IntN(3) > 0 { // two in three repeat the one before
				text = ev[i-1].Text
			}
			e := Event{At: time.Duration(i) * time.Millisecond, Actor: "c2", Kind: "try-fails", Text: text}
			ev = append(ev, e)
			x.Add(e)
			require.LessOrEqual(t, x.Kept(), MaxExcerpt+2, "trial %d, n %d: kept", trial, i+1)
		}
		require.Equal(t, n, x.Len())
		require.Equal(t, cutWhole(ev), x.Excerpt(), "trial %d, n %d", trial, n)
	}
}

// Thirty identical failed attempts between the cause and the violation
// are one line, and the cause stays in the story.
func TestExcerpterKeepsTheCauseBesideRepeatedFailures(t *testing.T) {
	var x Excerpter
	x.Add(Event{At: time.Second, Actor: "c1", Kind: "renewal-stops", Text: "c1 stops renewing the lock"})
	for i := range 30 {
		x.Add(Event{At: 5*time.Second + time.Duration(i)*100*time.Millisecond, Actor: "c2", Kind: "try-fails", Text: "c2 fails to acquire: 0 of 1 nodes said OK"})
	}
	x.Add(Event{At: 10 * time.Second, Actor: "resource", Kind: "write", Text: "resource accepts c1's write"})
	ex := x.Excerpt()
	require.Len(t, ex, 3)
	require.Equal(t, "c1 stops renewing the lock", ex[0].Line())
	require.Equal(t, "c2 fails to acquire: 0 of 1 nodes said OK [×30, 5s–7.9s]", ex[1].Line())
	require.Equal(t, 32, x.Len())
}

func TestViolationWindow(t *testing.T) {
	a := Hold{ID: 1, Start: 2 * time.Second}
	v := Violation{Kind: MutexOverlap, Start: 5 * time.Second, End: 7 * time.Second, A: a}
	from, to := v.Window()
	require.Equal(t, 2*time.Second, from, "a mutex overlap's story begins with the earlier hold")
	require.Equal(t, 7*time.Second, to)
	v.Kind = StaleWriteAccepted
	from, _ = v.Window()
	require.Equal(t, 5*time.Second, from, "a resource violation's Start already bounds its story")
}
