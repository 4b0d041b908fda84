package differ

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
)

// TestCompareExploreBaselineForReal is the end-to-end run:
// `compare --explore baseline --runs 3 --repeat 1` on real redis-servers,
// through the built command.
func TestCompareExploreBaselineForReal(t *testing.T) {
	proctest.Need(t, "redis-server", "redis-server")
	if testing.Short() {
		t.Skip("real runs take about 10 s each")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "redlocksim")
	build := exec.Command("go", "build", "-o", bin, "github.com/redlocksim/redlocksim/cmd/redlocksim")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	cmd := exec.Command(bin, "compare", "--explore", "baseline", "--runs", "3", "--repeat", "1", "--json", "--out", filepath.Join(dir, "found"))
	cmd.Dir = dir
	var stderr []byte
	out, err = cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	require.NoError(t, err, "stderr:\n%s", stderr)
	var got struct {
		Mode    string `json:"mode"`
		Machine string `json:"machine"`
		Summary struct {
			Schedules, Agree, Disagree, Flaky, Refused int
			RealRuns                                   int `json:"real_runs"`
		} `json:"summary"`
		Disagreements []struct {
			File  string `json:"file"`
			Flaky bool   `json:"flaky"`
		} `json:"disagreements"`
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	s := got.Summary
	assert.Equal(t, "compare-explore", got.Mode)
	assert.Contains(t, got.Machine, "redis-server")
	assert.Equal(t, 3, s.Schedules)
	assert.Equal(t, 3, s.Agree+s.Disagree+s.Flaky+s.Refused, "every schedule accounted for: %+v", s)
	ran := s.Agree + s.Disagree + s.Flaky
	assert.GreaterOrEqual(t, s.RealRuns, ran, "one real run at least per schedule that ran")
	assert.GreaterOrEqual(t, s.RealRuns, 2*(s.Disagree+s.Flaky)+s.Agree, "a disagreement is re-run")
	for _, d := range got.Disagreements {
		if !d.Flaky {
			_, err := os.Stat(d.File)
			assert.NoError(t, err, "a confirmed disagreement is written")
		}
	}
	t.Logf("%+v", s)
}
