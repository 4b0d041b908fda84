package main

import (
	"encoding/json"
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
		{[]string{"estimate", pauseTail, "--method", "splitting"}, "not implemented"},
		{[]string{"estimate", pauseTail, "--method", "nope"}, "unknown --method"},
		{[]string{"estimate", pauseTail, "--property", "liveness"}, "want mutex or resource"},
		{[]string{"estimate", pauseTail, "--max-time", "0s"}, "--max-time must be positive"},
		{[]string{"estimate", "baseline", "--method", "is", "--max-runs", "1000", "--set", "duration=2s"}, "no random input that can be tilted"},
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
	dir := t.TempDir()
	out := filepath.Join(dir, "dominant.toml")
	args := []string{"estimate", pauseTail, "--method", "is", "--rel-error", "0.5", "--max-runs", "20000", "--json", "--seed", "3"}
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
	if got["method"] != "is" || got["probability"].(float64) <= 0 || got["ci_low"].(float64) > got["probability"].(float64) {
		t.Errorf("not an importance-sampling estimate: %s", one)
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
