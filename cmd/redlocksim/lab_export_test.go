package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/lab"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
)

// exportedLab exports the lab (compiling the simulator to WebAssembly)
// and serves the directory as a teacher would try it, with python3 -m
// http.server: a plain static file server, no Go and no lab code. It
// returns the URL, the paths the browser asked for (from the server's
// log), and what --export printed.
func exportedLab(tb testing.TB) (string, func() []string, string) {
	tb.Helper()
	python := proctest.Need(tb, "python3", "python3")
	dir := filepath.Join(tb.TempDir(), "lab")
	code, stdout, stderr := runCLI("lab", "--export", dir)
	require.Equal(tb, exitOK, code, stderr)
	require.Contains(tb, stdout, "redlocksim lab: wrote the lab to "+dir)
	port, err := proc.FreePort()
	require.NoError(tb, err)
	g := proc.NewGroup()
	tb.Cleanup(func() { _ = g.Close() })
	var log syncBuffer
	p, err := g.Start(proc.Spec{Name: "python3 -m http.server", Path: python, Dir: dir, Stderr: &log,
		Args: []string{"-u", "-m", "http.server", fmt.Sprint(port), "--bind", "127.0.0.1"}})
	require.NoError(tb, err)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	require.NoError(tb, proc.WaitTCP(context.Background(), addr, p, 30*time.Second))
	return "http://" + addr, func() []string {
		var asked []string
		for _, m := range requestLine.FindAllStringSubmatch(log.String(), -1) {
			asked = append(asked, m[1])
		}
		return asked
	}, stdout
}

// requestLine is a request in http.server's log: "GET /index.html HTTP/1.1".
var requestLine = regexp.MustCompile(`"[A-Z]+ (\S+) HTTP/`)

// syncBuffer is a buffer that a child's output and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// exportSize reads the sizes --export printed: the directory's and the
// uncompressed simulator's, in MB.
var exportSize = regexp.MustCompile(`: \d+ files, ([0-9.]+) MB \(the simulator ([0-9.]+) MB uncompressed\)`)

// docSizes are the export's sizes as the docs state them: each pattern's
// first group is the directory's size in MB.
var docSizes = map[string]*regexp.Regexp{
	"README.md":          regexp.MustCompile(`--export DIR` + "`" + ` writes the lab as static files \(([0-9.]+) MB,`),
	"docs/guides/lab.md": regexp.MustCompile(`\*\*Size\.\*\* ([0-9.]+) MB in all`),
}

// checkExportSizeDocumented checks that the README and the lab guide state
// the size of the export --export just wrote, within a tenth: the
// simulator grows a little with most changes to the model, and the docs
// round.
func checkExportSizeDocumented(t *testing.T, stdout string) {
	t.Helper()
	m := exportSize.FindStringSubmatch(stdout)
	require.NotNil(t, m, stdout)
	size, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	t.Logf("the export: %s MB, the simulator %s MB uncompressed", m[1], m[2])
	for file, re := range docSizes {
		raw, err := os.ReadFile(filepath.Join(labRoot(t), file))
		require.NoError(t, err)
		d := re.FindSubmatch(raw)
		require.NotNil(t, d, "%s states the export's size", file)
		stated, err := strconv.ParseFloat(string(d[1]), 64)
		require.NoError(t, err)
		assert.InEpsilon(t, size, stated, 0.1, "%s says the export is %v MB; it is %v MB", file, stated, size)
	}
}

// The exported lab in a real browser, served as plain files by python3's
// http.server: gc-pause shows both verdicts violated; a 5 s pause makes
// mutual exclusion safe; the permalink restores it, and one with for=5
// shows the knobs and the loader's message; the run's JSON is byte for
// byte what `run` prints for the scenario file the page downloads; a
// message is held,
// delivered and dropped and c2 frozen and woken; gc-pause's challenge is
// won and the debate tour taken. No request goes to an API: every run
// happens in the page.
func TestExportedLabInChromium(t *testing.T) {
	base, asked, exported := exportedLab(t)
	checkExportSizeDocumented(t, exported)
	ctx := browser(t)
	downloads := t.TempDir()
	_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads})
	require.NoError(t, err)

	do(t, ctx, chromedp.Navigate(base+"/?s=gc-pause"))
	waitFor(t, ctx, "gc-pause's verdict in the exported lab", badgeIs("mutex-a", "mutual exclusion: violation")+" && "+badgeIs("resource-a", "resource: violation"))
	assert.Greater(t, eval[int](t, ctx, `document.querySelectorAll("#diagram-a line.arrow").length`), 20)

	do(t, ctx, typeInto("faults[0].for", "5s"))
	waitFor(t, ctx, "mutual exclusion safe with a 5 s pause", badgeIs("mutex-a", "mutual exclusion: safe"))

	link := eval[string](t, ctx, `document.getElementById("permalink").href`)
	assert.Equal(t, "/?s=gc-pause&set=faults%5B0%5D.for%3D5s&seed=1", strings.TrimPrefix(link, base))
	do(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	waitFor(t, ctx, "the permalink's run", badgeIs("mutex-a", "mutual exclusion: safe")+` && document.querySelector('input[data-key="faults[0].for"]').value === "5s"`)

	// The JSON the page's simulator made, as it made it (the page keeps
	// only the decoded object).
	body := eval[string](t, ctx, `globalThis.redlocksimLab("api/run?" + query().toString(), "test").body`)
	var ans labAnswer
	require.NoError(t, json.Unmarshal([]byte(body), &ans))
	shown := string(ans.A.Run)
	assert.Contains(t, shown, `"mutex":"safe"`)

	do(t, ctx, chromedp.Click(chromedp.ID("download")))
	file := filepath.Join(downloads, "gc-pause.toml")
	var data []byte
	for range 100 {
		if data, err = os.ReadFile(file); err == nil && len(data) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(t, err, "the download")
	out := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(out, "gc-pause.toml"), data, 0o644))
	t.Chdir(out)
	code, stdout, stderr := runCLI("run", "gc-pause.toml", "--json", "--trace")
	require.Equal(t, 0, code, stderr)
	var replayed bytes.Buffer
	require.NoError(t, json.Compact(&replayed, []byte(stdout)))
	assert.Equal(t, shown, replayed.String(), "the downloaded file replays to the JSON the exported lab made")
	// `run` of the library's scenario with the permalink's override and
	// seed makes the same JSON but for scenario_hash, which names the
	// input (Base.Hash: a file and its overrides) and so differs between
	// gc-pause with --set and the file with the override written in.
	code, stdout, stderr = runCLI("run", "gc-pause", "--set", "faults[0].for=5s", "--seed", "1", "--json", "--trace")
	require.Equal(t, 0, code, stderr)
	var direct bytes.Buffer
	require.NoError(t, json.Compact(&direct, []byte(stdout)))
	hashed := regexp.MustCompile(`^\{"scenario":"gc-pause","scenario_hash":"[0-9a-f]{32}",`)
	require.Regexp(t, hashed, shown)
	require.Regexp(t, hashed, direct.String())
	assert.Equal(t, hashed.ReplaceAllString(shown, ""), hashed.ReplaceAllString(direct.String(), ""), "run with the same scenario, override and seed makes the JSON the exported lab made, but for the hash")

	// A permalink with a value the loader refuses, the student as the
	// adversary, the challenge and the tour, in the page's simulator.
	checkInvalidPermalink(t, ctx, base)
	playAdversary(t, ctx, base)
	winChallenge(t, ctx, base)
	do(t, ctx, chromedp.Navigate(base+"/"))
	waitFor(t, ctx, "the exported lab", `current !== null`)
	walkDebateTour(t, ctx)

	do(t, ctx, chromedp.Navigate(base+"/?s=gc-pause"))
	waitFor(t, ctx, "gc-pause again", badgeIs("mutex-a", "mutual exclusion: violation"))
	med := knobLatency(t, ctx, 20)
	t.Logf("exported lab: knob change to redrawn verdict on gc-pause: median %.1f ms of 20 changes (target < 300 ms)", med)

	paths := asked()
	assert.Contains(t, paths, "/"+lab.WasmName, "the server's log names what the page asked for")
	for _, p := range paths {
		assert.False(t, strings.HasPrefix(p, "/api/"), "the exported page asked the server for %s", p)
	}
}

// BenchmarkExportedLabKnobLatency is BenchmarkLabKnobLatency for the
// exported lab, where the run happens in the page's WebAssembly.
func BenchmarkExportedLabKnobLatency(b *testing.B) {
	base, _, _ := exportedLab(b)
	benchKnobLatency(b, base)
}

// --export refuses a directory that holds anything but an earlier export
// (exit 2, saying why), and replaces an earlier export's files.
func TestLabExportDirectory(t *testing.T) {
	wasm := filepath.Join(t.TempDir(), "lab.wasm")
	require.NoError(t, os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00"), 0o644))

	full := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(full, "notes.txt"), []byte("mine"), 0o644))
	code, _, stderr := runCLI("lab", "--export", full, "--wasm", wasm)
	assert.Equal(t, exitBadInput, code)
	assert.Equal(t, "redlocksim lab --export: "+full+" is not empty and is not an earlier export of the lab (it has no redlocksim-lab.json); give a new or empty directory\n", stderr)
	_, err := os.Stat(filepath.Join(full, "index.html"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing written beside the user's files")
	// The directory is refused before the simulator is compiled or read:
	// a module that is not one does not get to say so first.
	code, _, stderr = runCLI("lab", "--export", full, "--wasm", filepath.Join(full, "notes.txt"))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "is not empty and is not an earlier export of the lab")

	dir := filepath.Join(t.TempDir(), "lab")
	code, _, stderr = runCLI("lab", "--export", dir, "--wasm", wasm)
	require.Equal(t, exitOK, code, stderr)
	stale := filepath.Join(dir, "assets", "old.js")
	m, err := os.ReadFile(filepath.Join(dir, lab.ManifestName))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(stale, nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, lab.ManifestName), bytes.Replace(m, []byte(`"files": [`), []byte(`"files": ["assets/old.js", "../escape", `), 1), 0o644))
	code, _, stderr = runCLI("lab", "--export", dir, "--wasm", wasm)
	require.Equal(t, exitOK, code, stderr)
	_, err = os.Stat(stale)
	assert.ErrorIs(t, err, os.ErrNotExist, "the earlier export's file that this one does not write")
	for _, f := range []string{"index.html", "lab.wasm.gz", "assets/app.js", "assets/static.js", "assets/wasm_exec.js", "assets/style.css", lab.ManifestName} {
		assert.FileExists(t, filepath.Join(dir, f))
	}

	code, _, stderr = runCLI("lab", "--export", dir, "--wasm", filepath.Join(dir, "index.html"))
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "not a WebAssembly module")
	code, _, stderr = runCLI("lab", "--wasm", wasm)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, stderr, "--wasm goes with --export DIR")
}
