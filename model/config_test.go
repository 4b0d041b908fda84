package model_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
)

func TestValidateCatchesCrossKeyProblems(t *testing.T) {
	cases := []struct {
		name string
		edit func(*model.Config)
		want string
	}{
		{"quorum out of reach", func(c *model.Config) { c.Lock.Quorum = 6 }, "lock.quorum: 6 can never be reached with 5 nodes"},
		{"ttl zero", func(c *model.Config) { c.Lock.TTL = 0 }, "lock.ttl: must be positive, got 0s"},
		{"fault on a missing node", func(c *model.Config) {
			c.Faults = []model.Fault{{At: s, Kind: model.Crash, Target: "n9"}}
		}, `faults[0] (crash at 1s): target: no node is called "n9"`},
		{"fault after the end", func(c *model.Config) {
			c.Faults = []model.Fault{{At: 2 * c.Duration, Kind: model.Heal}}
		}, "faults[0] (heal at 2m0s): at: 2m0s is not before the end of the run (1m0s)"},
		{"store paused in a redlock world", func(c *model.Config) {
			c.Faults = []model.Fault{{At: s, Kind: model.Pause, Target: "store", For: s}}
		}, `no node, client or store is called "store"`},
		{"reserved name", func(c *model.Config) { c.Clients[0].Name = "sentinel" }, `clients[0]: name "sentinel" is reserved for the sentinel`},
		{"clock out of range once the fault is folded in", func(c *model.Config) {
			c.Nodes[0].Clock.RatePPM = 90000
			c.Nodes[0].RateSpread = 20000
		}, "nodes[0] (n1).clock with its clock faults"},
		{"wait without failover", func(c *model.Config) { c.Lock.WaitReplicas = 1 }, "lock.wait_replicas: only the failover lock waits for replicas"},
		{"fencing without tokens", func(c *model.Config) { c.Resource.Mode = 2 }, "resource.mode: fencing needs tokens"},
		{"sentinel timing", func(c *model.Config) {
			c.Lock.Algorithm = client.Failover
			c.Sentinel.PingEvery = 0
		}, "sentinel.ping_every: must be positive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := redlockWorld(2)
			require.NoError(t, cfg.Validate(), "the base world is valid")
			tc.edit(&cfg)
			err := cfg.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			_, err = model.Run(cfg, 1)
			assert.Error(t, err, "Run refuses what Validate refuses")
		})
	}
}
