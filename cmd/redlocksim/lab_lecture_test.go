package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layout is what lectureLayout measures in the page.
type layout struct {
	Lanes      int      `json:"lanes"`
	Outside    []string `json:"outside"`     // lanes whose box leaves the viewport
	MinFont    float64  `json:"min_font"`    // the smallest diagram text, px
	BadgeFont  float64  `json:"badge_font"`  // the verdict badges', px
	Scroll     float64  `json:"scroll"`      // how far the page is scrolled
	Overlaps   []string `json:"overlaps"`    // pairs of diagram texts whose boxes overlap
	Cut        []string `json:"cut"`         // diagram texts that cross the diagram's edge
	ShownTexts int      `json:"shown_texts"` // the non-empty texts compared
}

// measureLayout measures the diagram of side ("a" or "b") as the page
// shows it: each lane's box against the viewport, the computed font size
// of every text of the diagram, every text that crosses the diagram's
// edge (the browser cuts it there), and every pair of texts whose boxes
// overlap.
func measureLayout(tb testing.TB, ctx context.Context, side string) layout {
	tb.Helper()
	js := fmt.Sprintf(`(() => {
  const box = document.getElementById("diagram-%s");
  const vw = window.innerWidth, vh = window.innerHeight;
  const out = { lanes: 0, outside: [], min_font: 1e9, badge_font: parseFloat(getComputedStyle(document.getElementById("mutex-%s")).fontSize), scroll: window.scrollY, overlaps: [], cut: [], shown_texts: 0 };
  const frame = box.querySelector("svg").getBoundingClientRect();
  for (const r of box.querySelectorAll("rect.lane")) {
    out.lanes++;
    const b = r.getBoundingClientRect();
    if (b.top < 0 || b.left < 0 || b.bottom > vh + 0.5 || b.right > vw + 0.5) out.outside.push(r.dataset.lane + " " + JSON.stringify(b));
  }
  const texts = [...box.querySelectorAll("text")].filter((t) => t.textContent.trim() !== "");
  out.shown_texts = texts.length;
  const boxes = texts.map((t) => t.getBoundingClientRect());
  texts.forEach((t, i) => {
    out.min_font = Math.min(out.min_font, parseFloat(getComputedStyle(t).fontSize));
    const b = boxes[i];
    if (b.width > 0 && (b.left < frame.left - 0.5 || b.right > frame.right + 0.5 || b.top < frame.top - 0.5 || b.bottom > frame.bottom + 0.5)) out.cut.push(JSON.stringify(t.textContent));
  });
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.width === 0 || b.width === 0) continue;
      if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) {
        out.overlaps.push(JSON.stringify(texts[i].textContent) + " over " + JSON.stringify(texts[j].textContent));
      }
    }
  }
  return out;
})()`, side, side)
	return eval[layout](tb, ctx, js)
}

// Lecture mode at a projector's 1280x720 and at 1920x1080: every lane of
// gc-pause (two clients, five nodes, the resource) lies inside the window
// without scrolling, no text of the diagram is under 24 px, the badges
// are larger than the diagram's text; with a B side, A and B are tabs, and
// B's lanes fit too; the header's controls stay on screen; with a tour's
// step shown, every lane still fits.
func TestLabLectureModeInChromium(t *testing.T) {
	checkLectureMode(t, browser(t), startLab(t, ""))
}

// checkLectureMode checks lecture mode's layout in the lab at base.
func checkLectureMode(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	for _, size := range [][2]int64{{1280, 720}, {1920, 1080}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			do(t, ctx, chromedp.EmulateViewport(size[0], size[1]))
			do(t, ctx, chromedp.Navigate(base+"/?s=gc-pause&seed=1&whatif=fencing&lecture=1"))
			waitFor(t, ctx, "gc-pause in lecture mode", badgeIs("mutex-a", "mutual exclusion: violation")+" && "+badgeIs("resource-b", "resource: safe"))
			// The cursor where c2 has the lock and frozen c1 still believes
			// it holds it: the longest texts of the lanes.
			do(t, ctx, chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll("#trace li")].find(li => li.textContent.includes("c2") && li.textContent.includes("acquires the lock")).click()`))
			a := measureLayout(t, ctx, "a")
			assert.Equal(t, 8, a.Lanes, "c1, c2, n1-n5 and the resource")
			assert.Empty(t, a.Outside, "every lane inside the window")
			assert.Zero(t, a.Scroll)
			assert.GreaterOrEqual(t, a.MinFont, 24.0, "the diagram's smallest text")
			assert.Greater(t, a.BadgeFont, a.MinFont, "the badges larger than the diagram's text")
			assert.Empty(t, a.Overlaps)
			assert.Empty(t, a.Cut, "texts the diagram's edge cuts")
			t.Logf("lecture mode at %dx%d: %d lanes, %d outside the window; smallest diagram text %.1f px, badges %.1f px", size[0], size[1], a.Lanes, len(a.Outside), a.MinFont, a.BadgeFont)
			belief := eval[string](t, ctx, `document.querySelector('#diagram-a [data-belief="c1"]').textContent`)
			assert.Equal(t, "frozen (GC), believes it holds", belief)
			if *updateDocs {
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(labRoot(t), "docs", fmt.Sprintf("lab-lecture-%d.png", size[0])), png, 0o644))
			}
			do(t, ctx, chromedp.Click(chromedp.ID("tab-b")))
			waitFor(t, ctx, "B's tab", `document.getElementById("diagram-a").offsetParent === null && document.getElementById("diagram-b").offsetParent !== null`)
			b := measureLayout(t, ctx, "b")
			assert.Equal(t, 8, b.Lanes)
			assert.Empty(t, b.Outside, "every lane of B inside the window")
			assert.GreaterOrEqual(t, b.MinFont, 24.0)
			do(t, ctx, chromedp.Click(chromedp.ID("tab-a")))
			assert.Empty(t, eval[[]string](t, ctx, headerOutside), "the header's controls inside the window")

			// A tour's step in lecture mode: its box takes the
			// description's place, and every lane still fits.
			do(t, ctx, chromedp.Navigate(base+"/?tour=debate&step=1&lecture=1"))
			waitFor(t, ctx, "the tour's first step in lecture mode", `current !== null && document.getElementById("tour-title").textContent.includes("step 1 of 5")`)
			tour := measureLayout(t, ctx, "a")
			assert.Equal(t, 8, tour.Lanes)
			assert.Empty(t, tour.Outside, "every lane inside the window beside the tour")
			assert.GreaterOrEqual(t, tour.MinFont, 24.0)
			assert.Empty(t, eval[[]string](t, ctx, headerOutside))
		})
	}
}

// headerOutside lists the header's shown controls that leave the window.
const headerOutside = `[...document.querySelectorAll("header > *")].filter((e) => e.offsetParent !== null && e.getBoundingClientRect().right > window.innerWidth + 0.5).map((e) => e.id || e.textContent.trim())`

// No text of the diagram prints over another: on clock-jump, the
// partitions' labels ("cut c1→n4 ...") take rows of their own above the
// lanes, in both the ordinary and the lecture mode.
func TestLabLabelsDoNotOverlap(t *testing.T) {
	checkLabelsApart(t, browser(t), startLab(t, ""))
}

// checkLabelsApart checks clock-jump's labels in the lab at base.
func checkLabelsApart(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	for _, q := range []string{"", "&lecture=1"} {
		do(t, ctx, chromedp.Navigate(base+"/?s=clock-jump&seed=1"+q))
		waitFor(t, ctx, "clock-jump", badgeIs("mutex-a", "mutual exclusion: violation"))
		l := measureLayout(t, ctx, "a")
		assert.Greater(t, l.ShownTexts, 20, q)
		assert.Empty(t, l.Overlaps, "texts that overlap%s", q)
		assert.Empty(t, l.Cut, "texts the diagram's edge cuts%s", q)
		partitions := eval[int](t, ctx, `[...document.querySelectorAll("#diagram-a text.mark-label")].filter(t => t.textContent.startsWith("cut")).length`)
		assert.Positive(t, partitions, "clock-jump's partitions are labelled")
	}
}

// A permalink holding a value the loader refuses (a bare 5 for a
// duration) opens with every knob in place and the bad one marked with
// the loader's message, as when it is typed; a good value then runs.
func TestLabPermalinkWithInvalidValue(t *testing.T) {
	checkInvalidPermalink(t, browser(t), startLab(t, ""))
}

// checkInvalidPermalink opens gc-pause's permalink with for=5 in the lab
// at base.
func checkInvalidPermalink(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(base+"/?s=gc-pause&set=faults%5B0%5D.for%3D5&seed=1"))
	waitFor(t, ctx, "the loader's message at the knob", `(document.querySelector('.knob-error[data-key="faults[0].for"]') || {}).textContent?.includes('faults[0].for: a duration is a string with a unit: write "5s"')`)
	assert.Equal(t, "5", eval[string](t, ctx, `document.querySelector('input[data-key="faults[0].for"]').value`))
	assert.Equal(t, "10s", eval[string](t, ctx, `document.querySelector('input[data-key="lock.ttl"]').value`))
	assert.GreaterOrEqual(t, eval[int](t, ctx, `document.querySelectorAll("#knobs .knob").length`), 8)
	assert.Equal(t, "1", eval[string](t, ctx, `document.getElementById("seed").value`))
	// A teacher types slower than the lab answers: "5", the loader's
	// refusal of it (which redraws the knobs), then "s". The second key
	// lands in the knob still.
	answers := eval[int](t, ctx, `window.labStats.answers`)
	do(t, ctx, typeInto("faults[0].for", "5"))
	waitFor(t, ctx, "the answer to the first key", fmt.Sprintf(`window.labStats.answers > %d`, answers))
	assert.Equal(t, "faults[0].for", eval[string](t, ctx, `document.activeElement.dataset.key || ""`), "the knob keeps the focus")
	do(t, ctx, chromedp.KeyEvent("s"))
	waitFor(t, ctx, "the corrected run", badgeIs("mutex-a", "mutual exclusion: safe"))
	assert.Equal(t, "5s", eval[string](t, ctx, `document.querySelector('input[data-key="faults[0].for"]').value`))
}

// lectureLink finds the lab links of the five-minute lecture
// (docs/tutorial/lecture-lab.md), in its order, as the lab's paths.
var lectureLink = regexp.MustCompile(`\(http://127\.0\.0\.1:8080(/\?[^)\s]*)\)`)

// The five-minute lecture says what the lab shows; this opens each of
// its links in the lab and checks what the lecture says there: the
// badges, the words on c1's lane while it is frozen and after it writes,
// the knobs the lecture names, the crash's label and the B side's
// outage. A new link in the lecture fails the test until its claims are
// checked here too.
func TestLectureMatchesTheLab(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(labRoot(t), "docs", "tutorial", "lecture-lab.md"))
	require.NoError(t, err)
	doc := string(raw)
	var links []string
	for _, m := range lectureLink.FindAllStringSubmatch(doc, -1) {
		links = append(links, m[1])
	}
	base := startLab(t, "")
	ctx := browser(t)
	open := func(link, cond string) {
		t.Helper()
		do(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+link))
		waitFor(t, ctx, link, `current !== null && `+cond)
	}
	belief := func(lane string) string {
		return eval[string](t, ctx, fmt.Sprintf(`document.querySelector('#diagram-a [data-belief=%q]').textContent`, lane))
	}
	// cursorAt moves the cursor to the first trace line of actor whose
	// text holds text, as a click on it does.
	cursorAt := func(actor, text string) {
		t.Helper()
		js := fmt.Sprintf(`(() => { const i = current.a.trace.findIndex((l) => l.actor === %q && l.text.includes(%q)); if (i < 0) return false; document.querySelector('#trace li[data-i="' + i + '"]').click(); return true; })()`, actor, text)
		require.True(t, eval[bool](t, ctx, js), "%s's trace line %q", actor, text)
	}
	legend := func(key string) string {
		return eval[string](t, ctx, fmt.Sprintf(`document.querySelector('input[data-key=%q], select[data-key=%q]').closest("fieldset").querySelector("legend").textContent`, key, key))
	}
	violated := badgeIs("mutex-a", "mutual exclusion: violation") + " && " + badgeIs("resource-a", "resource: violation")
	safe := badgeIs("mutex-a", "mutual exclusion: safe") + " && " + badgeIs("resource-a", "resource: safe")
	claims := []struct {
		link  string
		check func()
	}{
		{"/?s=gc-pause&seed=1", func() {
			open("/?s=gc-pause&seed=1", violated)
			// "Press → through the trace to c2's write at 13 s: c1's lane
			// still says ..."
			cursorAt("c2", "sends its write")
			assert.Equal(t, "cursor 13.005529 s true time", eval[string](t, ctx, `document.getElementById("cursor-time").textContent`))
			require.Contains(t, doc, "*frozen (GC); still believes it holds it*")
			assert.Equal(t, "frozen (GC); still believes it holds it", belief("c1"))
			require.Contains(t, doc, "*frozen (GC), believes it holds*")
			do(t, ctx, chromedp.Click(chromedp.ID("lecture")))
			waitFor(t, ctx, "lecture mode", `document.body.classList.contains("lecture")`)
			assert.Equal(t, "frozen (GC), believes it holds", belief("c1"))
			do(t, ctx, chromedp.Click(chromedp.ID("lecture")))
			waitFor(t, ctx, "lecture mode off", `!document.body.classList.contains("lecture")`)
			// "At 16 s c1 wakes, sends its write with token 33, and only
			// then stops believing it holds the lock."
			assert.True(t, eval[bool](t, ctx, `(() => { const t = current.a.trace, w = t.findIndex((l) => l.actor === "c1" && l.text.startsWith("wakes up")), s = t.findIndex((l) => l.actor === "c1" && l.text.startsWith("sends its write") && l.text.includes("token 33")), e = t.findIndex((l) => l.actor === "c1" && l.text.startsWith("stops believing"));
				return w >= 0 && w < s && s < e && t[w].at === 16e9 && t[e].at === 16e9; })()`))
			cursorAt("resource", "accepts c1's write")
			assert.Equal(t, "does not hold the lock", belief("c1"))
		}},
		{"/?s=gc-pause&set=faults%5B0%5D.for%3D5s&seed=1", func() {
			open("/?s=gc-pause&set=faults%5B0%5D.for%3D5s&seed=1", badgeIs("mutex-a", "mutual exclusion: safe"))
			require.Contains(t, doc, "*fault 1: pause c1 / for*")
			assert.Equal(t, "fault 1: pause c1", legend("faults[0].for"))
			assert.Equal(t, "5s", eval[string](t, ctx, `document.querySelector('input[data-key="faults[0].for"]').value`))
		}},
		{"/?s=gc-pause&seed=1&whatif=fencing", func() {
			open("/?s=gc-pause&seed=1&whatif=fencing", violated+" && "+badgeIs("mutex-b", "mutual exclusion: violation")+" && "+badgeIs("resource-b", "resource: safe"))
			// "the write with token 33 is rejected"
			assert.Contains(t, eval[string](t, ctx, `current.b.run.trace.filter((l) => l.actor === "resource").map((l) => l.text).join("\n")`), "rejects c1's write: token 33 < 34")
			// "Switch to cas for antirez's answer ... does the same."
			do(t, ctx, choose("ab", "cas"))
			waitFor(t, ctx, "the cas B side", `new URLSearchParams(location.search).get("whatif") === "cas" && `+badgeIs("mutex-b", "mutual exclusion: violation")+" && "+badgeIs("resource-b", "resource: safe"))
		}},
		{"/?s=clock-jump&seed=1", func() {
			open("/?s=clock-jump&seed=1", violated)
			assert.Contains(t, eval[string](t, ctx, `current.a.trace.filter((l) => l.actor === "c2").map((l) => l.text).join("\n")`), "acquires the lock on n3,n4,n5 ")
			require.Contains(t, doc, "*fault 5: clock-step n3 / by*")
			assert.Equal(t, "fault 5: clock-step n3", legend("faults[4].by"))
		}},
		{"/?s=clock-jump&set=faults%5B4%5D.by%3D%2B1s&seed=1", func() {
			open("/?s=clock-jump&set=faults%5B4%5D.by%3D%2B1s&seed=1", safe)
		}},
		{"/?s=restart-no-persistence&seed=1&whatif=delayed-restart", func() {
			open("/?s=restart-no-persistence&seed=1&whatif=delayed-restart", violated+" && "+badgeIs("mutex-b", "mutual exclusion: safe"))
			require.Contains(t, doc, `"crashed: lost c1#1"`)
			assert.Contains(t, eval[[]string](t, ctx, `[...document.querySelectorAll("#diagram-a text.glyph-label")].map((t) => t.textContent)`), "crashed: lost c1#1")
			// "n3 stays down 12 s ... a 6 s outage."
			assert.Equal(t, []string{"faults[4].for=12s"}, eval[[]string](t, ctx, `current.b.sets`))
			outage := eval[float64](t, ctx, `current.b.run.run.longest_outage_ms`)
			assert.InDelta(t, 6000, outage, 500)
			assert.Contains(t, eval[string](t, ctx, `document.getElementById("metrics-b").textContent`), fmt.Sprintf("longest outage %.0f ms", outage))
			// "Set persistence to always on A for the other answer."
			open("/?s=restart-no-persistence&seed=1&set=nodes.persistence%3Dalways", safe)
			require.Contains(t, doc, "*inject: power loss*")
			assert.Contains(t, eval[string](t, ctx, `document.getElementById("inject-kind").textContent`), "power loss")
		}},
	}
	var want []string
	for _, c := range claims {
		want = append(want, c.link)
	}
	require.Equal(t, want, links, "the lecture's links, each with its claims checked here")
	for _, c := range claims {
		c.check()
	}
}
