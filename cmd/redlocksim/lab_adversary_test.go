package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clickAt clicks the page at the point the JavaScript expression gives as
// [x, y] in client coordinates.
func clickAt(tb testing.TB, ctx context.Context, where string) {
	tb.Helper()
	xy := eval[[]float64](tb, ctx, where)
	require.Len(tb, xy, 2, where)
	do(tb, ctx, chromedp.MouseClickXY(xy[0], xy[1]))
}

// laneAt is the client point of lane name at true time t (ns) in A's
// diagram, in the lane's lower part (below the arrows' line).
func laneAt(name string, t float64) string {
	return fmt.Sprintf(`(() => { const b = document.getElementById("diagram-a"), g = b._g, r = b.querySelector("svg").getBoundingClientRect();
		return [r.left + g.x(%v), r.top + g.laneY[%q] + g.H * 0.8]; })()`, t, name)
}

// arrowAt is the client point of the middle of message i's arrow.
func arrowAt(i int) string {
	return fmt.Sprintf(`(() => { const r = document.querySelector('.arrow-hit[data-msg="%d"]').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, i)
}

// linkSets are the permalink's overrides, decoded, one a line.
const linkSets = `new URL(document.getElementById("permalink").href).searchParams.getAll("set").join("\n")`

// msgIndex is the JavaScript index of the message from→to sent at sent
// in the page's run, -1 if it was not delivered.
func msgIndex(from, to string, sent int64) string {
	return fmt.Sprintf(`current.a.messages.findIndex((m) => m.from === %q && m.to === %q && m.sent === %d)`, from, to, sent)
}

// pickMessage opens the menu of message from→to sent at sent by a click
// on its arrow, and picks it among the arrows the click touched.
func pickMessage(tb testing.TB, ctx context.Context, from, to string, sent int64) {
	tb.Helper()
	clickAt(tb, ctx, arrowAt(eval[int](tb, ctx, msgIndex(from, to, sent))))
	waitFor(tb, ctx, "the message's menu", `!document.getElementById("msg-menu").hidden`)
	i := eval[int](tb, ctx, fmt.Sprintf(`menuMsgs.findIndex((m) => m.from === %q && m.to === %q && m.sent === %d)`, from, to, sent))
	require.GreaterOrEqual(tb, i, 0, "the click touched the arrow")
	do(tb, ctx, choose("msg-pick", fmt.Sprint(i)))
}

// The student as the adversary, in the browser: a message arrow clicked
// and held arrives when the hold says, delivered at the cursor arrives
// there, dropped does not arrive; each is a fault in the permalink. A
// process lane clicked in freeze mode freezes, and clicked again wakes.
func TestLabAdversaryInChromium(t *testing.T) {
	playAdversary(t, browser(t), startLab(t, ""))
}

// playAdversary holds, delivers and drops a message of gc-pause, and
// freezes and wakes c2, in the lab at base.
func playAdversary(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(base+"/?s=gc-pause&seed=1"))
	waitFor(t, ctx, "gc-pause", badgeIs("mutex-a", "mutual exclusion: violation"))

	// c2's first request to n3.
	type msg struct {
		From, To string
		Sent, At int64
		Kind     string
	}
	m := eval[msg](t, ctx, `current.a.messages.find((m) => m.from === "c2" && m.to === "n3" && !m.reply)`)
	require.NotEmpty(t, m.Kind)

	// Hold it 10 s.
	pickMessage(t, ctx, m.From, m.To, m.Sent)
	do(t, ctx, chromedp.SetValue(chromedp.ID("hold-for"), "10s"), chromedp.Click(chromedp.ID("msg-hold")))
	waitFor(t, ctx, "the held message arrives 10 s after its send", fmt.Sprintf(`current.a.messages[%s]?.at === %d`, msgIndex(m.From, m.To, m.Sent), m.Sent+10e9))
	link := eval[string](t, ctx, linkSets)
	assert.Contains(t, link, fmt.Sprintf(`{at = "%v", for = "10s", kind = "hold-message", target = "c2", to = "n3"}`, time.Duration(m.Sent)))
	assert.Contains(t, eval[string](t, ctx, `document.getElementById("trace").textContent`), "holds the message c2→n3")

	// A hold the loader refuses: its message, and the run stays.
	setsBefore := eval[string](t, ctx, `state.sets.join("\n")`)
	pickMessage(t, ctx, m.From, m.To, m.Sent)
	do(t, ctx, chromedp.SetValue(chromedp.ID("hold-for"), "5"), chromedp.Click(chromedp.ID("msg-hold")))
	waitFor(t, ctx, "the loader's message", `document.getElementById("error").textContent.includes("faults[1].for: the string \"5\" is not a duration")`)
	assert.Equal(t, setsBefore, eval[string](t, ctx, `state.sets.join("\n")`))
	// The run stays as it was: the message still arrives 10 s after its
	// send, and the permalink still holds the 10 s hold.
	assert.Equal(t, m.Sent+10e9, eval[int64](t, ctx, fmt.Sprintf(`current.a.messages[%s].at`, msgIndex(m.From, m.To, m.Sent))))
	assert.Equal(t, link, eval[string](t, ctx, linkSets))

	// Deliver it at the cursor: 2 s after its send.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`moveCursor(%d)`, m.Sent+2e9)))
	pickMessage(t, ctx, m.From, m.To, m.Sent)
	waitFor(t, ctx, "deliver enabled", `!document.getElementById("msg-deliver").disabled`)
	do(t, ctx, chromedp.Click(chromedp.ID("msg-deliver")))
	waitFor(t, ctx, "the message arrives at the cursor", fmt.Sprintf(`current.a.messages[%s]?.at === %d`, msgIndex(m.From, m.To, m.Sent), m.Sent+2e9))
	assert.Equal(t, 1, eval[int](t, ctx, `current.a.faults - 1`), "one fault of the scenario's, and the hold replaced, not added")

	// Drop it.
	pickMessage(t, ctx, m.From, m.To, m.Sent)
	do(t, ctx, chromedp.Click(chromedp.ID("msg-drop")))
	waitFor(t, ctx, "the dropped message does not arrive", msgIndex(m.From, m.To, m.Sent)+` === -1 && `+linkSets+`.includes('kind = "drop-message"')`)
	assert.Contains(t, eval[string](t, ctx, `document.getElementById("trace").textContent`), "drops the message c2→n3")
	// The permalink replays the drop.
	link = eval[string](t, ctx, `document.getElementById("permalink").href`)
	do(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	waitFor(t, ctx, "the permalink's dropped message", `typeof current === "object" && current !== null && `+msgIndex(m.From, m.To, m.Sent)+` === -1`)

	// Freeze c2 at 20 s, wake it at 25 s.
	do(t, ctx, chromedp.Navigate(base+"/?s=gc-pause&seed=1"))
	waitFor(t, ctx, "gc-pause", badgeIs("mutex-a", "mutual exclusion: violation"))
	do(t, ctx, choose("inject-kind", "freeze"))
	clickAt(t, ctx, laneAt("c2", 20e9))
	waitFor(t, ctx, "c2 frozen from 20 s to the end", `current.a.spans.some((s) => s.lane === "c2" && s.kind === "pause" && Math.abs(s.start - 20e9) < 0.2e9 && s.end >= current.a.end)`)
	clickAt(t, ctx, laneAt("c2", 25e9))
	waitFor(t, ctx, "c2 woken at 25 s", `current.a.spans.some((s) => s.lane === "c2" && s.kind === "pause" && Math.abs(s.start - 20e9) < 0.2e9 && Math.abs(s.end - 25e9) < 0.2e9)`)
	pause := eval[[]float64](t, ctx, `(() => { const s = current.a.spans.find((s) => s.lane === "c2" && s.kind === "pause"); return [s.start, s.end]; })()`)
	assert.Contains(t, eval[string](t, ctx, linkSets), fmt.Sprintf(`for = "%v", kind = "pause", target = "c2"`, time.Duration(pause[1]-pause[0])), "the wake set the pause's length")
}

// Challenge mode on gc-pause: from the scenario without its pause, mutual
// exclusion holds; freezing c1 while it holds the lock and waking it
// after c2 has taken it, as the explorer's minimal counterexample
// (pause c1 for 9.108 s at 1.895 s) does, wins in one action, at par.
func TestLabChallengeInChromium(t *testing.T) {
	base := startLab(t, "")
	ctx := browser(t)
	winChallenge(t, ctx, base)
}

// winChallenge wins gc-pause's challenge in the lab at base as the
// explorer's minimal counterexample does: one freeze of c1.
func winChallenge(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(base+"/?s=gc-pause&seed=1"))
	waitFor(t, ctx, "gc-pause", badgeIs("mutex-a", "mutual exclusion: violation"))
	do(t, ctx, chromedp.Click(chromedp.ID("start-challenge")))
	waitFor(t, ctx, "the challenge's start: no faults, safe", badgeIs("mutex-a", "mutual exclusion: safe")+` && current.a.faults === 0 && !document.getElementById("challenge").hidden`)
	assert.Equal(t, "actions: 0 of at most 3 · par 1", eval[string](t, ctx, `document.getElementById("challenge-count").textContent`))
	assert.True(t, eval[bool](t, ctx, `document.getElementById("challenge-banner").hidden`))
	minimal := eval[string](t, ctx, `challengeOf().minimal`)
	require.True(t, strings.HasPrefix(minimal, "pause c1 "), minimal)
	// c1 holds the lock from its start for its 2 s of work; freeze it at
	// 1 s and wake it at 12 s, after c2 (starting at 11 s) has the lock.
	hold := eval[[]float64](t, ctx, `(() => { const s = current.a.spans.find((s) => s.lane === "c1" && s.kind === "hold"); return [s.start, s.end]; })()`)
	require.Less(t, hold[0], 1e9)
	require.Greater(t, hold[1], 1e9)
	clickAt(t, ctx, laneAt("c1", 1e9))
	waitFor(t, ctx, "c1 frozen", `current.a.spans.some((s) => s.lane === "c1" && s.kind === "pause")`)
	clickAt(t, ctx, laneAt("c1", 12e9))
	waitFor(t, ctx, "the challenge won", `!document.getElementById("challenge-banner").hidden && `+badgeIs("mutex-a", "mutual exclusion: violation"))
	banner := eval[string](t, ctx, `document.getElementById("challenge-banner").textContent`)
	assert.Contains(t, banner, "Mutual exclusion broken with 1 action, at par!")
	assert.Contains(t, banner, minimal)
	assert.Equal(t, "actions: 1 of at most 3 · par 1", eval[string](t, ctx, `document.getElementById("challenge-count").textContent`))
	// The student's freeze is the minimal counterexample's pause, or
	// longer: c1 frozen from before its start to after its end.
	mm := regexp.MustCompile(`^pause c1 at (\S+) for (\S+)$`).FindStringSubmatch(minimal)
	require.NotNil(t, mm, minimal)
	at, err := time.ParseDuration(mm[1])
	require.NoError(t, err)
	length, err := time.ParseDuration(mm[2])
	require.NoError(t, err)
	frozen := eval[[]float64](t, ctx, `(() => { const s = current.a.spans.find((s) => s.lane === "c1" && s.kind === "pause"); return [s.start, s.end]; })()`)
	assert.LessOrEqual(t, frozen[0], float64(at))
	assert.GreaterOrEqual(t, frozen[1], float64(at+length))
	assert.Contains(t, eval[string](t, ctx, `location.search`), "challenge=1")
}

// Playback moves the cursor; messages in flight at the cursor are dots
// on their arrows.
func TestLabPlaybackInChromium(t *testing.T) {
	base := startLab(t, "")
	ctx := browser(t)
	do(t, ctx, chromedp.Navigate(base+"/?s=gc-pause&seed=1"))
	waitFor(t, ctx, "gc-pause", badgeIs("mutex-a", "mutual exclusion: violation"))
	do(t, ctx, choose("speed", "5"), chromedp.Click(chromedp.ID("play")))
	waitFor(t, ctx, "the cursor moves", `cursor > 1e9`)
	do(t, ctx, chromedp.Click(chromedp.ID("play")))
	stopped := eval[float64](t, ctx, `cursor`)
	time.Sleep(300 * time.Millisecond)
	assert.Equal(t, stopped, eval[float64](t, ctx, `cursor`), "paused")
	// The cursor in the middle of a message's flight: its dot sits on its
	// arrow, halfway.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`(() => { const m = current.a.messages.find((m) => m.at - m.sent > 1e6); moveCursor((m.sent + m.at) / 2); })()`))
	n := eval[int](t, ctx, `current.a.messages.filter((m) => m.sent <= cursor && cursor < m.at).length`)
	require.Positive(t, n)
	assert.Equal(t, n, eval[int](t, ctx, `document.querySelectorAll("#diagram-a .dots circle").length`))
	off := eval[float64](t, ctx, `(() => { const g = document.getElementById("diagram-a")._g, m = current.a.messages.find((m) => m.sent <= cursor && cursor < m.at && m.at - m.sent > 1e6);
		const i = current.a.messages.filter((x) => x.sent <= cursor && cursor < x.at).indexOf(m);
		const c = document.querySelectorAll("#diagram-a .dots circle")[i];
		const x = g.x(m.sent) + (cursor - m.sent) / (m.at - m.sent) * (g.x(m.at) - g.x(m.sent));
		return Math.abs(+c.getAttribute("cx") - x); })()`)
	assert.Less(t, off, 0.5)
}

// walkDebateTour takes the library's debate tour in the open lab, start
// to finish, revealing each question's answer.
func walkDebateTour(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx, choose("tour-picker", "debate"))
	steps := []struct {
		scenario, badges string
		cursor           string
		question         bool
	}{
		{"gc-pause", badgeIs("mutex-a", "mutual exclusion: violation"), "cursor 13.000000 s true time", true},
		{"gc-pause", badgeIs("mutex-a", "mutual exclusion: safe"), "cursor 6.000000 s true time", false},
		{"gc-pause", badgeIs("resource-b", "resource: safe") + " && " + badgeIs("mutex-b", "mutual exclusion: violation"), "cursor 16.000000 s true time", true},
		{"clock-jump", badgeIs("mutex-a", "mutual exclusion: violation"), "cursor 2.000000 s true time", true},
		{"restart-no-persistence", badgeIs("mutex-a", "mutual exclusion: violation") + " && " + badgeIs("mutex-b", "mutual exclusion: safe"), "cursor 3.000000 s true time", false},
	}
	for i, st := range steps {
		waitFor(t, ctx, fmt.Sprintf("step %d", i+1), fmt.Sprintf(`current !== null && current.a.scenario === %q && %s && document.getElementById("cursor-time").textContent === %q && document.getElementById("tour-title").textContent.includes("step %d of 5")`, st.scenario, st.badges, st.cursor, i+1))
		assert.Contains(t, eval[string](t, ctx, `location.search`), fmt.Sprintf("tour=debate&step=%d", i+1))
		visible := func(id string) bool {
			return eval[bool](t, ctx, fmt.Sprintf(`(() => { const e = document.getElementById(%q); return !e.hidden && e.offsetParent !== null && e.getBoundingClientRect().height > 0; })()`, id))
		}
		if st.question {
			assert.True(t, visible("tour-question-text"), "step %d asks", i+1)
			assert.False(t, visible("tour-answer"), "step %d: the answer is hidden until the click", i+1)
			do(t, ctx, chromedp.Click(chromedp.ID("tour-reveal")))
			assert.True(t, visible("tour-answer"), "step %d: the answer after the click", i+1)
			assert.NotEmpty(t, eval[string](t, ctx, `document.getElementById("tour-answer").textContent`))
		} else {
			assert.False(t, visible("tour-question"))
		}
		if i < len(steps)-1 {
			do(t, ctx, chromedp.Click(chromedp.ID("tour-next")))
		}
	}
	assert.True(t, eval[bool](t, ctx, `document.getElementById("tour-next").disabled`), "the last step")
}

// The library's debate tour, start to finish: each step opens its
// scenario with its overrides at its cursor; a question's answer is
// hidden until its button is clicked. A teacher's tour in --dir is
// listed too, and a malformed one with its file, line and key.
func TestLabTourInChromium(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.tour.toml"), []byte("title = \"My tour\"\n\n[[steps]]\nscenario = \"clock-jump\"\ncursor = \"2s\"\ntext = \"look\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.tour.toml"), []byte("title = \"B\"\n\n[[steps]]\nscenario = \"gc-paws\"\ncursor = \"2s\"\ntext = \"look\"\n"), 0o644))
	base := startLab(t, dir)
	ctx := browser(t)
	do(t, ctx, chromedp.Navigate(base+"/"))
	waitFor(t, ctx, "the lab", `current !== null`)
	assert.Contains(t, eval[string](t, ctx, `document.getElementById("tour-picker").textContent`), "My tour (your file)")
	assert.Contains(t, eval[string](t, ctx, `document.getElementById("broken").textContent`), filepath.Join(dir, "broken.tour.toml")+`:4: steps[0].scenario: no scenario "gc-paws" (valid: `)

	walkDebateTour(t, ctx)

	// The teacher's tour.
	do(t, ctx, choose("tour-picker", "file:mine.tour.toml"))
	waitFor(t, ctx, "the teacher's tour", `current !== null && current.a.scenario === "clock-jump" && document.getElementById("tour-title").textContent === "My tour: step 1 of 1"`)
}
