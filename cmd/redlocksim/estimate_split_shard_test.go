package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A splitting estimate sharded by repetition and merged prints the bytes
// one machine prints and writes the same dominant failure path, with the
// budget cutting its last repetition short.
func TestEstimateSplittingShardedAndMerged(t *testing.T) {
	dir := t.TempDir()
	args := []string{"estimate", "../internal/estimate/testdata/closed-form.toml", "--set", "clients.client[0].pauses.length.median=25ms",
		"--method", "splitting", "--rel-error", "0.3", "--max-runs", "4000"}
	dominant := filepath.Join(dir, "dominant.toml")
	code, one, stderr := runCLI(append(args, "--out", dominant)...)
	if code != exitOK && code != exitFinding {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := os.ReadFile(dominant)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(dominant)
	merge := append(append([]string(nil), args...), "--out", dominant, "--merge")
	for k := 1; k <= 2; k++ {
		shard := filepath.Join(dir, fmt.Sprintf("shard%d.est", k))
		if code, _, stderr := runCLI(append(args, "--shard", fmt.Sprintf("%d/2", k), "--shard-out", shard)...); code != exitOK {
			t.Fatalf("shard %d: exit %d: %s", k, code, stderr)
		}
		merge = append(merge, shard)
	}
	code2, merged, stderr := runCLI(merge...)
	if code2 != code || merged != one {
		t.Errorf("merged (exit %d) is not unsharded (exit %d):\n%s\n%s%s", code2, code, one, merged, stderr)
	}
	if got, err := os.ReadFile(dominant); err != nil || string(got) != string(want) {
		t.Errorf("the merged dominant path is not the unsharded one (%v)", err)
	}
}
