package model_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/network"
)

const (
	ms = time.Millisecond
	s  = time.Second
)

// redlockWorld is the debate's setting: five independent Redis masters,
// clients with perfect clocks, a fast network, no faults. Tests change what
// their scenario is about.
func redlockWorld(clients int) model.Config {
	cfg := model.Config{
		Name:     "test",
		Duration: 60 * s,
		Lock: client.LockConfig{
			Algorithm: client.Redlock, Key: "lock", TTL: 10 * s, RequestTimeout: 50 * ms,
			DriftFactor: 0.01, DriftConst: 2 * ms, ValidityCheck: true, ElapsedClock: proto.Mono,
			Retries: 3, RetryDelay: 200 * ms, RetryJitter: 100 * ms,
		},
		Work: client.WorkConfig{
			CriticalSection: 100 * ms, Think: 100 * ms, RequestTimeout: s, Tokens: client.NoToken,
		},
		Resource: model.ResourceConfig{Mode: resource.Unprotected},
		Sentinel: model.SentinelConfig{DownAfter: 30 * s, PingEvery: s},
		Network:  model.NetworkConfig{Latency: network.Uniform(500*time.Microsecond, 1500*time.Microsecond)},
	}
	for i := 1; i <= 5; i++ {
		cfg.Nodes = append(cfg.Nodes, model.NodeConfig{Name: fmt.Sprintf("n%d", i), Redis: redis.Config{Persistence: redis.None}})
	}
	for i := 1; i <= clients; i++ {
		cfg.Clients = append(cfg.Clients, model.ClientConfig{Name: fmt.Sprintf("c%d", i)})
	}
	return cfg
}

func client_(cfg *model.Config, name string) *model.ClientConfig {
	for i := range cfg.Clients {
		if cfg.Clients[i].Name == name {
			return &cfg.Clients[i]
		}
	}
	panic("no client " + name)
}

func node(cfg *model.Config, name string) *model.NodeConfig {
	for i := range cfg.Nodes {
		if cfg.Nodes[i].Name == name {
			return &cfg.Nodes[i]
		}
	}
	panic("no node " + name)
}

func cut(at time.Duration, from, to string) model.Fault {
	return model.Fault{At: at, Kind: model.Cut, Target: from, To: to}
}

// run runs cfg with seed and fails the test on a configuration error.
func run(t testing.TB, cfg model.Config, seed uint64) model.Result {
	t.Helper()
	r, err := model.Run(cfg, seed)
	require.NoError(t, err)
	return r
}

// outcome says how a run came out in the table's words.
func outcome(r model.Result) (mutex, res string) {
	mutex, res = "safe", "safe"
	if !r.MutexSafe() {
		mutex = "violation"
	}
	if !r.ResourceSafe() {
		res = "violation"
	}
	return
}

// expectOutcome runs cfg over several seeds and asserts the same outcome for
// every one: the scenarios are built so that the outcome follows from the
// mechanism, not from luck.
func expectOutcome(t *testing.T, cfg model.Config, mutex, res string) model.Result {
	t.Helper()
	var last model.Result
	for seed := uint64(1); seed <= 20; seed++ {
		r := run(t, cfg, seed)
		gotM, gotR := outcome(r)
		if gotM != mutex || gotR != res {
			rt, _ := model.RunTraced(cfg, seed)
			for _, rec := range rt.Trace {
				t.Log(rec.String())
			}
			t.Fatalf("seed %d: got mutex %s, resource %s; want mutex %s, resource %s\nreport: %+v", seed, gotM, gotR, mutex, res, r.Report)
		}
		last = r
	}
	return last
}
