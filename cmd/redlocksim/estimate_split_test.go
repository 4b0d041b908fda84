package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// estimate --method splitting prints the same JSON keys, method
// "splitting", the same at one and two workers, and writes the dominant
// path as a plain scenario that run replays.
func TestEstimateSplittingJSONAndReplay(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "dominant.toml")
	args := []string{"estimate", "../internal/estimate/testdata/closed-form.toml", "--set", "clients.client[0].pauses.length.median=25ms",
		"--method", "splitting", "--rel-error", "0.5", "--max-runs", "6000", "--json", "--seed", "3"}
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
	for _, k := range []string{"probability", "ci_low", "ci_high", "rel_error", "method", "runs", "ess", "per_acquisition", "per_acquisition_ci_low", "per_acquisition_ci_high"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %q in %s", k, one)
		}
	}
	if got["method"] != "splitting" || got["probability"].(float64) <= 0 {
		t.Errorf("not a splitting estimate: %s", one)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("no dominant path written: %v", err)
	}
	code, stdout, stderr := runCLI("run", out)
	if code != exitOK || !strings.Contains(stdout, "mutual exclusion  violation") {
		t.Errorf("the dominant path does not replay to a violation: exit %d\n%s%s", code, stdout, stderr)
	}
}
