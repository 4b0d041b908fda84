package model

import (
	"slices"

	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/network"
)

// What a fault does depends on where the lock lives. With the Redis locks
// (single, failover, redlock) it is on the Redis nodes. With the store's
// (lease, zookeeper, k8s-lease, dynamodb, consul) it is on the consensus
// store, which stands for a whole ensemble, and the Redis nodes a scenario
// may still list (the nodes table's default count) hold nothing: a fault
// on them would run and change nothing, which reads as "this lock
// survives it". scenarios/README.md's table "What a fault does to each
// lock" says what every kind does to each lock; the faults that mean
// nothing are refused here and in the kinds' own checks (an election
// without the store, a crash of the store), each naming the algorithm.

// checkForLock refuses a fault that means nothing with the scenario's
// lock algorithm.
func (c *faultCheck) checkForLock() {
	alg := c.v.c.Lock.Algorithm
	if !alg.Store() {
		return
	}
	for _, end := range []struct{ key, name string }{{"Target", c.f.Target}, {"To", c.f.To}} {
		if end.name != "" && slices.Contains(c.v.nodes, end.name) {
			c.errf(end.key, "%q is a Redis node, and with algorithm = %q the lock is on the store, not on the nodes: a %v fault on it means nothing (faults on Redis nodes are for algorithm = %s)",
				end.name, alg, c.f.Kind, client.RedisAlgorithms())
		}
	}
	if c.f.Kind == Partition && len(c.f.Groups) == 0 && c.f.Partition != 0 && c.f.Partition != network.PartitionGroups {
		// grudge splits the nodes when no group is given; isolate cuts its
		// target off from them.
		c.errf("Partition", "partition = %q without groups splits the Redis nodes (isolate cuts its target off from them), and with algorithm = %q the lock is on the store, not on the nodes: it means nothing; name the endpoints in groups, like groups = [[\"c1\", \"store\"]] to cut c1 off from the store, or cut one link (kind = \"cut\")",
			c.f.Partition, alg)
	}
}
