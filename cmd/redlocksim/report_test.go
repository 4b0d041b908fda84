package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/redlocksim/redlocksim/plots/report"
	"github.com/redlocksim/redlocksim/plots/report/htmltest"
	"github.com/redlocksim/redlocksim/scenarios"
)

// writeReport runs the report command and parses the page.
func writeReport(t *testing.T, args ...string) (string, *html.Node) {
	t.Helper()
	dir := t.TempDir()
	code, stdout, stderr := runCLI(append([]string{"report", "--out", dir}, args...)...)
	require.Equal(t, 0, code, stderr)
	path := filepath.Join(dir, "index.html")
	assert.Contains(t, stdout, "wrote "+path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, report.SelfContained(data))
	doc, err := html.Parse(bytes.NewReader(data))
	require.NoError(t, err)
	return path, doc
}

// The page for two scenarios: verdict badges from the checker, the
// argument's author, the what-if table (fencing and cas make gc-pause's
// resource safe, not its mutex), an inline timeline with hover titles,
// the trace and the replay command.
func TestReportStructure(t *testing.T) {
	_, doc := writeReport(t, "gc-pause", "baseline", "--sweep-seeds", "0")
	rows := htmltest.Find(doc, func(n *html.Node) bool {
		return n.Data == "tr" && len(htmltest.Find(n, htmltest.Tag("a"))) > 0
	})
	require.Len(t, rows, 2)
	badge := func(n *html.Node) []string {
		var out []string
		for _, b := range htmltest.Find(n, func(m *html.Node) bool { return strings.HasPrefix(htmltest.Attr(m, "class"), "badge ") }) {
			out = append(out, strings.TrimPrefix(htmltest.Attr(b, "class"), "badge "))
		}
		return out
	}
	assert.Equal(t, []string{"violation", "violation"}, badge(rows[0]))
	assert.Contains(t, htmltest.Text(rows[0]), "Kleppmann")
	assert.Equal(t, []string{"safe", "safe"}, badge(rows[1]))
	assert.Contains(t, htmltest.Text(rows[1]), "antirez")

	secs := htmltest.Find(doc, func(n *html.Node) bool { return n.Data == "section" && htmltest.Attr(n, "class") == "scenario" })
	require.Len(t, secs, 2)
	gc := secs[0]
	assert.Equal(t, "gc-pause", htmltest.Attr(gc, "id"))
	answers := htmltest.Find(gc, func(n *html.Node) bool { return n.Data == "p" && htmltest.Attr(n, "class") == "answer" })
	require.Len(t, answers, 1, "the other side's answer, from the scenario's [debate]")
	assert.Contains(t, htmltest.Text(answers[0]), "the lock's random value can serve as its compare-and-set token (gc-pause-cas). (antirez)")
	svg := htmltest.Find(gc, htmltest.Tag("svg"))
	require.Len(t, svg, 1)
	titles := htmltest.Find(svg[0], htmltest.Tag("title"))
	assert.GreaterOrEqual(t, len(titles), 10, "a hover title per bar and mark")
	assert.Contains(t, htmltest.Text(svg[0]), "c1 is paused (GC), 1.000000 s to 16.000000 s")

	wi := htmltest.Find(gc, func(n *html.Node) bool { return n.Data == "table" && htmltest.Attr(n, "class") == "whatif" })
	require.Len(t, wi, 1)
	byRemedy := map[string][]string{}
	for _, r := range htmltest.Find(wi[0], htmltest.Tag("tr")) {
		cells := htmltest.Find(r, htmltest.Tag("td"))
		if len(cells) > 0 {
			byRemedy[htmltest.Text(cells[0])] = badge(r)
		}
	}
	assert.Equal(t, []string{"violation", "violation"}, byRemedy["as written"])
	assert.Equal(t, []string{"violation", "safe"}, byRemedy["fencing"])
	assert.Equal(t, []string{"violation", "safe"}, byRemedy["cas"])
	assert.Equal(t, []string{"na"}, byRemedy["wait"])

	det := htmltest.Find(gc, htmltest.Tag("details"))
	require.Len(t, det, 1)
	assert.Contains(t, htmltest.Text(det[0]), "pauses (GC) for 15s")
	assert.Contains(t, htmltest.Text(gc), "redlocksim run gc-pause --seed 1 --trace")
	assert.Empty(t, htmltest.Find(doc, htmltest.Tag("figure")), "--sweep-seeds 0 draws no figure")
}

// With sweeps, the headline figures are inline SVG with their commands.
func TestReportFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two small sweeps")
	}
	_, doc := writeReport(t, "baseline", "--sweep-seeds", "2")
	figs := htmltest.Find(doc, htmltest.Tag("figure"))
	require.Len(t, figs, 2)
	for _, f := range figs {
		assert.Len(t, htmltest.Find(f, htmltest.Tag("svg")), 1)
		assert.Contains(t, htmltest.Text(f), "redlocksim sweep ")
	}
}

func TestReportBadInput(t *testing.T) {
	code, _, stderr := runCLI("report", "gc-pause")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--out is required")
	code, _, stderr = runCLI("report", "no-such", "--out", t.TempDir(), "--sweep-seeds", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `no built-in scenario is called "no-such"`)
	code, _, stderr = runCLI("report", "--out", t.TempDir(), "--sweep-seeds", "-1")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--sweep-seeds must not be negative")
}

// The reality check: real runs recorded with `redlocksim real --json`
// or `redlocksim compare --json`
// (testdata: gc-pause, gc-pause-fencing and restart-no-persistence, one
// run each, redsync on real redis-servers) beside the simulated verdicts;
// a scenario without a section on the page is named, not linked.
func TestReportRealityCheck(t *testing.T) {
	_, doc := writeReport(t, "gc-pause", "gc-pause-fencing", "--sweep-seeds", "0", "--reality", filepath.Join("testdata", "report", "real.json"))
	tables := htmltest.Find(doc, func(n *html.Node) bool { return n.Data == "table" && htmltest.Attr(n, "class") == "reality" })
	require.Len(t, tables, 1)
	var rows []*html.Node
	for _, r := range htmltest.Find(tables[0], htmltest.Tag("tr")) {
		if len(htmltest.Find(r, htmltest.Tag("td"))) > 0 {
			rows = append(rows, r)
		}
	}
	require.Len(t, rows, 3)
	cells := func(r *html.Node) []string {
		var out []string
		for _, c := range htmltest.Find(r, htmltest.Tag("td")) {
			out = append(out, strings.TrimSpace(htmltest.Text(c)))
		}
		return out
	}
	assert.Equal(t, []string{"gc-pause", "1 of 1", "1 of 1", "1 of 1", "1 of 1", "-", "redsync v4.18.1 over go-redis v9"}, cells(rows[0]))
	assert.Equal(t, []string{"gc-pause-fencing", "1 of 1", "0 of 1", "1 of 1", "0 of 1", "-", "redsync v4.18.1 over go-redis v9"}, cells(rows[1]))
	assert.Len(t, htmltest.Find(rows[1], htmltest.Tag("a")), 1)
	assert.Empty(t, htmltest.Find(rows[2], htmltest.Tag("a")), "restart-no-persistence has no section to link to")

	// compare --json (two runs of each, simulated and real) reads too,
	// with compare's agreement.
	_, doc = writeReport(t, "gc-pause", "--sweep-seeds", "0", "--reality", filepath.Join("testdata", "report", "compare.json"))
	tables = htmltest.Find(doc, func(n *html.Node) bool { return n.Data == "table" && htmltest.Attr(n, "class") == "reality" })
	require.Len(t, tables, 1)
	rows = nil
	for _, r := range htmltest.Find(tables[0], htmltest.Tag("tr")) {
		if len(htmltest.Find(r, htmltest.Tag("td"))) > 0 {
			rows = append(rows, r)
		}
	}
	require.Len(t, rows, 2)
	assert.Equal(t, []string{"gc-pause", "2 of 2", "2 of 2", "2 of 2", "2 of 2", "agree", "redsync v4.18.1 over go-redis v9"}, cells(rows[0]))
	assert.Equal(t, []string{"gc-pause-fencing", "2 of 2", "0 of 2", "2 of 2", "0 of 2", "agree", "redsync v4.18.1 over go-redis v9"}, cells(rows[1]))

	bad := filepath.Join(t.TempDir(), "sim.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"scenario": "gc-pause", "mutex": "violation", "resource": "violation"}`), 0o644))
	code, _, stderr := runCLI("report", "gc-pause", "--out", t.TempDir(), "--sweep-seeds", "0", "--reality", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `has mode "": want the output of 'redlocksim real NAME --json'`)
	require.NoError(t, os.WriteFile(bad, []byte(`{"mode": "real", `), 0o644))
	code, _, stderr = runCLI("report", "gc-pause", "--out", t.TempDir(), "--sweep-seeds", "0", "--reality", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "object 1:")
	require.NoError(t, os.WriteFile(bad, []byte(`[{"scenario": "gc-pause", "sim": {"mutex": {"runs": 2}, "resource": {"runs": 1}}, "real": {"mutex": {"runs": 2}, "resource": {"runs": 2}}}]`), 0o644))
	code, _, stderr = runCLI("report", "gc-pause", "--out", t.TempDir(), "--sweep-seeds", "0", "--reality", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "run counts do not match (sim 2/1, real 2/2)")
}

// report takes a teacher's own scenario file as well as library names: a
// file without [debate] argues what its description says.
func TestReportOfAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "my-pause.toml")
	require.NoError(t, os.WriteFile(file, []byte(`description = "my own pause"
duration = "30s"
[lock]
ttl = "10s"
[workload]
iterations = 1
[clients]
count = 2
[[faults]]
at = "1s"
kind = "pause"
target = "c1"
for = "15s"
`), 0o644))
	_, doc := writeReport(t, file, "--sweep-seeds", "0")
	secs := htmltest.Find(doc, func(n *html.Node) bool { return n.Data == "section" && htmltest.Attr(n, "class") == "scenario" })
	require.Len(t, secs, 1)
	assert.Equal(t, "my-pause", htmltest.Attr(secs[0], "id"))
	assert.Contains(t, htmltest.Text(doc), "my own pause")
	assert.Contains(t, htmltest.Text(secs[0]), "redlocksim run "+file+" --seed 1")
}

// A scenario that reads a data file names it in its section, with its
// hash, as run's output does.
func TestReportNamesItsDataFiles(t *testing.T) {
	file := writeDataScenario(t, t.TempDir())
	sc, err := scenarios.Load(file)
	require.NoError(t, err)
	require.Len(t, sc.DataFiles, 1)
	_, doc := writeReport(t, file, "--sweep-seeds", "0")
	secs := htmltest.Find(doc, func(n *html.Node) bool { return n.Data == "section" && htmltest.Attr(n, "class") == "scenario" })
	require.Len(t, secs, 1)
	assert.Contains(t, htmltest.Text(secs[0]), sc.DataFiles[0].String())
	assert.Contains(t, htmltest.Text(secs[0]), "sha256 "+sc.DataFiles[0].Short())
}

// writeDataScenario writes a small scenario whose pause lengths come from
// a data file beside it, into dir, and returns its path.
func writeDataScenario(t *testing.T, dir string) string {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pauses.txt"), []byte("5ms\n12ms\n30ms\n7ms\n250ms\n"), 0o644))
	file := filepath.Join(dir, "my-data.toml")
	require.NoError(t, os.WriteFile(file, []byte(`duration = "2s"
[lock]
ttl = "1s"
[workload]
iterations = 1
[clients]
count = 2
pauses = { every = "1s", length = { kind = "empirical", file = "pauses.txt", format = "durations", tail = "none" } }
`), 0o644))
	return file
}
