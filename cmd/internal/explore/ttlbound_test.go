package explore

import (
	"testing"
	"time"
)

// The default bounds of what outlasts a lock reach twice its TTL: on a
// 30 s lock a pause bound of 20 s can never outlast it (the trial found
// nothing there), while a 10 s lock keeps the old bounds.
func TestDefaultBoundsScaleWithTTL(t *testing.T) {
	base := loadNamed(t, "baseline")
	for _, c := range []struct {
		ttl                    time.Duration
		pause, crash, step, rp float64
	}{
		{10 * time.Second, 20e9, 30e9, 30e9, 20000},
		{30 * time.Second, 60e9, 60e9, 60e9, 20000},
		{time.Second, 20e9, 30e9, 30e9, 20000},
	} {
		cfg := base.Config
		cfg.Lock.TTL = c.ttl
		sp, err := NewSpace(&cfg, []string{"pause"}, 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := []float64{sp.bounds["pause.for"].Hi, sp.bounds["crash.for"].Hi, sp.bounds["clock-step.by"].Hi, -sp.bounds["clock-step.by"].Lo, sp.bounds["clock-rate.ppm"].Hi}
		want := []float64{c.pause, c.crash, c.step, c.step, c.rp}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("ttl %v: bounds pause, crash, step hi, -step lo, ppm = %v, want %v", c.ttl, got, want)
				break
			}
		}
	}
	cfg := base.Config
	cfg.Lock.TTL = 30 * time.Second
	sp, err := NewSpace(&cfg, []string{"pause"}, 3, []string{"pause.for=0s..5s"})
	if err != nil {
		t.Fatal(err)
	}
	if b := sp.bounds["pause.for"]; b.Hi != 5e9 {
		t.Errorf("--bound pause.for=0s..5s gave %v: the flag wins over the scaled default", b)
	}
}

// On a 30 s lock, pause-only exploration finds a violation through a
// pause the 20 s bound could not draw (with it: 0 violations in 60 runs).
func TestExploreFindsAPauseOnALongLock(t *testing.T) {
	_, s := exploreFor(t, "baseline", []string{"lock.ttl=30s", "duration=120s"}, Options{Kinds: []string{"pause"}, Runs: 60, MaxShrinks: 1})
	if s.Violating == 0 {
		t.Fatalf("no violation in %d runs on a 30s lock", s.Runs)
	}
	long := false
	for _, f := range s.Findings {
		for _, st := range f.Minimal {
			long = long || st.For > 20*time.Second
		}
	}
	if !long {
		t.Errorf("no finding pauses longer than 20s: %v", s.Findings)
	}
}
