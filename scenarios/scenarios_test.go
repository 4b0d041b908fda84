package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/network"
)

const ms = time.Millisecond

// TestFullExample: testdata/full.toml sets a value different from the
// default for most keys; the Config it gives is spelled out in full.
func TestFullExample(t *testing.T) {
	s, err := Load("testdata/full.toml")
	require.NoError(t, err)

	if s.Name != "full-example" || s.Seed != 42 || s.Source != "testdata/full.toml" {
		t.Errorf("name, seed, source = %q, %d, %q; want full-example, 42, testdata/full.toml", s.Name, s.Seed, s.Source)
	}
	if s.Description != "A client pauses after acquiring; fencing saves the resource." {
		t.Errorf("description = %q", s.Description)
	}
	wantLesson := "A lock with auto-release cannot stop a paused holder from writing.\nThe resource must check a token."
	if s.Lesson != wantLesson {
		t.Errorf("lesson = %q, want %q", s.Lesson, wantLesson)
	}
	if s.Expect != (Expect{Mutex: Violation, Resource: Safe}) {
		t.Errorf("expect = %+v, want mutex violation, resource safe", s.Expect)
	}

	// node-redlock's preset, then the keys the file sets.
	wantLock := client.LockConfig{
		Algorithm: client.Redlock, Key: "lock", TTL: 10 * time.Second, RequestTimeout: 50 * ms,
		Quorum: 3, DriftFactor: 0.01, DriftConst: 2 * ms, ValidityCheck: true, ElapsedClock: proto.Wall,
		Retries: 5, RetryDelay: 200 * ms, RetryJitter: 100 * ms,
		WaitTimeout: time.Second, Extend: true, ExtendAt: 0.6, MaxExtensions: 3,
	}
	require.Equal(t, wantLock, s.Config.Lock)

	wantWork := client.WorkConfig{
		CriticalSection: time.Second, Think: 250 * ms, Iterations: 10,
		RecheckBeforeWrite: true, RecheckMargin: 5 * ms, RequestTimeout: 2 * time.Second,
		Tokens: client.IncrToken, FenceNode: "n2", FenceKey: "fence-token",
	}
	require.Equal(t, wantWork, s.Config.Work)
	require.Equal(t, model.ResourceConfig{Mode: resource.Fencing, ServiceTime: ms, TokenStart: 33}, s.Config.Resource)

	shared := model.NodeConfig{
		Clock:      clocks.Spec{RatePPM: 50},
		RateSpread: 20,
		Redis: redis.Config{
			Persistence: redis.AOFEverySec, FsyncEvery: 500 * ms, ServiceTime: 200 * time.Microsecond,
			MinReplicasMaxLag: 10 * time.Second,
		},
	}
	var wantNodes []model.NodeConfig
	for _, name := range []string{"n1", "n2", "n3", "n4", "n5"} {
		n := shared
		n.Name = name
		if name == "n3" {
			// The override's clock table is merged key by key into [nodes]'s.
			n.Clock = clocks.Spec{Offset: -time.Second, RatePPM: 50, Steps: []clocks.Step{{At: 5 * time.Second, By: 2 * time.Second}}}
			n.Redis.Persistence = redis.AOFAlways
		}
		wantNodes = append(wantNodes, n)
	}
	require.Equal(t, wantNodes, s.Config.Nodes)

	pauses := model.PauseConfig{Every: 5 * time.Second, Length: network.Exponential(200 * ms)}
	wantClients := []model.ClientConfig{
		{Name: "alice", StartIn: 100 * ms, Pauses: pauses},
		// bob's own start replaces start + stagger; his pauses.every
		// replaces the shared one and keeps the shared length.
		{Name: "bob", StartIn: time.Second, Clock: clocks.Spec{RatePPM: -30},
			Pauses: model.PauseConfig{Length: network.Exponential(200 * ms)}},
	}
	require.Equal(t, wantClients, s.Config.Clients)

	require.Equal(t, model.StoreConfig{ServiceTime: 2 * ms}, s.Config.Store)
	require.Equal(t, model.SentinelConfig{DownAfter: 5 * time.Second, PingEvery: 500 * ms}, s.Config.Sentinel)

	half := 0.5
	wantNet := model.NetworkConfig{
		Latency: network.Lognormal(ms, 0.5),
		Loss:    0.01,
		Links: []model.LinkConfig{
			{From: "alice", To: "resource", Latency: network.Constant(30 * ms)},
			{From: "n1", To: "bob", Loss: &half},
		},
	}
	require.Equal(t, wantNet, s.Config.Network)

	sec := time.Second
	wantFaults := []model.Fault{
		{At: 20 * sec, Kind: model.Pause, Target: "alice", For: 15 * sec},
		{At: 25 * sec, Kind: model.Partition, Partition: network.PartitionMajorityMinority},
		{At: 30 * sec, Kind: model.Heal},
		{At: 40 * sec, Kind: model.Crash, Target: "n4", For: 11 * sec},
		{At: 42 * sec, Kind: model.ClockStep, Target: "n5", By: -500 * ms},
		{At: 45 * sec, Kind: model.Spike, To: "resource", For: sec, By: 90 * ms},
	}
	require.Equal(t, wantFaults, s.Config.Faults)

	require.Equal(t, model.Config{
		Name: "full-example", Duration: 60 * sec, Lock: wantLock, Work: wantWork,
		Nodes: wantNodes, Clients: wantClients,
		Resource: model.ResourceConfig{Mode: resource.Fencing, ServiceTime: ms, TokenStart: 33},
		Store:    model.StoreConfig{ServiceTime: 2 * ms},
		Sentinel: model.SentinelConfig{DownAfter: 5 * sec, PingEvery: 500 * ms},
		Network:  wantNet, Faults: wantFaults,
	}, s.Config)
}

// TestDefaults pins every default the README documents, on the smallest
// valid file.
func TestDefaults(t *testing.T) {
	s, err := Parse("dir/minimal.toml", []byte("duration = \"30s\"\n[lock]\nttl = \"10s\"\n"))
	require.NoError(t, err)
	if s.Name != "minimal" || s.Seed != 1 || s.Source != "dir/minimal.toml" || s.Expect != (Expect{}) {
		t.Errorf("name %q seed %d source %q expect %+v; want minimal, 1, dir/minimal.toml, none", s.Name, s.Seed, s.Source, s.Expect)
	}
	node := func(name string) model.NodeConfig {
		return model.NodeConfig{Name: name, Redis: redis.Config{
			Persistence: redis.None, FsyncEvery: time.Second, ServiceTime: 100 * time.Microsecond,
			MinReplicasMaxLag: 10 * time.Second,
		}}
	}
	want := model.Config{
		Name:     "minimal",
		Duration: 30 * time.Second,
		Lock: client.LockConfig{
			Algorithm: client.Redlock, Key: "lock", TTL: 10 * time.Second, RequestTimeout: 50 * ms,
			DriftFactor: 0.01, DriftConst: 2 * ms, ValidityCheck: true, ElapsedClock: proto.Mono,
			Retries: 3, RetryDelay: 200 * ms, RetryJitter: 100 * ms,
			WaitTimeout: time.Second, ExtendAt: 0.5, MaxExtensions: 3,
		},
		Work: client.WorkConfig{
			CriticalSection: 100 * ms, Think: 100 * ms, RequestTimeout: time.Second,
			Tokens: client.NoToken, FenceNode: "n1", FenceKey: "fence",
		},
		Nodes:    []model.NodeConfig{node("n1"), node("n2"), node("n3"), node("n4"), node("n5")},
		Clients:  []model.ClientConfig{{Name: "c1"}, {Name: "c2"}, {Name: "c3"}},
		Resource: model.ResourceConfig{Mode: resource.Unprotected},
		Sentinel: model.SentinelConfig{DownAfter: 30 * time.Second, PingEvery: time.Second},
		Network:  model.NetworkConfig{Latency: network.Uniform(500*time.Microsecond, 1500*time.Microsecond)},
	}
	require.Equal(t, want, s.Config)
}

func TestPresetAndOverrides(t *testing.T) {
	s, err := Parse("p.toml", []byte(`duration = "30s"
[lock]
preset = "redsync"
ttl = "2s"
retry_jitter = "0s"
`))
	require.NoError(t, err)
	want, err := client.Preset("redsync", 2*time.Second)
	require.NoError(t, err)
	want.RetryJitter = 0
	want.WaitTimeout, want.ExtendAt, want.MaxExtensions = time.Second, 0.5, 3
	require.Equal(t, want, s.Config.Lock)
}

func TestLease(t *testing.T) {
	s, err := Parse("l.toml", []byte(`duration = "30s"
[lock]
algorithm = "lease"
ttl = "3s"
[resource]
mode = "fencing"
tokens = "revision"
[store]
lease_check_every = "500ms"
[store.clock]
rate_ppm = 10
`))
	require.NoError(t, err)
	if s.Config.Store.LeaseCheckEvery != 500*time.Millisecond {
		t.Errorf("store lease check = %v, want 500ms", s.Config.Store.LeaseCheckEvery)
	}
	if s.Config.Lock.KeepAlive != time.Second {
		t.Errorf("keepalive = %v, want ttl/3 = 1s", s.Config.Lock.KeepAlive)
	}
	if s.Config.Store.Clock.RatePPM != 10 {
		t.Errorf("store clock rate = %v, want 10", s.Config.Store.Clock.RatePPM)
	}
}

func TestFailoverReplicas(t *testing.T) {
	s, err := Parse("f.toml", []byte(`duration = "30s"
[lock]
algorithm = "failover"
ttl = "3s"
wait_replicas = 1
[nodes]
names = ["m", "r1", "r2"]
[[nodes.node]]
name = "r2"
replica_of = "r1"
`))
	require.NoError(t, err)
	var got []string
	for _, n := range s.Config.Nodes {
		got = append(got, n.Name+"<"+n.Redis.ReplicaOf)
	}
	if want := "m< r1<m r2<r1"; strings.Join(got, " ") != want {
		t.Errorf("replicas = %v, want %s", got, want)
	}
}

func TestStagger(t *testing.T) {
	s, err := Parse("s.toml", []byte(`duration = "30s"
lock.ttl = "1s"
clients = { count = 4, start = "1s", stagger = "250ms" }
`))
	require.NoError(t, err)
	for i, c := range s.Config.Clients {
		if want := time.Second + time.Duration(i)*250*ms; c.StartIn != want {
			t.Errorf("%s starts at %v, want %v", c.Name, c.StartIn, want)
		}
	}
}

// TestWorldBuilds: what the loader accepts, the model builds.
func TestWorldBuilds(t *testing.T) {
	files, err := filepath.Glob("library/*.toml")
	require.NoError(t, err)
	files = append(files, "testdata/full.toml")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := Load(f)
			require.NoError(t, err)
			require.NotNil(t, s.Plan, "a loaded scenario is compiled")
			w := model.NewWorld(s.Plan, s.Seed, false)
			require.NotNil(t, w)
		})
	}
}

// TestRestartDelayIsTheCrashDefault: restart_delay is resolved by the
// loader into each crash's for, as the model has no such field; a crash
// that says for keeps it.
func TestRestartDelayIsTheCrashDefault(t *testing.T) {
	src := base + `[nodes]
restart_delay = "7s"
[[nodes.node]]
name = "n2"
restart_delay = "3s"
[[faults]]
at = "1s"
kind = "crash"
target = "n1"
[[faults]]
at = "2s"
kind = "power-loss"
target = "n2"
[[faults]]
at = "3s"
kind = "crash"
target = "n3"
for = "0s"
`
	s, err := Parse("restart.toml", []byte(src))
	require.NoError(t, err)
	var got []time.Duration
	for _, f := range s.Config.Faults {
		got = append(got, f.For)
	}
	require.Equal(t, []time.Duration{7 * time.Second, 3 * time.Second, 0}, got)
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("testdata/no-such-file.toml")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want a not-exist error", err)
	}
}

// TestREADMEExample: the example in README.md is a valid scenario.
func TestREADMEExample(t *testing.T) {
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(b), "## Example\n\n```toml\n")
	require.True(t, ok, "README.md has no example")
	example, _, ok := strings.Cut(rest, "```")
	require.True(t, ok)
	s, err := Parse("gc-pause.toml", []byte(example))
	require.NoError(t, err)
	if s.Name != "gc-pause" || len(s.Config.Faults) != 2 || s.Config.Clients[1].StartIn != 100*ms {
		t.Errorf("README example decoded to name %q, %d faults, c2 start %v", s.Name, len(s.Config.Faults), s.Config.Clients[1].StartIn)
	}
	require.NotNil(t, model.NewWorld(s.Plan, s.Seed, false))
}

func mustDecode(t *testing.T, src string) map[string]any {
	t.Helper()
	var raw map[string]any
	_, err := toml.Decode(src, &raw)
	require.NoError(t, err)
	return raw
}
