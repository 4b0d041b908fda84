//go:build unix

package main

import (
	"fmt"
	"syscall"
)

// redisMinFiles is what redis-server itself needs to start: its 32
// reserved descriptors and one client (CONFIG_MIN_RESERVED_FDS + 1).
const redisMinFiles = 33

// filesNeeded is the open-file limit a real run of nodes and clients
// needs: every process inherits it, redis-server needs redisMinFiles,
// and this process holds a few descriptors per process it runs (its
// pipes, its connections to each node).
func filesNeeded(nodes, clients int) uint64 {
	return uint64(max(2*redisMinFiles, 32+8*(nodes+clients)))
}

// checkFileLimit refuses a real run the open-file limit (ulimit -n) is
// too low for, before any process starts: otherwise redis-server exits
// at its start and the run fails with a log in a directory that is gone.
func checkFileLimit(nodes, clients int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil // nothing to say: the run will tell
	}
	need := filesNeeded(nodes, clients)
	if lim.Cur >= need {
		return nil
	}
	return fmt.Errorf("the open-file limit (ulimit -n) is %d; a real run of %d nodes and %d clients needs at least %d (redis-server alone needs %d): raise it, e.g. ulimit -n 1024 (a resource limit of this machine, not a problem with the scenario)",
		lim.Cur, nodes, clients, need, redisMinFiles)
}
