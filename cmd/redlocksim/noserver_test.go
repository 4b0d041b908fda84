package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A real run of a lock with no server here (client-go's Lease, DynamoDB,
// Consul) is bad input: real and compare exit 2 and say why, before they
// start anything.
func TestRealRunOfALockWithNoServerExits2(t *testing.T) {
	for _, c := range []struct{ scenario, algorithm, why string }{
		{"k8s-leader-pause", "k8s-lease", "there is no Kubernetes API server here"},
		{"dynamodb-fast-waiter", "dynamodb", "there is no DynamoDB here"},
		{"consul-holder-crash", "consul", "there is no Consul server here (Debian no longer packages consul)"},
	} {
		for _, cmd := range []string{"real", "compare"} {
			code, stdout, stderr := runCLI(cmd, c.scenario)
			assert.Equal(t, exitBadInput, code, "%s %s: %s", cmd, c.scenario, stderr)
			assert.Empty(t, stdout, "%s %s", cmd, c.scenario)
			assert.Contains(t, stderr, `cannot run for real: lock.algorithm = "`+c.algorithm+`": `+c.why, "%s %s", cmd, c.scenario)
		}
	}
}
