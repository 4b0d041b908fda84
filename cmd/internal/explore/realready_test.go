package explore

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
)

// Margin and Seeds make explore count only what a real replay can show
// (explore --confirm-real): an overlap long enough to resolve, on a
// schedule that does not hang on the simulator's random draws.

func TestAMarginCountsOnlyOverlapsThatLong(t *testing.T) {
	opt := Options{Kinds: []string{"pause"}, Runs: 400}
	e, plain := exploreFor(t, "baseline", nil, opt)
	// Without a margin the shrinker pushes a pause to the edge, where the
	// overlap is a few microseconds: far too brief for a real run.
	brief := false
	for _, f := range plain.Findings {
		r, err := model.RunFast(f.Config(), e.sc.Seed)
		if err != nil {
			t.Fatal(err)
		}
		brief = brief || r.Report.MutexOverlapMax < time.Millisecond
	}
	if !brief {
		t.Fatal("want a minimal counterexample without a margin whose overlap is under 1ms, to compare with")
	}
	opt.Margin = 80 * time.Millisecond
	e, wide := exploreFor(t, "baseline", nil, opt)
	if wide.Violating > plain.Violating || len(wide.Findings) == 0 {
		t.Errorf("a margin of 80ms: %d violations and %d findings, want some, and no more than the %d without one", wide.Violating, len(wide.Findings), plain.Violating)
	}
	for _, f := range wide.Findings {
		r, err := model.RunFast(f.Config(), e.sc.Seed)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Report.MutexOverlapMax; got < opt.Margin {
			t.Errorf("%s: longest overlap %v, under the margin %v", f.Minimal, got, opt.Margin)
		}
	}
	b, _ := explorer(t, "baseline", nil, Options{Property: Mutex})
	if _, err := New(Options{Base: b.base, Property: Resource, Margin: time.Second, MaxFaults: 3}); err == nil || !strings.Contains(err.Error(), "mutex property only") {
		t.Errorf("a margin on the resource property: got %v, want it refused", err)
	}
}

func TestRobustFindingsBreakOnAMajorityOfSeeds(t *testing.T) {
	opt := Options{Kinds: []string{"pause"}, Runs: 300, Seeds: 3}
	e, s := exploreFor(t, "baseline", nil, opt)
	if len(s.Findings) == 0 {
		t.Fatal("300 pause schedules on baseline with --robust 3: want a finding to check")
	}
	for _, f := range s.Findings {
		if seedsBroken(t, f, e.sc.Seed, 1) == 0 {
			t.Errorf("%s: safe on the base's own seed, which its file replays", f.Minimal)
		}
		if n := seedsBroken(t, f, e.sc.Seed, 3); n < 2 {
			t.Errorf("%s: violates on %d of seeds 1..3, want a majority", f.Minimal, n)
		}
	}
}

func TestRewriteRecordsTheRealReplayInTheLesson(t *testing.T) {
	dir := t.TempDir()
	_, s := exploreFor(t, "baseline", nil, Options{Kinds: []string{"pause"}, Runs: 200, Out: dir})
	if len(s.Findings) == 0 {
		t.Fatal("want a finding")
	}
	f := s.Findings[0]
	before, err := os.ReadFile(f.File)
	if err != nil {
		t.Fatal(err)
	}
	f.Real = &RealCheck{Runs: 3, Showed: 2, Client: "redsync v4.18.1 over go-redis v9", Scale: 8.57, Date: "2026-12-02"}
	if err := f.Rewrite("redlocksim explore baseline --confirm-real 3"); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(f.File)
	if err != nil {
		t.Fatal(err)
	}
	want := "Replayed for real (redlocksim explore --confirm-real) on 2026-12-02: 2 of 3 real runs broke mutex,\nwith redsync v4.18.1 over go-redis v9 at scale 8.57."
	if !strings.Contains(string(after), want) {
		t.Errorf("the rewritten file lacks %q:\n%s", want, after)
	}
	if strings.Contains(string(before), "Replayed for real") {
		t.Error("the file said it was replayed before it was")
	}
	if got := f.Real.String(); got != "2 of 3 showed it (redsync v4.18.1 over go-redis v9, scale 8.57, 2026-12-02)" {
		t.Errorf("summary line %q", got)
	}
	refused := &RealCheck{Runs: 3, Refused: "cannot run for real: loss fault"}
	if got := refused.String(); got != "not run for real: cannot run for real: loss fault" {
		t.Errorf("refused summary line %q", got)
	}
}

// A pause at a fixed time strikes a hold of its client only where the
// seed's turn-taking has the client holding then, which a real replay does
// not repeat; with OnAcquire (explore --confirm-real) the shrinker ties a
// client's pause to its next acquisition, and the minimal counterexample
// then breaks mutex on most seeds, not on the base's and a bare majority.
func TestOnAcquireTiesClientPausesToHolds(t *testing.T) {
	dir := t.TempDir()
	opt := Options{Kinds: []string{"pause"}, Runs: 300, Seeds: 3, Margin: 80 * time.Millisecond, Out: dir}
	_, timed := exploreFor(t, "baseline", nil, opt)
	opt.OnAcquire = true
	e, tied := exploreFor(t, "baseline", nil, opt)
	if len(tied.Findings) == 0 || len(timed.Findings) == 0 {
		t.Fatalf("300 pause schedules on baseline: %d findings timed, %d tied; want some of each", len(timed.Findings), len(tied.Findings))
	}
	bestTimed := 0
	for _, f := range timed.Findings {
		n := seedsBroken(t, f, e.sc.Seed, 20)
		t.Logf("timed: %s breaks mutex on %d of 20 seeds", f.Minimal, n)
		bestTimed = max(bestTimed, n)
	}
	if bestTimed >= 15 {
		t.Errorf("a timed pause broke mutex on %d of 20 seeds: want the comparison to show turn-taking's part", bestTimed)
	}
	for _, f := range tied.Findings {
		for _, st := range f.Minimal {
			if st.Kind == model.Pause && e.space.role(st.Target) == "client" && !st.OnAcquire {
				t.Errorf("%s: a pause of a client at a fixed time, want it on acquisition", f.Minimal)
			}
		}
		n := seedsBroken(t, f, e.sc.Seed, 20)
		t.Logf("tied: %s breaks mutex on %d of 20 seeds", f.Minimal, n)
		if n < 15 {
			t.Errorf("%s: breaks mutex on %d of 20 seeds, want at least 15", f.Minimal, n)
		}
		replays(t, e, f)
		b, err := os.ReadFile(f.File)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "on_acquire = true") {
			t.Errorf("%s's file does not say the pause is on acquisition:\n%s", f.File, b)
		}
	}
}

// seedsBroken counts the seeds from, from+1, ..., from+n-1 on which f's
// minimal schedule breaks mutual exclusion.
func seedsBroken(t *testing.T, f Finding, from uint64, n int) int {
	t.Helper()
	broken := 0
	for k := range uint64(n) {
		r, err := model.RunFast(f.Config(), from+k)
		if err != nil {
			t.Fatal(err)
		}
		if !r.MutexSafe() {
			broken++
		}
	}
	return broken
}
