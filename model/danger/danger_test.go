package danger

import (
	"math"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/network"
)

// The lock is free when a quorum of nodes has lost the key: the
// quorum-th shortest remaining life; a node that is down never frees.
func TestFreeIn(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		rem    []time.Duration
		quorum int
		want   time.Duration
	}{
		{[]time.Duration{300 * ms, 100 * ms, 200 * ms}, 2, 200 * ms},
		{[]time.Duration{Gone, 100 * ms, Down}, 2, 100 * ms},
		{[]time.Duration{Gone, Down, Down}, 2, Down},
		{[]time.Duration{Gone, Gone, 5 * ms}, 2, 0},
		{[]time.Duration{5 * ms}, 2, Down},
	} {
		if got := FreeIn(c.rem, c.quorum); got != c.want {
			t.Errorf("FreeIn(%v, %d) = %v, want %v", c.rem, c.quorum, got, c.want)
		}
	}
	if m := Margin(250*ms, time.Second); m != 0.75 {
		t.Errorf("Margin = %v, want 0.75", m)
	}
	if Margin(Down, time.Second) != 0 || Margin(0, time.Second) != 1 {
		t.Errorf("Margin is not clamped to [0, 1]")
	}
}

// The trace keeps the running maximum's rises, and the first crossing of
// a level is strictly above it.
func TestTraceCrossing(t *testing.T) {
	var tr Trace
	for i, s := range []float64{0.1, 0.05, 0.3, 0.3, 0.7, Top} {
		tr.Note(time.Duration(i)*time.Second, s)
	}
	if len(tr) != 4 || tr.Max() != Top {
		t.Fatalf("trace %v", tr)
	}
	if at, ok := tr.Crossing(0.3); !ok || at != 4*time.Second {
		t.Errorf("crossing 0.3 at %v, %v; want 4s", at, ok)
	}
	if _, ok := tr.Crossing(Top); ok {
		t.Errorf("crossed above Top")
	}
}

// Outlasts is the chance that the holder's pause lasts until the lock is
// free: S(frozen + free)/S(frozen) of the pause law, 1 when the keys are
// gone, 0 when the lock never frees, and higher as the keys run out.
func TestOutlasts(t *testing.T) {
	l := network.Lognormal(30*time.Millisecond, 1)
	logS, ok := LogSurvival(l)
	if !ok {
		t.Fatal("no law for a lognormal")
	}
	tail := func(d time.Duration) float64 {
		return 0.5 * math.Erfc(math.Log(float64(d)/float64(l.Median))/l.Sigma/math.Sqrt2)
	}
	got := Outlasts(logS, 200*time.Millisecond, 800*time.Millisecond)
	if want := tail(time.Second) / tail(200*time.Millisecond); math.Abs(got-want) > 1e-12*want {
		t.Errorf("Outlasts = %v, want %v", got, want)
	}
	if Outlasts(logS, time.Second, 0) != 1 || Outlasts(logS, 0, Down) != 0 {
		t.Errorf("the ends are not 1 and 0")
	}
	if a, b := Outlasts(logS, 0, 900*time.Millisecond), Outlasts(logS, 0, 100*time.Millisecond); !(a < b) {
		t.Errorf("the score does not rise as the keys run out: %v then %v", a, b)
	}
	if _, ok := LogSurvival(network.Constant(time.Second)); ok {
		t.Errorf("a constant length has no law to rank by")
	}
}
