package main

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/runview"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/scenarios"

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

// No label is lost: for every library scenario, every label the timeline
// data carries is a text of its figure (on its bar, beside it, or listed
// under its bar's number); where the figure says they are too many, a
// text of the window of the length it suggests that holds them.
func TestTimelineShowsEveryLabel(t *testing.T) {
	for _, name := range scenarios.LibraryNames() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenarios.LoadNamed(name)
			require.NoError(t, err)
			res, err := model.RunTraced(sc.Config, sc.Seed)
			require.NoError(t, err)
			tl := runview.Timeline(sc, res)
			texts := func(tl plots.Timeline) string {
				svg, err := plots.TimelineSVG(tl)
				require.NoError(t, err)
				return string(svg)
			}
			win, err := plots.TimelineWindow(tl)
			require.NoError(t, err)
			svgs := []string{texts(tl)}
			if win > 0 {
				assert.Contains(t, svgs[0], fmt.Sprintf("draw at most %v at a time", win))
				svgs = svgs[:0]
				for from := time.Duration(0); from < tl.End; from += win {
					sub := tl
					sub.From, sub.To = from, min(from+win, tl.End)
					w, err := plots.TimelineWindow(sub)
					require.NoError(t, err)
					require.Zero(t, w, "the window [%v, %v] it suggests lists every label", sub.From, sub.To)
					svgs = append(svgs, texts(sub))
				}
			}
			shown := func(text string) bool {
				return slices.ContainsFunc(svgs, func(svg string) bool { return strings.Contains(svg, text) })
			}
			labels := 0
			for _, s := range tl.Spans {
				var want string
				switch {
				case s.Kind == plots.SpanDown && s.End == s.Start && s.Label == "power lost":
					want = ">power loss + instant restart</text>"
				case s.Kind == plots.SpanDown && s.End == s.Start:
					want = ">crash + instant restart</text>"
				case s.Label == "":
					continue
				case s.Kind == plots.SpanHold || s.Kind == plots.SpanKey:
					want = ">" + html.EscapeString(s.Label) + "</text>"
				default: // a pause or an outage is labelled with its length
					want = ">" + html.EscapeString(s.Label) + " "
				}
				labels++
				assert.True(t, shown(want), "no text %s for %s's span at %v", want, s.Lane, s.Start)
			}
			for _, m := range tl.Marks {
				if m.Label == "" {
					continue
				}
				labels++
				want := ">" + html.EscapeString(m.Label) + "</text>"
				switch m.Kind { // the same word on every dot or cross: said by the legend
				case plots.MarkWrite:
					want = ">write accepted by the resource</text>"
				case plots.MarkReject:
					want = ">write rejected by the resource</text>"
				}
				assert.True(t, shown(want), "no text %s for %s's mark at %v", want, m.Lane, m.At)
			}
			t.Logf("%d labels, window %v", labels, win)
		})
	}
}

// Promotions and elections are timeline marks drawn from the records, so
// the Perfetto export shows them as the figure does.
func TestPerfettoShowsPromotionsAndElections(t *testing.T) {
	failover, err := scenarios.LoadNamed("failover-race")
	require.NoError(t, err)
	lease, err := scenarios.LoadNamed("consensus-lease-pauses")
	require.NoError(t, err)
	lease.Config.Faults = append(lease.Config.Faults, model.Fault{Kind: model.Election, At: time.Second, For: 2 * time.Second})
	for _, c := range []struct {
		sc         *scenarios.Scenario
		cat, label string
		lane       string
	}{
		{failover, "promotion", "promoted to master", "n2"},
		{lease, "election", "leader elected", "store"},
	} {
		res, err := model.RunTraced(c.sc.Config, c.sc.Seed)
		require.NoError(t, err)
		var n int
		for _, in := range runview.Perfetto(c.sc, res).Instants {
			if in.Cat == c.cat {
				n++
				assert.Equal(t, c.label, in.Name, c.sc.Name)
				assert.Equal(t, c.lane, in.Track, c.sc.Name)
			}
		}
		assert.Equal(t, 1, n, "%s: %s instants", c.sc.Name, c.cat)
	}
}
