package check

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cutWhole is the excerpt as a slice of the whole window gives it, the way
// Check cut excerpts before the Excerpter: the Excerpter, which sees one
// event at a time and keeps at most MaxExcerpt+2, must give the same.
func cutWhole(ev []Event) []Event {
	if len(ev) <= MaxExcerpt {
		return append([]Event(nil), ev...)
	}
	skipped := ev[half : len(ev)-half]
	out := append([]Event(nil), ev[:half]...)
	out = append(out, Event{At: skipped[0].At, Kind: "elided",
		Text: fmt.Sprintf("%d events elided, from %v to %v", len(skipped), skipped[0].At, skipped[len(skipped)-1].At)})
	return append(out, ev[len(ev)-half:]...)
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
