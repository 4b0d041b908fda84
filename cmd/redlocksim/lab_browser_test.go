package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/lab"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
)

// chromiumPath is Debian's chromium: a test without it skips, naming the
// package, and fails under CI=true.
func chromiumPath(tb testing.TB) string {
	tb.Helper()
	return proctest.Need(tb, "chromium", "chromium")
}

// startLab serves the lab on a loopback port, with dir as --dir ("" for
// none), for the test's lifetime.
func startLab(tb testing.TB, dir string) string {
	tb.Helper()
	srv, err := lab.New(lab.Options{Dir: dir, RunJSON: labRunJSON})
	require.NoError(tb, err)
	hs := httptest.NewServer(srv)
	tb.Cleanup(func() { hs.Close(); srv.Close() })
	return hs.URL
}

// browser starts headless chromium with a fresh profile; it dies with the
// test (chromedp starts it with Pdeathsig and kills it on cancel).
func browser(tb testing.TB) context.Context {
	tb.Helper()
	profile, err := os.MkdirTemp("", "redlocksim-lab-chromium-")
	require.NoError(tb, err)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(tb)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1400, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	tb.Cleanup(func() {
		cancelB()
		cancelA()
		// Chromium's helpers may write to the profile for a moment after
		// the browser stops.
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	_, err = chromedp.Run(ctx, chromedp.Evaluate[int](`1 + 2`)) // starts the browser
	require.NoError(tb, err)
	return ctx
}

// do runs browser actions and fails the test on an error.
func do(tb testing.TB, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	require.NoError(tb, chromedp.Do(ctx, steps...))
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](tb testing.TB, ctx context.Context, expr string) T {
	tb.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(tb, err, expr)
	return v
}

// waitFor polls a JavaScript condition until it holds.
func waitFor(tb testing.TB, ctx context.Context, what, cond string) {
	tb.Helper()
	var err error
	for range 20 {
		_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(30*time.Second)))
		// A poll that began while the page was still loading runs in the
		// old page's context, which the load destroys: poll again.
		if err == nil || !strings.Contains(err.Error(), "Cannot find context") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[document.getElementById('mutex-a').textContent, document.getElementById('resource-a').textContent, document.getElementById('error').textContent, location.search].join(" | ")`))
		tb.Fatalf("waiting for %s (%s): %v; the page shows: %s", what, cond, err, state)
	}
}

func badgeIs(id, text string) string {
	return fmt.Sprintf(`document.getElementById(%q).textContent === %q`, id, text)
}

// typeInto clicks the input of a knob, selects its text and types text
// over it, key by key, as a teacher would.
func typeInto(key, text string) chromedp.Action[chromedp.Void] {
	css := fmt.Sprintf(`input[data-key=%q]`, key)
	sel := chromedp.CSS(css)
	// Select what the input holds, so that the first key replaces it.
	return chromedp.Steps(chromedp.Click(sel),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).select()`, css)),
		chromedp.SendKeys(sel, text))
}

// choose picks an option of a select and tells the page, as a click on
// the option does.
func choose(id, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Click(chromedp.ID(id)),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.value = %q; e.dispatchEvent(new Event("change")); })()`, id, value)))
}

// labAnswer is what the lab's API answers for a query.
type labAnswer struct {
	A struct {
		Run      json.RawMessage   `json:"run"`
		Messages []json.RawMessage `json:"messages"`
		Trace    []struct {
			At   int64  `json:"at"`
			Text string `json:"text"`
		} `json:"trace"`
	} `json:"a"`
}

func getAnswer(t *testing.T, base, query string) labAnswer {
	t.Helper()
	resp, err := http.Get(base + "/api/run?" + query)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var a labAnswer
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&a))
	return a
}

// The lab in a real browser, as the contract states it: on
// gc-pause, shortening the pause below the validity makes mutual exclusion
// safe, the fencing what-if makes the resource safe, and the permalink
// restores both; on clock-jump, a step smaller than the key's remaining
// life makes it safe; the downloaded scenario replays with `redlocksim
// run` to the JSON the lab showed. The page is driven by clicks and keys.
func TestLabInChromium(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.toml"), []byte("duration = \"30s\"\n[lock]\nttl = 10\n"), 0o644))
	base := startLab(t, dir)
	ctx := browser(t)

	// gc-pause as written: both verdicts violated, one arrow per message.
	do(t, ctx, chromedp.Navigate(base+"/?s=gc-pause"))
	waitFor(t, ctx, "gc-pause's verdict", badgeIs("mutex-a", "mutual exclusion: violation")+" && "+badgeIs("resource-a", "resource: violation"))
	ans := getAnswer(t, base, "s=gc-pause")
	arrows := eval[int](t, ctx, `document.querySelectorAll("#diagram-a line.arrow").length`)
	assert.Equal(t, len(ans.A.Messages), arrows, "one arrow per delivered message")
	assert.Greater(t, arrows, 20)

	// The broken file of --dir is listed with its loader error, and
	// cannot be picked.
	broken := eval[string](t, ctx, `document.getElementById("broken").textContent`)
	disabled := eval[bool](t, ctx, `document.querySelector('option[value="file:broken.toml"]').disabled`)
	assert.Contains(t, broken, filepath.Join(dir, "broken.toml")+":3: lock.ttl: a duration is a string with a unit")
	assert.True(t, disabled)

	// Step through the trace with the arrow keys: the highlighted line is
	// the event at the cursor.
	atZero := 0
	for _, l := range ans.A.Trace {
		if l.At == 0 {
			atZero++
		}
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`),
		chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	hl := eval[string](t, ctx, `document.querySelector("#trace li.current").dataset.i`)
	hlText := eval[string](t, ctx, `document.querySelector("#trace li.current").textContent`)
	want := atZero - 1 + 3
	assert.Equal(t, fmt.Sprint(want), hl)
	assert.Contains(t, hlText, ans.A.Trace[want].Text)
	do(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	hl = eval[string](t, ctx, `document.querySelector("#trace li.current").dataset.i`)
	assert.Equal(t, fmt.Sprint(want-1), hl)

	// A bare number where a duration goes: the loader's message beside
	// the knob. Then the pause shortened to 5 s, below the 9.9 s validity.
	do(t, ctx, typeInto("faults[0].for", "5"))
	waitFor(t, ctx, "the loader's error at the knob", `(document.querySelector('.knob-error[data-key="faults[0].for"]').textContent || "").includes('faults[0].for: a duration is a string with a unit: write "5s"')`)
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`input[data-key="faults[0].for"]`), "s"))
	waitFor(t, ctx, "mutual exclusion safe with a 5 s pause", badgeIs("mutex-a", "mutual exclusion: safe"))

	// B: the pause back at 15 s, and fencing on the B side.
	do(t, ctx, typeInto("faults[0].for", "15s"))
	waitFor(t, ctx, "the 15 s pause again", badgeIs("mutex-a", "mutual exclusion: violation"))
	do(t, ctx, choose("ab", "fencing"))
	waitFor(t, ctx, "fencing makes the resource safe", badgeIs("resource-b", "resource: safe")+" && "+badgeIs("mutex-b", "mutual exclusion: violation")+" && "+badgeIs("resource-a", "resource: violation"))
	do(t, ctx, typeInto("faults[0].for", "5s"))
	waitFor(t, ctx, "a 5 s pause with fencing", badgeIs("mutex-a", "mutual exclusion: safe")+" && "+badgeIs("resource-b", "resource: safe"))

	// The permalink restores the run, knob and B side included.
	link := eval[string](t, ctx, `document.getElementById("permalink").href`)
	assert.Equal(t, "/?s=gc-pause&set=faults%5B0%5D.for%3D5s&seed=1&whatif=fencing", strings.TrimPrefix(link, base))
	do(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	waitFor(t, ctx, "the permalink's run", badgeIs("mutex-a", "mutual exclusion: safe")+" && "+badgeIs("resource-b", "resource: safe")+` && document.querySelector('input[data-key="faults[0].for"]').value === "5s"`)

	// Download: the file replays with `redlocksim run` to the same JSON.
	href := eval[string](t, ctx, `document.getElementById("download").href`)
	u, err := url.Parse(href)
	require.NoError(t, err)
	resp, err := http.Get(href)
	require.NoError(t, err)
	file, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(file))
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
	require.NoError(t, err)
	assert.Equal(t, "gc-pause.toml", params["filename"])
	shown := getAnswer(t, base, u.RawQuery).A.Run
	out := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(out, params["filename"]), file, 0o644))
	t.Chdir(out)
	code, stdout, stderr := runCLI("run", params["filename"], "--json", "--trace")
	require.Equal(t, 0, code, stderr)
	var replayed bytes.Buffer
	require.NoError(t, json.Compact(&replayed, []byte(stdout)))
	assert.Equal(t, string(shown), replayed.String(), "the downloaded file replays to the JSON the lab showed")
	assert.Contains(t, string(shown), `"mutex":"safe"`)

	// clock-jump: n3's +9 s step expires c1's key at once; a +1 s step
	// leaves the key alive past c1's work.
	do(t, ctx, chromedp.Navigate(base+"/?s=clock-jump"))
	waitFor(t, ctx, "clock-jump's verdict", badgeIs("mutex-a", "mutual exclusion: violation"))
	do(t, ctx, typeInto("faults[4].by", "+1s"))
	waitFor(t, ctx, "a small clock step is safe", badgeIs("mutex-a", "mutual exclusion: safe")+" && "+badgeIs("resource-a", "resource: safe"))

	// The latency of a knob change, measured in the page from the input
	// event to the redrawn verdict; reported, not asserted (the machine is
	// shared), against the target of 300 ms.
	do(t, ctx, chromedp.Navigate(base+"/?s=gc-pause"))
	waitFor(t, ctx, "gc-pause again", badgeIs("mutex-a", "mutual exclusion: violation"))
	med := knobLatency(t, ctx, 20)
	t.Logf("knob change to redrawn verdict on gc-pause: median %.1f ms of 20 changes (target < 300 ms)", med)

	if *updateDocs {
		// Without --dir, whose broken file would take the top of the page;
		// the cursor where c2 has the lock and frozen c1 still believes it.
		do(t, ctx, chromedp.Navigate(startLab(t, "")+"/?s=gc-pause&whatif=fencing"))
		waitFor(t, ctx, "the screenshot's run", badgeIs("resource-b", "resource: safe"))
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll("#trace li")].find(li => li.textContent.includes("c2") && li.textContent.includes("acquires the lock")).click()`))
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(labRoot(t), "docs", "lab.png"), png, 0o644))
	}
}

// labRoot is the module's root, from this package's directory (the test
// may have changed directory).
func labRoot(t *testing.T) string {
	t.Helper()
	_, err := os.Stat(filepath.Join(testdataRoot, "go.mod"))
	require.NoError(t, err)
	return testdataRoot
}

// testdataRoot is the module root, taken before any test changes directory.
var testdataRoot = func() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..")
}()

// knobLatency changes gc-pause's pause n times, alternating 5 s and 15 s
// (the verdict flips each time), and returns the median of what the page
// measured from each input event to its redrawn verdict, in milliseconds.
func knobLatency(tb testing.TB, ctx context.Context, n int) float64 {
	tb.Helper()
	before := eval[int](tb, ctx, `window.labStats.latencies.length`)
	for i := range n {
		v, verdict := "5s", "safe"
		if i%2 == 1 {
			v, verdict = "15s", "violation"
		}
		js := fmt.Sprintf(`(() => { const e = document.querySelector('input[data-key="faults[0].for"]'); e.value = %q; e.dispatchEvent(new Event("input")); })()`, v)
		do(tb, ctx, chromedp.Evaluate[chromedp.Void](js))
		waitFor(tb, ctx, "the change's verdict", fmt.Sprintf(`window.labStats.latencies.length > %d && `, before+i)+badgeIs("mutex-a", "mutual exclusion: "+verdict))
	}
	lat := eval[[]float64](tb, ctx, `window.labStats.latencies`)[before:]
	slices.Sort(lat)
	return lat[len(lat)/2]
}

// BenchmarkLabKnobLatency records the lab's answer to a knob change, from
// the input event to the redrawn verdict, in the browser; the issue's
// target is a median under 300 ms on a 2-core machine.
func BenchmarkLabKnobLatency(b *testing.B) {
	benchKnobLatency(b, startLab(b, ""))
}

// benchKnobLatency records the knob latency of the lab at base.
func benchKnobLatency(b *testing.B, base string) {
	ctx := browser(b)
	do(b, ctx, chromedp.Navigate(base+"/?s=gc-pause"))
	waitFor(b, ctx, "gc-pause", badgeIs("mutex-a", "mutual exclusion: violation"))
	b.ResetTimer()
	var med float64
	for b.Loop() {
		med = knobLatency(b, ctx, 20)
	}
	b.ReportMetric(med, "ms/change-median")
}
