package main

import "testing"

// estimate --method splitting prints the same JSON keys, method
// "splitting", the same at one and two workers, and writes the dominant
// path as a plain scenario that run replays.
func TestEstimateSplittingJSONAndReplay(t *testing.T) {
	estimateJSONAndReplay(t, "splitting", "../internal/estimate/testdata/closed-form.toml", "--set", "clients.client[0].pauses.length.median=25ms",
		"--method", "splitting", "--rel-error", "0.5", "--max-runs", "6000", "--json", "--seed", "3")
}
