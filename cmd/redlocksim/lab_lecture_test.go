package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	ShownTexts int      `json:"shown_texts"` // the non-empty texts compared
}

// measureLayout measures the diagram of side ("a" or "b") as the page
// shows it: each lane's box against the viewport, the computed font size
// of every text of the diagram, and every pair of texts whose boxes
// overlap.
func measureLayout(tb testing.TB, ctx context.Context, side string) layout {
	tb.Helper()
	js := fmt.Sprintf(`(() => {
  const box = document.getElementById("diagram-%s");
  const vw = window.innerWidth, vh = window.innerHeight;
  const out = { lanes: 0, outside: [], min_font: 1e9, badge_font: parseFloat(getComputedStyle(document.getElementById("mutex-%s")).fontSize), scroll: window.scrollY, overlaps: [], shown_texts: 0 };
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
	base := startLab(t, "")
	ctx := browser(t)
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
	base := startLab(t, "")
	ctx := browser(t)
	for _, q := range []string{"", "&lecture=1"} {
		do(t, ctx, chromedp.Navigate(base+"/?s=clock-jump&seed=1"+q))
		waitFor(t, ctx, "clock-jump", badgeIs("mutex-a", "mutual exclusion: violation"))
		l := measureLayout(t, ctx, "a")
		assert.Greater(t, l.ShownTexts, 20, q)
		assert.Empty(t, l.Overlaps, "texts that overlap%s", q)
		partitions := eval[int](t, ctx, `[...document.querySelectorAll("#diagram-a text.mark-label")].filter(t => t.textContent.startsWith("cut")).length`)
		assert.Positive(t, partitions, "clock-jump's partitions are labelled")
	}
}

// A permalink holding a value the loader refuses (a bare 5 for a
// duration) opens with every knob in place and the bad one marked with
// the loader's message, as when it is typed; a good value then runs.
func TestLabPermalinkWithInvalidValue(t *testing.T) {
	base := startLab(t, "")
	ctx := browser(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=gc-pause&set=faults%5B0%5D.for%3D5&seed=1"))
	waitFor(t, ctx, "the loader's message at the knob", `(document.querySelector('.knob-error[data-key="faults[0].for"]') || {}).textContent?.includes('faults[0].for: a duration is a string with a unit: write "5s"')`)
	assert.Equal(t, "5", eval[string](t, ctx, `document.querySelector('input[data-key="faults[0].for"]').value`))
	assert.Equal(t, "10s", eval[string](t, ctx, `document.querySelector('input[data-key="lock.ttl"]').value`))
	assert.GreaterOrEqual(t, eval[int](t, ctx, `document.querySelectorAll("#knobs .knob").length`), 8)
	assert.Equal(t, "1", eval[string](t, ctx, `document.getElementById("seed").value`))
	do(t, ctx, typeInto("faults[0].for", "5s"))
	waitFor(t, ctx, "the corrected run", badgeIs("mutex-a", "mutual exclusion: safe"))
}
