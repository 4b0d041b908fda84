package main

import "testing"

// A splitting estimate sharded by repetition and merged prints the bytes
// one machine prints and writes the same dominant failure path, with the
// budget cutting its last repetition short.
func TestEstimateSplittingShardedAndMerged(t *testing.T) {
	checkEstimateMerge(t, []string{"estimate", "../internal/estimate/testdata/closed-form.toml", "--set", "clients.client[0].pauses.length.median=25ms",
		"--method", "splitting", "--rel-error", "0.3", "--max-runs", "4000"}, 2)
}
