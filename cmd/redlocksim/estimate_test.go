package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const pauseTail = "../internal/estimate/testdata/pause-tail.toml"

// Bad input is refused with exit 2 and the reason, before any run.
func TestEstimateRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"estimate", pauseTail, "--rel-error", "1.5"}, "--rel-error must be in (0, 1)"},
		{[]string{"estimate", pauseTail, "--rel-error", "0"}, "--rel-error must be in (0, 1)"},
		{[]string{"estimate", pauseTail, "--max-runs", "10"}, "too small to start"},
		{[]string{"estimate", pauseTail, "--set", "clients.count=1"}, "mutual exclusion needs two clients"},
		{[]string{"estimate", pauseTail, "--method", "nope"}, "unknown --method"},
		{[]string{"estimate", pauseTail, "--property", "liveness"}, "want mutex or resource"},
		{[]string{"estimate", pauseTail, "--max-time", "0s"}, "--max-time must be positive"},
		{[]string{"estimate", pauseTail, "--all-runs"}, "--all-runs goes with --shard"},
		{[]string{"estimate", "baseline", "--method", "is", "--max-runs", "1000", "--set", "duration=2s", "--set", "nodes.clock.rate_spread_ppm=0", "--set", "clients.clock.rate_spread_ppm=0"}, "no random input that can be tilted"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args[1:], code, stderr, exitBadInput, c.want)
		}
	}
}

// An estimate prints its JSON keys, the same at one and two workers, and
// writes the dominant failure path as a scenario that run replays to a
// violation.
func TestEstimateJSONAndReplay(t *testing.T) {
	estimateJSONAndReplay(t, "is", pauseTail, "--method", "is", "--rel-error", "0.5", "--max-runs", "20000", "--json", "--seed", "3")
}

// The dominant path of a violation that needs a drawn clock rate (a node
// near the fast end of a ±15,300 ppm spread) pins the rate the run drew:
// run replays the --out file to the violation. Drawn again from the
// seed, as the file did before, the rate is another one and the lock is
// safe.
func TestEstimatePinsDrawnClockRates(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dominant.toml")
	code, stdout, stderr := runCLI("estimate", "../internal/estimate/testdata/drift-onset.toml", "--method", "is", "--rel-error", "0.5",
		"--max-runs", "20000", "--seed", "3", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "the run drew n1's clock rate at +15") {
		t.Errorf("the sentence does not say the drawn rate:\n%s", stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no dominant path written: %v\n%s", err, stderr)
	}
	if !strings.Contains(string(data), "[[nodes.node]]\nname = \"n1\"\nclock = {rate_ppm = 15") || !strings.Contains(string(data), "rate_spread_ppm = 0.0") {
		t.Errorf("n1's drawn rate is not pinned:\n%s", data)
	}
	code, stdout, stderr = runCLI("run", out)
	if code != exitOK || !strings.Contains(stdout, "mutual exclusion  violation") {
		t.Errorf("the dominant path does not replay to a violation: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runCLI("run", out, "--set", "nodes.node[0].clock.rate_ppm=0", "--set", "nodes.node[0].clock.rate_spread_ppm=15300")
	if code != exitOK || !strings.Contains(stdout, "mutual exclusion  safe") {
		t.Errorf("with its rate drawn again from the seed the path should be safe (the pin is what replays it): exit %d\n%s", code, stdout)
	}
}

// estimateJSONAndReplay runs estimate with args at one and two workers,
// and checks the JSON keys, the method, and the dominant path's replay.
func estimateJSONAndReplay(t *testing.T, method string, args ...string) {
	dir := t.TempDir()
	out := filepath.Join(dir, "dominant.toml")
	args = append([]string{"estimate"}, args...)
	code1, one, stderr := runCLI(append(args, "--workers", "1", "--out", out)...)
	if code1 != exitOK && code1 != exitFinding {
		t.Fatalf("exit %d: %s", code1, stderr)
	}
	code2, two, _ := runCLI(append(args, "--workers", "2")...)
	if one != two || code1 != code2 {
		t.Errorf("1 and 2 workers differ:\n%s\n%s", one, two)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(one), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"probability", "ci_low", "ci_high", "rel_error", "method", "runs", "ess", "per_acquisition", "per_acquisition_ci_low", "per_acquisition_ci_high", "largest_weight_share"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %q in %s", k, one)
		}
	}
	if got["method"] != method || got["probability"].(float64) <= 0 || got["ci_low"].(float64) > got["probability"].(float64) {
		t.Errorf("not a %s estimate: %s", method, one)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("no dominant path written: %v", err)
	}
	code, stdout, stderr := runCLI("run", out)
	if code != exitOK || !strings.Contains(stdout, "mutual exclusion  violation") {
		t.Errorf("the dominant path does not replay to a violation: exit %d\n%s%s", code, stdout, stderr)
	}
}

// An estimate that cannot reach a trustworthy interval says so and exits
// 1; with no violation seen, what it prints is an upper bound, and says so.
func TestEstimateUntrustworthyExitsOne(t *testing.T) {
	code, stdout, stderr := runCLI("estimate", "../internal/estimate/testdata/closed-form.toml",
		"--set", "clients.client[0].pauses.length.median=1.3ms", "--method", "is", "--max-runs", "1500")
	if code != exitFinding || !strings.Contains(stdout, "NOT TRUSTWORTHY") || !strings.Contains(stdout, "upper bound, not an estimate") ||
		!strings.Contains(stderr, "no trustworthy interval") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// A Slurm array's estimate: every shard's --shard-out, merged with
// --merge, prints the bytes one machine prints and writes the same
// dominant failure path; shards of another estimate are refused.
func TestEstimateShardedAndMerged(t *testing.T) {
	dir := t.TempDir()
	args := []string{"estimate", "../internal/estimate/testdata/closed-form.toml", "--set", "clients.client[0].pauses.length.median=10ms",
		"--method", "is", "--rel-error", "0.3", "--max-runs", "12000"}
	for _, format := range [][]string{nil, {"--json"}} {
		a := append(append([]string(nil), args...), format...)
		merge, code := checkEstimateMerge(t, a, 3)
		if code != exitOK {
			t.Errorf("%v: exit %d", format, code)
		}
		code, _, stderr := runCLI(append(merge[:len(merge)-3:len(merge)-3], "--seed", "2", merge[len(merge)-3], merge[len(merge)-2], merge[len(merge)-1])...)
		if code != exitBadInput || !strings.Contains(stderr, "of another estimate") {
			t.Errorf("merging with another seed: exit %d, %s", code, stderr)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(args, "--shard", "1/2"), "--shard and --shard-out go together"},
		{append(args, "--shard", "3/2", "--shard-out", filepath.Join(dir, "x")), "want 1 ≤ K ≤ N"},
		{append(args, "--merge"), "name the shard files"},
		{append(args, "--merge", filepath.Join(dir, "none.est")), "no such file"},
		{append(args, "--merge", "../internal/estimate/testdata/closed-form.toml"), "not an estimate shard file"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args[len(args):], code, stderr, c.want)
		}
	}
}

// checkEstimateMerge runs the estimate args (from "estimate") on one
// machine and as n shards folded with --merge, and checks that the merge
// prints the bytes and exit status one machine does and writes the same
// dominant failure path (--out). It returns the merge's arguments, the
// shard files last, and the exit status.
func checkEstimateMerge(t *testing.T, args []string, n int) (merge []string, code int) {
	t.Helper()
	dir := t.TempDir()
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
	merge = append(append([]string(nil), args...), "--out", dominant, "--merge")
	for k := 1; k <= n; k++ {
		shard := filepath.Join(dir, fmt.Sprintf("shard%d.est", k))
		if code, _, stderr := runCLI(append(args, "--shard", fmt.Sprintf("%d/%d", k, n), "--shard-out", shard)...); code != exitOK {
			t.Fatalf("shard %d: exit %d: %s", k, code, stderr)
		}
		merge = append(merge, shard)
	}
	code2, merged, stderr := runCLI(merge...)
	if code2 != code || merged != one {
		t.Errorf("%v: merged (exit %d) is not unsharded (exit %d):\n%s\n%s%s", args[1:], code2, code, one, merged, stderr)
	}
	if got, err := os.ReadFile(dominant); err != nil || string(got) != string(want) {
		t.Errorf("%v: the merged dominant path is not the unsharded one (%v)", args[1:], err)
	}
	return merge, code
}

// estimate --method splitting prints the same JSON keys, method
// "splitting", the same at one and two workers, and writes the dominant
// path as a plain scenario that run replays.
func TestEstimateSplittingJSONAndReplay(t *testing.T) {
	estimateJSONAndReplay(t, "splitting", "../internal/estimate/testdata/closed-form.toml", "--set", "clients.client[0].pauses.length.median=25ms",
		"--method", "splitting", "--rel-error", "0.5", "--max-runs", "6000", "--json", "--seed", "3")
}

// A splitting estimate sharded by repetition and merged prints the bytes
// one machine prints and writes the same dominant failure path, with the
// budget cutting its last repetition short.
func TestEstimateSplittingShardedAndMerged(t *testing.T) {
	checkEstimateMerge(t, []string{"estimate", "../internal/estimate/testdata/closed-form.toml", "--set", "clients.client[0].pauses.length.median=25ms",
		"--method", "splitting", "--rel-error", "0.3", "--max-runs", "4000"}, 2)
}
