package model_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
)

// TestValidateCatchesCrossKeyProblems: each rule reports its problem at the
// field, in Go terms, with the cause apart.
func TestValidateCatchesCrossKeyProblems(t *testing.T) {
	cases := []struct {
		name string
		edit func(*model.Config)
		path string // the field, in Go terms
		want string // a part of the cause
	}{
		{"quorum out of reach", func(c *model.Config) { c.Lock.Quorum = 6 }, "Lock.Quorum", "6 can never be reached with 5 nodes"},
		{"ttl zero", func(c *model.Config) { c.Lock.TTL = 0 }, "Lock.TTL", "must be positive, got 0s"},
		{"fault on a missing node", func(c *model.Config) {
			c.Faults = []model.Fault{{At: s, Kind: model.Crash, Target: "n9"}}
		}, "Faults[0].Target", `no node is called "n9" (valid: n1, n2, n3, n4, n5)`},
		{"fault after the end", func(c *model.Config) {
			c.Faults = []model.Fault{{At: 2 * c.Duration, Kind: model.Heal}}
		}, "Faults[0].At", "2m0s is not before the end of the run (1m0s)"},
		{"store paused in a redlock world", func(c *model.Config) {
			c.Faults = []model.Fault{{At: s, Kind: model.Pause, Target: "store", For: s}}
		}, "Faults[0].Target", `no process is called "store"`},
		{"reserved name", func(c *model.Config) { c.Clients[0].Name = "sentinel" }, "Clients[0].Name", `the name "sentinel" belongs to the sentinel`},
		{"clock out of range once the fault is folded in", func(c *model.Config) {
			c.Nodes[0].Clock.RatePPM = 90000
			c.Nodes[0].RateSpread = 20000
		}, "Nodes[0].RateSpread", "rate_ppm 90000 ± rate_spread_ppm 20000 can leave ±100000 ppm"},
		{"wait without failover", func(c *model.Config) { c.Lock.WaitReplicas = 1 }, "Lock.WaitReplicas", "only the failover lock waits for replicas"},
		{"fencing without tokens", func(c *model.Config) { c.Resource.Mode = 2 }, "Resource.Mode", "fencing needs tokens"},
		{"clock fault that breaks a clock", func(c *model.Config) {
			c.Faults = []model.Fault{
				{At: s, Kind: model.ClockSlew, Target: "n3", By: 10 * s},
				{At: 2 * s, Kind: model.ClockStep, Target: "n3", By: s},
			}
		}, "Faults[1]", "this clock-step makes n3's clock invalid, together with its clock table and earlier clock faults: steps[0].at 2s falls inside slews[0]"},
		{"a client named like a node", func(c *model.Config) { c.Clients[1].Name = "n2" }, "Clients[1].Name", `"n2" names both a node and a client`},
		{"link to itself", func(c *model.Config) {
			c.Network.Links = []model.LinkConfig{{From: "n1", To: "n1", Latency: c.Network.Latency}}
		}, "Network.Links[0].To", `a link joins two different endpoints; from and to are both "n1"`},
		{"clock steps out of order", func(c *model.Config) {
			c.Clients[0].Clock.Steps = []clocks.Step{{At: 2 * s, By: s}, {At: s, By: s}}
		}, "Clients[0].Clock.Steps[1].At", "steps[1].at 1s is before steps[0].at 2s"},
		{"negative lease check interval", func(c *model.Config) {
			c.Lock.Algorithm = client.Lease
			c.Store.LeaseCheckEvery = -s
		}, "Store.LeaseCheckEvery", "must not be negative, got -1s"},
		{"sentinel timing", func(c *model.Config) {
			c.Lock.Algorithm = client.Failover
			c.Sentinel.PingEvery = 0
		}, "Sentinel.PingEvery", "must be positive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := redlockWorld(2)
			require.NoError(t, cfg.Validate(), "the base world is valid")
			tc.edit(&cfg)
			err := cfg.Validate()
			require.Error(t, err)
			var found bool
			for _, e := range model.FieldErrors(err) {
				if e.Path.String() == tc.path {
					found = true
					assert.Contains(t, e.Err.Error(), tc.want)
				}
			}
			assert.True(t, found, "no problem at %s in %v", tc.path, err)
			_, err = model.Run(cfg, 1)
			assert.Error(t, err, "Run refuses what Validate refuses")
		})
	}
}
