package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drawRun runs a scenario with --timeline to an SVG and returns it.
func drawRun(t *testing.T, golden string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "t.svg")
	code, _, stderr := runCLI(append(append([]string{"run"}, args...), "--timeline", out)...)
	require.Equal(t, 0, code, stderr)
	if golden != "" {
		checkPlotGolden(t, out, golden)
	}
	svg, err := os.ReadFile(out)
	require.NoError(t, err)
	return string(svg)
}

// clock-jump's story is half in c2's cuts: all four are labelled.
func TestTimelineClockJumpShowsAllCuts(t *testing.T) {
	svg := drawRun(t, "timeline-clock-jump.svg", "clock-jump")
	for _, cut := range []string{"c1→n4", "c1→n5", "c2→n1", "c2→n2"} {
		assert.Contains(t, svg, ">cut "+cut+"</text>")
	}
	assert.Contains(t, svg, ">+9s</text>")
	assert.NotContains(t, svg, "no leader", "the legend says only what the run has")
}

// restart-no-persistence's point is n3's instant crash and restart: it
// gets a glyph, a label and a legend entry.
func TestTimelineRestartNoPersistenceLabelsTheRestart(t *testing.T) {
	svg := drawRun(t, "timeline-restart-no-persistence.svg", "restart-no-persistence")
	assert.Contains(t, svg, ">crash + instant restart</text>")
	assert.Contains(t, svg, ">crash and instant restart</text>")
	assert.NotContains(t, svg, ">down (", "no node is down for any time")
}

// failover-race marks the promotion, and its legend calls the crash a
// crash, not a lost leader.
func TestTimelineFailoverMarksThePromotion(t *testing.T) {
	svg := drawRun(t, "", "failover-race")
	assert.Contains(t, svg, ">promoted to master</text>")
	assert.Contains(t, svg, ">down (crashed)</text>")
	assert.NotContains(t, svg, "no leader")
}

// --from and --to zoom into the run; a bad window is bad input.
func TestTimelineZoom(t *testing.T) {
	svg := drawRun(t, "", "baseline", "--from", "10s", "--to", "15s")
	assert.Contains(t, svg, ">10.0</text>")
	assert.Contains(t, svg, ">15.0</text>")
	assert.NotContains(t, svg, ">20</text>")

	out := filepath.Join(t.TempDir(), "t.svg")
	code, _, stderr := runCLI("run", "baseline", "--timeline", out, "--from", "20s", "--to", "10s")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "window")
	code, _, stderr = runCLI("run", "baseline", "--to", "10s")
	assert.Equal(t, 2, code)
	assert.True(t, strings.Contains(stderr, "give --timeline FILE too"), stderr)
}
