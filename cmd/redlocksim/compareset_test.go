package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
)

// compare's --set is run's: a bad one is refused with exit 2 and the
// message run gives (its file, key and what is valid), before any run.
func TestCompareRefusesABadSetAsRunDoes(t *testing.T) {
	asked := fakeRealRuns(t, func(model.Config, uint64) (*harness.Result, error) { return nil, errors.New("must not run") })
	for _, set := range []string{"lock.tll=20s", "lock.ttl=ten", "lock.ttl", "faults[7].for=1s", "lock..ttl=1s"} {
		code, runOut, runErr := runCLI("run", "gc-pause", "--set", set)
		require.Equal(t, exitBadInput, code, set)
		require.Empty(t, runOut)
		msg, ok := strings.CutPrefix(runErr, "redlocksim run: ")
		require.True(t, ok, runErr)
		require.Contains(t, msg, "--set: ")

		code, out, errOut := runCLI("compare", "gc-pause", "--set", set)
		assert.Equal(t, exitBadInput, code, set)
		assert.Empty(t, out)
		assert.Equal(t, "redlocksim compare: "+msg, errOut, set)
	}
	assert.Empty(t, *asked)

	// With several scenarios, the message says which one a key does not fit.
	code, _, errOut := runCLI("compare", "baseline", "gc-pause", "--set", "faults[0].for=1s")
	assert.Equal(t, exitBadInput, code)
	assert.Equal(t, "redlocksim compare: baseline: --set: faults[0].for: faults is not in the scenario, so there is no faults[0]\n", errOut)

	code, _, errOut = runCLI("compare", "--sweep", tinySweep, "--set", "lock.ttl=1s", "--out", t.TempDir()+"/x.csv")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "--set does not apply to --sweep")
	code, _, errOut = runCLI("compare", "--explore", "gc-pause", "--set", "lock.tll=1s")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, `redlocksim compare --explore: --set: lock.tll: unknown key; did you mean "ttl"?`)
	assert.Empty(t, *asked)
}

// A TTL longer than c1's pause keeps gc-pause safe: with --set the
// simulated column says so, and the real side is asked to run the same
// overridden scenario.
func TestCompareSetReachesBothSides(t *testing.T) {
	asked := fakeRealRuns(t, func(cfg model.Config, seed uint64) (*harness.Result, error) {
		return &harness.Result{Scale: 2, Report: check.Report{AcquireAttempts: 2, AcquireSuccesses: 1}}, nil
	})
	compare := func(args ...string) compareRow {
		t.Helper()
		code, out, errOut := runCLI(append([]string{"compare", "gc-pause", "--runs", "2", "--json"}, args...)...)
		require.Equal(t, exitOK, code, errOut)
		var rows []compareRow
		require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
		require.Len(t, rows, 1)
		return rows[0]
	}
	plain := compare()
	require.Len(t, *asked, 2)
	assert.Equal(t, 10*time.Second, (*asked)[0].Lock.TTL)
	assert.Equal(t, newRate(2, 2), plain.Sim.Mutex, "gc-pause violates on every seed")

	*asked = nil
	longer := compare("--set", "lock.ttl=20s", "--set", "workload.critical_section=1s")
	require.Len(t, *asked, 2)
	for _, cfg := range *asked {
		assert.Equal(t, 20*time.Second, cfg.Lock.TTL)
		assert.Equal(t, time.Second, cfg.Work.CriticalSection)
	}
	assert.Equal(t, newRate(0, 2), longer.Sim.Mutex, "a 20s TTL outlives the 15s pause")
	assert.Equal(t, newRate(0, 2), longer.Sim.Resource)
}

// One real run of gc-pause with a TTL longer than its pause: the real
// client keeps mutual exclusion too, and the row agrees.
func TestCompareSetRunsForReal(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run")
	}
	proctest.Need(t, "redis-server", "redis-server")
	bin := builtBinary(t)
	old := realClientBinary
	realClientBinary = func() (string, error) { return bin, nil }
	t.Cleanup(func() { realClientBinary = old })

	code, out, errOut := runCLI("compare", "gc-pause", "--runs", "1", "--json", "--set", "lock.ttl=20s")
	require.Equal(t, exitOK, code, errOut)
	var rows []compareRow
	require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
	require.Len(t, rows, 1)
	assert.Equal(t, newRate(0, 1), rows[0].Sim.Mutex)
	assert.Equal(t, newRate(0, 1), rows[0].Real.Mutex, "the real client kept mutual exclusion with a 20s TTL: %+v", rows[0])
}
