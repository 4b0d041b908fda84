package explore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// explorer builds an explorer on a library base with --set overrides.
func explorer(t testing.TB, base string, sets []string, opt Options) (*Explorer, Options) {
	t.Helper()
	b, err := scenarios.LoadBase(base)
	if err != nil {
		t.Fatal(err)
	}
	o, err := scenarios.ParseOverrides(sets)
	if err != nil {
		t.Fatal(err)
	}
	opt.Base, opt.Sets = b, o
	if opt.Property == 0 {
		opt.Property = Mutex
	}
	if opt.MaxFaults == 0 {
		opt.MaxFaults = 3
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.Workers == 0 {
		opt.Workers = 2
	}
	e, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	return e, opt
}

func exploreFor(t testing.TB, base string, sets []string, opt Options) (*Explorer, Summary) {
	t.Helper()
	e, opt := explorer(t, base, sets, opt)
	s, err := e.Explore(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if s.Runs != opt.Runs {
		t.Fatalf("ran %d schedules, want %d", s.Runs, opt.Runs)
	}
	return e, s
}

// longHoldFindings explores the baseline with an 8 s critical section,
// which one fault of several kinds can break, writing the findings to a
// directory of the test's; it fails the test when opt's runs find none.
func longHoldFindings(t *testing.T, opt Options) (*Explorer, []Finding) {
	t.Helper()
	opt.Out = t.TempDir()
	e, s := exploreFor(t, "baseline", []string{"workload.critical_section=8s"}, opt)
	if len(s.Findings) == 0 {
		t.Fatalf("no violation in %d runs", s.Runs)
	}
	return e, s.Findings
}

// loadNamed loads a built-in scenario or fails t.
func loadNamed(t testing.TB, name string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.LoadNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// replays checks that a finding's file loads to the configuration the
// explorer ran and breaks the property the same way.
func replays(t *testing.T, e *Explorer, f Finding) {
	t.Helper()
	sc, err := scenarios.Load(f.File)
	if err != nil {
		t.Fatalf("the written file does not load: %v", err)
	}
	want := f.Config()
	got := sc.Config
	got.Name = want.Name
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s loads to another configuration than the one explored:\n got faults %+v\nwant faults %+v", f.File, got.Faults, want.Faults)
	}
	r, err := model.RunFast(sc.Config, sc.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if bad, what := f.on.verdict(&r); !bad || what != f.What {
		t.Errorf("run %s: violates %v with %q, want true with %q", f.File, bad, what, f.What)
	}
	if sc.Seed != e.sc.Seed {
		t.Errorf("the file's seed is %d, want the base's %d", sc.Seed, e.sc.Seed)
	}
}

// Contract: `explore baseline --faults pause --max-faults 3 --runs 2000
// --seed 1` finds a mutex violation whose minimal file holds exactly one
// fault, a pause of one client, and run of that file shows it.
func TestContractPauseIsOneClientPause(t *testing.T) {
	dir := t.TempDir()
	e, s := exploreFor(t, "baseline", nil, Options{Kinds: []string{"pause"}, Runs: 100, MaxShrinks: 2, Out: dir})
	if s.Violating == 0 || len(s.Findings) == 0 {
		t.Fatalf("no violation in %d runs", s.Runs)
	}
	f := s.Findings[0]
	if len(f.Minimal) != 1 || f.Minimal[0].Kind != model.Pause || e.Role(f.Minimal[0].Target) != "client" {
		t.Fatalf("the first minimal schedule is %v, want one pause of one client", f.Minimal)
	}
	if want := filepath.Join(dir, "baseline-mutex-1.toml"); f.File != want {
		t.Errorf("written to %s, want %s", f.File, want)
	}
	replays(t, e, f)
}

// Contract: with an 8 s critical section, crash-only schedules find a
// violation; every minimal one crashes distinct nodes, each back before
// the holder's validity (TTL less the drift allowance) has run out.
func TestContractCrashesOfDistinctNodes(t *testing.T) {
	e, found := longHoldFindings(t, Options{Kinds: []string{"crash"}, Runs: 200, MaxShrinks: 3})
	ttl := e.sc.Config.Lock.TTL
	for _, f := range found {
		seen := map[string]bool{}
		for _, st := range f.Minimal {
			if st.Kind != model.Crash || seen[st.Target] {
				t.Errorf("%v: want crashes of distinct nodes", f.Minimal)
			}
			seen[st.Target] = true
			if st.For >= ttl {
				t.Errorf("%v: %v restarts after %v, not within the TTL %v", f.Minimal, st.Target, st.For, ttl)
			}
		}
		replays(t, e, f)
	}
}

// Contract: with an 8 s critical section, forward clock steps break
// mutual exclusion; the minimal steps go forward.
func TestContractForwardClockSteps(t *testing.T) {
	e, found := longHoldFindings(t, Options{Kinds: []string{"clock-step"}, Runs: 200, MaxShrinks: 3})
	for _, f := range found {
		for _, st := range f.Minimal {
			if st.Kind != model.ClockStep || st.By <= 0 || e.Role(st.Target) != "node" {
				t.Errorf("%v: want forward steps of node clocks", f.Minimal)
			}
		}
		replays(t, e, f)
	}
}

// Contract: with AOF always, crashes never break mutual exclusion, and
// without persistence neither do crashes whose restart comes after the
// TTL; the summary then states the upper bound.
func TestContractNoViolationWithPersistenceOrDelayedRestart(t *testing.T) {
	for _, c := range []struct {
		name   string
		sets   []string
		bounds []string
	}{
		{"aof-always", []string{"workload.critical_section=8s", "nodes.persistence=always"}, nil},
		{"delayed-restart", []string{"workload.critical_section=8s"}, []string{"crash.for=11s..30s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, s := exploreFor(t, "baseline", c.sets, Options{Kinds: []string{"crash"}, Bounds: c.bounds, Runs: 300})
			if s.Violating != 0 {
				t.Fatalf("%d violations in %d runs, want none: %v", s.Violating, s.Runs, s.Findings)
			}
			var out bytes.Buffer
			e.WriteText(&out, s, Options{Seed: 1})
			if want := "0 violations in 300 runs; rate < 0.0126 at 95% within these bounds"; !strings.Contains(out.String(), want) {
				t.Errorf("the summary does not say %q:\n%s", want, out.String())
			}
		})
	}
}

// Contract: fencing keeps the resource safe under any pauses.
func TestContractFencingKeepsResource(t *testing.T) {
	_, s := exploreFor(t, "gc-pause-fencing", nil, Options{Property: Resource, Kinds: []string{"pause"}, Runs: 300})
	if s.Violating != 0 {
		t.Fatalf("%d resource violations in %d runs, want none: %v", s.Violating, s.Runs, s.Findings)
	}
}

// Contract: the output is the same for any number of workers.
func TestExploreSameForAnyWorkers(t *testing.T) {
	var outs []string
	for _, w := range []int{1, 3} {
		dir := t.TempDir()
		e, s := exploreFor(t, "baseline", []string{"workload.critical_section=8s"}, Options{Kinds: []string{"crash", "pause"}, Runs: 120, MaxShrinks: 3, Workers: w, Out: dir})
		var b bytes.Buffer
		e.WriteText(&b, s, Options{Seed: 1})
		text := strings.ReplaceAll(b.String(), dir, "DIR")
		for _, f := range s.Findings {
			data, err := os.ReadFile(f.File)
			if err != nil {
				t.Fatal(err)
			}
			text += string(data)
		}
		outs = append(outs, text)
	}
	if outs[0] != outs[1] {
		t.Errorf("1 worker and 3 workers differ:\n%s\n---\n%s", outs[0], outs[1])
	}
}

// An interrupted exploration returns what it found, marked as such.
func TestExploreInterruptKeepsFindings(t *testing.T) {
	e, opt := explorer(t, "baseline", nil, Options{Kinds: []string{"pause"}, Runs: 100000, Workers: 1})
	ctx, cancel := context.WithCancel(context.Background())
	opt.Progress = func(done, todo int) {
		if done >= 256 {
			cancel()
		}
	}
	s, err := e.Explore(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Interrupted || s.Runs < 256 || s.Runs >= 100000 {
		t.Fatalf("interrupted %v after %d runs, want true after 256 to 100000", s.Interrupted, s.Runs)
	}
	if s.Violating == 0 || len(s.Findings) == 0 {
		t.Errorf("kept %d violations and %d findings, want some", s.Violating, len(s.Findings))
	}
}

// --time runs until the budget is spent.
func TestExploreTimeBudget(t *testing.T) {
	e, opt := explorer(t, "baseline", nil, Options{Kinds: []string{"clock-rate"}, Time: 200 * time.Millisecond, Workers: 1})
	s, err := e.Explore(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if s.Runs == 0 {
		t.Error("no run in 200ms")
	}
}

// Bad input names what would be valid.
func TestNewSpaceBadInput(t *testing.T) {
	base := loadNamed(t, "baseline")
	lease := loadNamed(t, "consensus-lease-pauses")
	for _, c := range []struct {
		cfg    *model.Config
		kinds  []string
		bounds []string
		want   string
	}{
		{&base.Config, nil, []string{"pause.length=0s..1s"}, `unknown key "pause.length"; valid: at, pause.for`},
		{&base.Config, nil, []string{"pause.for=20s..1s"}, "lo 20s is greater than hi 1s"},
		{&base.Config, nil, []string{"pause.for=0s"}, "want lo..hi after the ="},
		{&base.Config, nil, []string{"pause.for=a..1s"}, `"a" is not a duration`},
		{&base.Config, nil, []string{"at=0s..2m"}, "faults must fall before the end of the run"},
		{&base.Config, []string{"heal"}, nil, `the explorer does not draw "heal"; valid: pause, crash`},
		{&lease.Config, []string{"crash"}, nil, "the lease lock has no Redis node to crash"},
	} {
		_, err := NewSpace(c.cfg, c.kinds, 3, c.bounds)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("kinds %v bounds %v: error %v, want one containing %q", c.kinds, c.bounds, err, c.want)
		}
	}
}

// Contract, in steady state: once the first holds are over (faults from
// 10 s on), a holder holds all five nodes, and the minimal schedules are
// the textbook ones: three crashes of distinct nodes during one hold, each
// back at once, and forward steps of three distinct nodes' clocks. (From
// the start, one crash or step suffices: the clients start together and
// the first holder gets a bare majority; see the tests above.)
func TestContractSteadyStateNeedsAMajority(t *testing.T) {
	for _, c := range []struct {
		kind string
		runs int
	}{{"crash", 100}, {"clock-step", 600}} {
		t.Run(c.kind, func(t *testing.T) {
			e, found := longHoldFindings(t, Options{Kinds: []string{c.kind}, Bounds: []string{"at=10s..59s"}, Runs: c.runs, MaxShrinks: 1})
			f := found[0]
			nodes := map[string]bool{}
			first, last := f.Minimal[0].At, f.Minimal[0].At
			for _, st := range f.Minimal {
				nodes[st.Target] = e.Role(st.Target) == "node" && (st.Kind != model.ClockStep || st.By > 0)
				first, last = min(first, st.At), max(last, st.At)
			}
			if len(f.Minimal) != 3 || len(nodes) != 3 || !nodes[f.Minimal[0].Target] || !nodes[f.Minimal[1].Target] || !nodes[f.Minimal[2].Target] {
				t.Errorf("%v: want three %ss of distinct nodes (steps forward)", f.Minimal, c.kind)
			}
			if last-first >= e.sc.Config.Lock.TTL {
				t.Errorf("%v: the faults span %v, more than one hold", f.Minimal, last-first)
			}
			replays(t, e, f)
		})
	}
}
