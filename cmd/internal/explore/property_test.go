package explore

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// violating is a pool of drawn schedules that violate, per base, found
// once: rapid then picks among them rather than searching each time.
type violating struct {
	e     *Explorer
	found []Schedule
}

var pools = struct {
	sync.Mutex
	m map[string]*violating
}{m: map[string]*violating{}}

func pool(t testing.TB, kind string) *violating {
	pools.Lock()
	defer pools.Unlock()
	if p, ok := pools.m[kind]; ok {
		return p
	}
	e, opt := explorer(t, "baseline", []string{"workload.critical_section=8s"}, Options{Kinds: []string{kind}})
	p := &violating{e: e}
	for i := 0; i < 600 && len(p.found) < 4; i++ {
		if s := e.DrawRun(opt.Seed, i); e.Violates(s) {
			p.found = append(p.found, s)
		}
	}
	if len(p.found) == 0 {
		t.Fatalf("no %s schedule violates in 600 runs", kind)
	}
	pools.m[kind] = p
	return p
}

// The shrinker's contract, on violating schedules drawn by the explorer
// itself: the shrunk schedule still violates, is never larger, replays
// byte-identically from its written file, and is 1-minimal: dropping any
// one fault, or moving any magnitude or time one step nearer zero, makes
// the run pass.
func TestShrinkProperties(t *testing.T) {
	dir := t.TempDir()
	checked := map[string]bool{}
	rapid.Check(t, func(rt *rapid.T) {
		kind := rapid.SampledFrom([]string{"pause", "crash", "clock-step"}).Draw(rt, "kind")
		p := pool(t, kind)
		i := rapid.IntRange(0, len(p.found)-1).Draw(rt, "schedule")
		key := fmt.Sprint(kind, i)
		if checked[key] {
			return // the shrinker is deterministic: this one passed already
		}
		drawn := p.found[i]
		min, e := p.e.Shrink(drawn)
		if !e.Violates(min) {
			rt.Fatalf("shrunk %v to %v, which does not violate", drawn, min)
		}
		if len(min) > len(drawn) {
			rt.Fatalf("shrunk %d faults to %d", len(drawn), len(min))
		}
		for i := range min {
			if e.Violates(min.without(i)) {
				rt.Fatalf("%v still violates without %v", min, min[i])
			}
			for _, f := range fields(min[i].Kind) {
				cur := f.get(&min[i])
				z := e.space.zero(f.bounded, cur)
				if cur == z {
					continue
				}
				t2 := slices.Clone(min)
				f.set(&t2[i], cur-f.unit*sign(cur-z))
				if e.Violates(t2) {
					rt.Fatalf("%v still violates with %s of %v one step nearer zero", min, f.key, min[i])
				}
			}
		}
		// The written file replays: the same configuration, and the same
		// run, event for event.
		data, err := e.Render("shrunk", min, "test", 0)
		if err != nil {
			rt.Fatal(err)
		}
		path := filepath.Join(dir, "shrunk.toml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			rt.Fatal(err)
		}
		sc, err := scenarios.Load(path)
		if err != nil {
			rt.Fatalf("the written file does not load: %v\n%s", err, data)
		}
		want, err := model.RunTraced(e.Config(min), e.sc.Seed)
		if err != nil {
			rt.Fatal(err)
		}
		got, err := model.RunTraced(sc.Config, sc.Seed)
		if err != nil {
			rt.Fatal(err)
		}
		if !reflect.DeepEqual(got.Trace, want.Trace) || got.Events != want.Events || got.Report.MutexViolations != want.Report.MutexViolations {
			rt.Fatalf("the file's run differs from the explored one: %d events and %d overlaps, want %d and %d", got.Events, got.Report.MutexViolations, want.Events, want.Report.MutexViolations)
		}
		checked[key] = true
	})
}
