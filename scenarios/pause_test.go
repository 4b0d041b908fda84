package scenarios

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
)

// busiest is the start of the half-second of the scenario's run (at its
// own seed) in which its actors narrate the most while somebody holds the
// lock: when a pause finds the most in flight, leases and keys included.
func busiest(t *testing.T, cfg model.Config, seed uint64) time.Duration {
	r, err := model.RunTraced(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	const bucket = 500 * time.Millisecond
	held := func(at time.Duration) bool {
		return slices.ContainsFunc(r.History.Holds, func(h check.Hold) bool { return h.Start <= at && at < h.End })
	}
	count := map[time.Duration]int{}
	best := time.Duration(-1)
	for _, rec := range r.Trace {
		b := rec.At / bucket * bucket
		if !held(b) {
			continue
		}
		count[b]++
		if best < 0 || count[b] > count[best] || (count[b] == count[best] && b < best) {
			best = b
		}
	}
	if best < 0 {
		t.Fatal("nobody ever holds the lock")
	}
	return best
}

// Every process of every library scenario, paused at the scenario's
// busiest moment for 3 s (longer than most scenarios' TTL), runs to the end on
// seeds 1–20 without a panic, and the report is the checker's verdict on
// a history that keeps the simulator's contract.
func TestLibraryPauseEveryProcessAtTheBusiestMoment(t *testing.T) {
	names := LibraryNames()
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, name := range names {
		s := loadLibrary(t, name)
		at := busiest(t, s.Config, s.Seed)
		plan, err := model.Compile(&s.Config)
		if err != nil {
			t.Fatal(err)
		}
		procs := plan.Processes()
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			for _, target := range procs {
				cfg := s.Config
				cfg.Faults = append(slices.Clone(cfg.Faults), model.Fault{At: at, Kind: model.Pause, Target: target, For: 3 * time.Second})
				for seed := uint64(1); seed <= 20; seed++ {
					if err := pausedRun(cfg, seed); err != nil {
						t.Errorf("%s, %s paused at %v, seed %d: %v", name, target, at, seed, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func pausedRun(cfg model.Config, seed uint64) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	// The narrated run keeps the history; the fast run judged it online
	// and must agree, but for the excerpts, which need the narration.
	r, err := model.RunTraced(cfg, seed)
	if err != nil {
		return err
	}
	if err := r.History.Validate(); err != nil {
		return fmt.Errorf("history breaks the contract: %w", err)
	}
	if got := check.Check(r.History); !reflect.DeepEqual(got, r.Report) {
		return fmt.Errorf("report %+v is not the checker's verdict %+v", r.Report, got)
	}
	fast, err := model.RunFast(cfg, seed)
	if err != nil {
		return err
	}
	want := r.Report
	want.Violations = slices.Clone(want.Violations)
	for i := range want.Violations {
		want.Violations[i].Excerpt = nil
	}
	if !reflect.DeepEqual(fast.Report, want) {
		return fmt.Errorf("fast report %+v is not the narrated run's %+v", fast.Report, want)
	}
	return nil
}
