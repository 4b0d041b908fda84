package model_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
)

// For any schedule of pauses, of any lengths, of any processes, in any of
// the four algorithms' worlds, the run completes, its history keeps the
// simulator's contract, and its report is the checker's verdict on that
// history.
func TestAnyPauseScheduleKeepsTheRunSound(t *testing.T) {
	worlds := map[string]func() model.Config{
		"redlock": func() model.Config { c := redlockWorld(3); c.Duration = 20 * s; c.Lock.TTL = 2 * s; return c },
		"single": func() model.Config {
			c := redlockWorld(3)
			c.Nodes = c.Nodes[:1]
			c.Lock.Algorithm = 1
			c.Duration = 20 * s
			return c
		},
		"failover": func() model.Config {
			c := failoverWorld()
			c.Faults = nil
			c.Work.Iterations = 0
			c.Work.CriticalSection = s
			c.Duration = 20 * s
			return c
		},
		"lease": func() model.Config { c := leaseWorld(); c.Faults = nil; c.Duration = 20 * s; return c },
	}
	rapid.Check(t, func(t *rapid.T) {
		kind := rapid.SampledFrom([]string{"redlock", "single", "failover", "lease"}).Draw(t, "world")
		cfg := worlds[kind]()
		plan, err := model.Compile(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		procs := plan.Processes()
		n := rapid.IntRange(1, 8).Draw(t, "pauses")
		for i := 0; i < n; i++ {
			cfg.Faults = append(cfg.Faults, model.Fault{
				Kind:   model.Pause,
				At:     time.Duration(rapid.Int64Range(0, int64(cfg.Duration-1)).Draw(t, fmt.Sprint("at", i))),
				Target: rapid.SampledFrom(procs).Draw(t, fmt.Sprint("target", i)),
				For:    time.Duration(rapid.Int64Range(1, int64(6*s)).Draw(t, fmt.Sprint("for", i))),
			})
		}
		if kind == "lease" && rapid.Bool().Draw(t, "election") {
			cfg.Faults = append(cfg.Faults, model.Fault{Kind: model.Election,
				At:  time.Duration(rapid.Int64Range(0, int64(cfg.Duration-1)).Draw(t, "election-at")),
				For: time.Duration(rapid.Int64Range(1, int64(4*s)).Draw(t, "election-for"))})
		}
		seed := rapid.Uint64Range(1, 1000).Draw(t, "seed")
		// The narrated run keeps the history; the fast run judged it
		// online, and must agree but for the excerpts.
		r, err := model.RunTraced(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.History.Validate(); err != nil {
			t.Fatalf("history breaks the contract: %v", err)
		}
		if got := check.Check(r.History); !reflect.DeepEqual(got, r.Report) {
			t.Fatalf("report %+v is not the checker's verdict %+v", r.Report, got)
		}
		fast, err := model.RunFast(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		if want := withoutExcerpts(r.Report); !reflect.DeepEqual(fast.Report, want) {
			t.Fatalf("fast report %+v is not the narrated run's %+v", fast.Report, want)
		}
		if rep := r.Report; rep.AcquireSuccesses+rep.AcquireFailures > rep.AcquireAttempts || rep.LostUpdates > rep.WritesAccepted {
			t.Fatalf("inconsistent counts: %+v", rep)
		}
	})
}

// withoutExcerpts is r with its violations' excerpts cut, as a fast run,
// which keeps no narration log, reports them.
func withoutExcerpts(r check.Report) check.Report {
	r.Violations = slices.Clone(r.Violations)
	for i := range r.Violations {
		r.Violations[i].Excerpt = nil
	}
	return r
}
