package model_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/redis"
)

// Bug 3 of the fault-model issue: the client packed a node index into 8
// bits of its request ids, so from 257 nodes replies were credited to the
// wrong node and every acquisition waited out its timeout, and from 513 no
// acquisition ever succeeded. Scenario files allow 1000 nodes.
func TestRedlockAcquiresOnLargeClusters(t *testing.T) {
	for _, n := range []int{256, 257, 513, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			cfg := redlockWorld(2)
			cfg.Nodes = nil
			for i := 1; i <= n; i++ {
				cfg.Nodes = append(cfg.Nodes, model.NodeConfig{Name: fmt.Sprintf("n%d", i), Redis: redis.Config{Persistence: redis.None}})
			}
			cfg.Duration = 3 * s
			r := run(t, cfg, 1)
			assert.Positive(t, r.Report.AcquireSuccesses)
			// Uncontended acquisitions answer within the network's round
			// trip, far below the 50 ms request timeout they used to wait.
			assert.Less(t, r.Report.AcquireP50, 50*ms, "acquisitions wait out the request timeout")
			assert.True(t, r.MutexSafe())
		})
	}
}
