package differ

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// stub is a real runner that is the simulator itself, bent where the test
// says: it runs cfg with model.RunFast on the base's seed (whatever seed it
// is given) and flips mutual exclusion's outcome where flip says so.
type stub struct {
	seed    uint64
	flip    func(cfg *model.Config, call int) bool
	refuse  func(cfg *model.Config) error
	calls   int
	byFault map[string]int // calls per schedule, by its faults
}

func (s *stub) Refused(cfg *model.Config) error {
	if s.refuse != nil {
		return s.refuse(cfg)
	}
	return nil
}

func (s *stub) Run(_ context.Context, cfg model.Config, _ uint64) (Outcome, error) {
	s.calls++
	if s.byFault == nil {
		s.byFault = map[string]int{}
	}
	k := fmt.Sprint(cfg.Faults)
	s.byFault[k]++
	r, err := model.RunFast(cfg, s.seed)
	if err != nil {
		return Outcome{}, err
	}
	o := Outcome{Mutex: !r.MutexSafe(), Resource: !r.ResourceSafe()}
	if s.flip != nil && s.flip(&cfg, s.byFault[k]) {
		o.Mutex = !o.Mutex
	}
	return o, nil
}

func has(cfg *model.Config, k model.FaultKind) bool {
	return slices.ContainsFunc(cfg.Faults, func(f model.Fault) bool { return f.Kind == k })
}

func baseline(t *testing.T) *explore.Explorer {
	t.Helper()
	b, err := scenarios.LoadBase("baseline")
	require.NoError(t, err)
	e, err := explore.New(explore.Options{Base: b, Kinds: []string{"pause", "crash", "partition"}, MaxFaults: 3, Differential: true})
	require.NoError(t, err)
	return e
}

func search(t *testing.T, opt Options) Summary {
	t.Helper()
	s, err := Search(context.Background(), opt)
	require.NoError(t, err)
	require.Equal(t, s.Schedules, s.Agree+s.Disagree+s.Flaky+s.Refused, "every schedule accounted for: %+v", s)
	require.Equal(t, opt.Runs, s.Schedules)
	return s
}

func TestASeededDisagreementShrinksToItsOneEssentialFault(t *testing.T) {
	e := baseline(t)
	// The "real system" differs from the model exactly where a node
	// crashes: that one fault is the disagreement's essence.
	st := &stub{seed: e.Scenario().Seed, flip: func(cfg *model.Config, _ int) bool { return has(cfg, model.Crash) }}
	dir := t.TempDir()
	s := search(t, Options{Explorer: e, Runner: st, Runs: 12, Repeat: 1, Seed: 1, Out: dir, Command: "test"})
	require.Positive(t, s.Disagree, "12 draws over pause, crash and partition: some crash")
	assert.Zero(t, s.Flaky)
	var several bool
	for _, f := range s.Findings {
		require.False(t, f.Flaky)
		several = several || len(f.Drawn) > 1
		require.Len(t, f.Minimal, 1, "drawn %s, shrunk to %s", f.Drawn, f.Minimal)
		assert.Equal(t, model.Crash, f.Minimal[0].Kind)
		assert.Equal(t, "crash:node", f.Shape)
		assert.Equal(t, f.Drawn.String(), f.Path[0])
		assert.Equal(t, f.Minimal.String(), f.Path[len(f.Path)-1])
		// The file replays the minimal schedule, and its lesson tells both sides.
		data, err := os.ReadFile(f.File)
		require.NoError(t, err)
		assert.Contains(t, string(data), "The simulator says mutual exclusion")
		sc, err := scenarios.LoadNamedWith(f.File, nil)
		require.NoError(t, err)
		assert.Equal(t, e.Config(f.Minimal).Faults, sc.Config.Faults)
	}
	assert.True(t, several, "at least one disagreement was drawn with more than its essential fault")
	files, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
	assert.Len(t, files, s.Disagree)
}

func TestADisagreementThatDoesNotSurviveARerunIsFlaky(t *testing.T) {
	e := baseline(t)
	// Only the first real run of each schedule parts from the model.
	st := &stub{seed: e.Scenario().Seed, flip: func(_ *model.Config, call int) bool { return call == 1 }}
	s := search(t, Options{Explorer: e, Runner: st, Runs: 5, Repeat: 1, Seed: 1, Out: t.TempDir()})
	assert.Equal(t, 5, s.Flaky)
	assert.Zero(t, s.Disagree)
	for _, f := range s.Findings {
		assert.True(t, f.Flaky)
		assert.Equal(t, f.Drawn.String(), f.Minimal.String(), "a flake is not shrunk")
		assert.Empty(t, f.File, "a flake is not written")
		assert.Equal(t, 1, f.First.N)
		assert.Equal(t, 1, f.Second.N)
	}
}

func TestTheRealRunBudgetIsNeverExceeded(t *testing.T) {
	e := baseline(t)
	// Every schedule disagrees, whatever it is: the shrink would go on to
	// the empty schedule's neighbours if the budget let it.
	st := &stub{seed: e.Scenario().Seed, flip: func(*model.Config, int) bool { return true }}
	const repeat, budget = 3, 10
	s := search(t, Options{Explorer: e, Runner: st, Runs: 6, Repeat: repeat, Budget: budget, Seed: 2})
	require.Equal(t, 6, s.Disagree)
	spent := 0
	for _, f := range s.Findings {
		assert.LessOrEqual(t, f.RealRuns, budget, "%s", f.Drawn)
		assert.True(t, f.Exhausted || len(f.Minimal) == 1, "%s", f.Minimal)
		spent += repeat + f.RealRuns
	}
	assert.Equal(t, st.calls, s.RealRuns)
	assert.Equal(t, spent, s.RealRuns, "the first batch and the spent budget are every real run")
}

func TestRefusedSchedulesNeverRunForReal(t *testing.T) {
	e := baseline(t)
	st := &stub{seed: e.Scenario().Seed, refuse: func(cfg *model.Config) error {
		if has(cfg, model.Partition) {
			return errors.New("no partitions here")
		}
		return nil
	}}
	s := search(t, Options{Explorer: e, Runner: st, Runs: 20, Repeat: 1, Seed: 1, Resolution: 50 * time.Millisecond})
	require.Positive(t, s.Refused)
	require.Positive(t, s.Agree)
	assert.Zero(t, s.Disagree+s.Flaky, "the stub is the model where it does not flip")
	assert.Equal(t, s.Agree, st.calls, "one real run per schedule that ran")
	for k := range st.byFault {
		assert.NotContains(t, k, "partition", "a refused schedule ran for real")
	}
	_, hi := results.Wilson(0, s.Agree)
	assert.Equal(t, hi, s.RateBound(), "no disagreement: the bound is over the schedules that ran both ways")
	assert.True(t, strings.Contains(s.FirstRefusal, "no partitions here") || strings.Contains(s.FirstRefusal, "below the 50ms"), s.FirstRefusal)
}

func TestSearchIsAPureFunctionOfItsInputs(t *testing.T) {
	run := func() Summary {
		e := baseline(t)
		st := &stub{seed: e.Scenario().Seed, flip: func(cfg *model.Config, _ int) bool { return has(cfg, model.Pause) }}
		return search(t, Options{Explorer: e, Runner: st, Runs: 8, Repeat: 1, Seed: 3})
	}
	a, b := run(), run()
	for i := range a.Findings {
		a.Findings[i].Elapsed, b.Findings[i].Elapsed = 0, 0
	}
	assert.Equal(t, a, b)
}

func TestAnInterruptedSearchKeepsWhatItFound(t *testing.T) {
	e := baseline(t)
	ctx, cancel := context.WithCancel(context.Background())
	st := &stub{seed: e.Scenario().Seed, flip: func(*model.Config, int) bool { return true }}
	s, err := Search(ctx, Options{Explorer: e, Runner: st, Runs: 50, Repeat: 1, Seed: 1, Progress: func(done, _ int) {
		if done == 2 {
			cancel()
		}
	}})
	require.NoError(t, err)
	assert.True(t, s.Interrupted)
	assert.Equal(t, 2, s.Disagree)
	assert.Len(t, s.Findings, 2)
	assert.Equal(t, 2, s.Schedules)
}

func TestDisagreementIsMajorityOrInterval(t *testing.T) {
	assert.Empty(t, disagreement(Outcome{}, Batch{N: 3}))
	assert.Empty(t, disagreement(Outcome{Mutex: true, Resource: true}, Batch{N: 3, Mutex: 3, Resource: 3}))
	assert.Equal(t, []string{"mutex: sim safe, real 2 of 3 violated"}, disagreement(Outcome{}, Batch{N: 3, Mutex: 2}))
	// 1 of 3 keeps the safe majority, but its interval [0.06, 0.79] excludes 0.
	assert.Equal(t, []string{"resource: sim safe, real 1 of 3 violated"}, disagreement(Outcome{}, Batch{N: 3, Resource: 1}))
	assert.True(t, sameWay([]string{"mutex: sim safe, real 2 of 3 violated"}, []string{"mutex: sim safe, real 3 of 3 violated"}))
	assert.False(t, sameWay([]string{"mutex: sim safe, real 2 of 3 violated"}, []string{"resource: sim safe, real 3 of 3 violated"}))
}

func TestRealKindsDropsWhatTheRunnerRefuses(t *testing.T) {
	b, err := scenarios.LoadBase("baseline")
	require.NoError(t, err)
	st := &stub{refuse: func(cfg *model.Config) error {
		if has(cfg, model.Crash) {
			return errors.New("no crashes here")
		}
		return nil
	}}
	kept, dropped, err := RealKinds(explore.Options{Base: b, Kinds: []string{"pause", "crash", "partition"}, MaxFaults: 3}, st, 0, 10, 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"pause", "partition"}, kept)
	require.Len(t, dropped, 1)
	assert.Equal(t, "crash", dropped[0].Kind)
	assert.Equal(t, "no crashes here", dropped[0].Why)
	assert.Zero(t, st.calls, "probing never runs anything for real")
}
