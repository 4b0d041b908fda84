package harness

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/etcd"
	"github.com/redlocksim/redlocksim/cmd/internal/real/zookeeper"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
)

// Adding a fault kind to the model must add its rule here: refused with a
// reason, or scheduled. This test fails until the table has an entry for
// every kind model.FaultKinds names.
func TestEveryFaultKindHasARule(t *testing.T) {
	names := model.FaultKinds()
	require.NotEmpty(t, names)
	for _, name := range names {
		k, err := model.ParseFaultKind(name)
		require.NoError(t, err)
		rule, ok := faultRules[k]
		if !assert.True(t, ok, "fault kind %q has no rule in harness.faultRules", name) {
			continue
		}
		assert.True(t, rule.refuse != nil || rule.schedule != nil, "fault kind %q: its rule neither refuses nor schedules", name)
	}
	assert.Len(t, faultRules, len(names), "faultRules has a rule for a kind the model does not have")
}

// A kind with no rule is refused by name, never run without: a kind the
// table lacks (here: one removed for the test) is a RefusedError, and
// schedule, should a run get past Refusals, an error.
func TestAKindWithoutARuleIsRefused(t *testing.T) {
	cfg := load(t, "gc-pause").Config
	saved, ok := faultRules[model.Pause]
	require.True(t, ok)
	delete(faultRules, model.Pause)
	defer func() { faultRules[model.Pause] = saved }()
	refused, _ := Refusals(&cfg)
	require.Len(t, refused, 1)
	assert.Equal(t, "cannot run for real: pause fault: the real harness has no rule for this fault kind (harness.faultRules)", refused[0].Error())
	sc := Scale(cfg, 5)
	_, err := (&run{cfg: &sc}).schedule()
	assert.ErrorContains(t, err, "no way to apply a pause fault for real")
}

// Every lock algorithm has a system, and every system's driver is one a
// client process can run.
func TestEveryAlgorithmHasASystem(t *testing.T) {
	names := client.Algorithms()
	for _, name := range names {
		a, err := client.ParseAlgorithm(name)
		require.NoError(t, err)
		if why, refused := noServer[a]; refused {
			// No server for it here: refused with the reason, never run.
			_, hasSystem := systems[a]
			assert.False(t, hasSystem, "algorithm %v: both a system and a reason it has none", a)
			cfg := load(t, "gc-pause").Config
			cfg.Lock.Algorithm = a
			refused, _ := Refusals(&cfg)
			if assert.NotEmpty(t, refused, "algorithm %v", a) {
				assert.Contains(t, refused[0].Error(), why, "algorithm %v", a)
			}
			continue
		}
		sys, ok := systems[a]
		if !assert.True(t, ok, "algorithm %v has no system in harness.systems", a) {
			continue
		}
		d := sys.driver(client.LockConfig{Algorithm: a, ValidityCheck: true, ElapsedClock: 1})
		assert.Contains(t, drivers, d, "algorithm %v: driver %q", a, d)
		// The system runs the servers the model's world has for a.
		bins := sys.binaries()
		assert.Contains(t, bins, binary{"redis-server", "redis-server"}, "algorithm %v", a)
		assert.Equal(t, a.Sentinel(), slices.Contains(bins, binary{"redis-sentinel", "redis-sentinel"}), "algorithm %v: a sentinel", a)
		store := slices.Contains(bins, binary{etcd.Binary, etcd.Package}) || slices.Contains(bins, binary{zookeeper.Jar, zookeeper.Package})
		assert.Equal(t, a.Store(), store, "algorithm %v: a consensus store", a)
	}
	assert.Len(t, systems, len(names)-len(noServer))
	cfg := load(t, "gc-pause").Config
	cfg.Lock.Algorithm = client.Algorithm(len(names) + 1)
	refused, _ := Refusals(&cfg)
	require.NotEmpty(t, refused)
	assert.Contains(t, refused[0].Error(), "the real harness has no system for this algorithm")
}

// Each system starts its own servers: a failover scenario needs the
// Sentinel and bounds the scale by its down-after; a Redlock one neither.
func TestSystemsDiffer(t *testing.T) {
	fo := load(t, "failover-race").Config
	rl := load(t, "gc-pause").Config
	assert.Equal(t, []binary{{"redis-server", "redis-server"}, {"redis-sentinel", "redis-sentinel"}}, systems[fo.Lock.Algorithm].binaries())
	assert.Equal(t, []binary{{"redis-server", "redis-server"}}, systems[rl.Lock.Algorithm].binaries())
	fo.Sentinel.DownAfter = 2 * time.Second
	assert.ErrorContains(t, CheckScale(&fo, 4), "sentinel.down_after 500ms, below the 1s")
	assert.Equal(t, 2.0, MaxScale(&fo))
	assert.NoError(t, CheckScale(&rl, 4))
}
