package check

import (
	"testing"
	"time"
)

// Starved measures a wait from when the client began to want the lock or
// the faults healed, whichever is later, and counts a want still open at
// the end up to the end.
func TestStarved(t *testing.T) {
	h := History{End: 100 * time.Second, Wants: []Attempt{
		{Client: "c1", Start: 0, End: 50 * time.Second, OK: true},       // 50 s, but only 10 s after the heal at 40 s
		{Client: "c2", Start: 45 * time.Second, End: 70 * time.Second},  // 25 s
		{Client: "c3", Start: 60 * time.Second, End: 100 * time.Second}, // open at the end: 40 s
	}}
	w, bad := Starved(h, 40*time.Second, 30*time.Second)
	if !bad || w.Client != "c3" || w.Wait != 40*time.Second {
		t.Errorf("Starved = %+v, %v; want c3 waiting 40s, a violation", w, bad)
	}
	if want := "c3 waits 40s for the lock after the faults healed at 40s (limit 30s)"; w.String() != want {
		t.Errorf("String() = %q, want %q", w.String(), want)
	}
	if _, bad := Starved(h, 40*time.Second, 40*time.Second); bad {
		t.Error("a 40s wait breaks a 40s limit")
	}
}
