package plots

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"
)

func TestTimelineGolden(t *testing.T) {
	tl := gcPauseStory()
	svg := timelineSVG(t, tl)
	checkGolden(t, "timeline_gc_pause.svg", svg)

	// Facts that hold whatever the golden says.
	requireTexts(t, svg, tl.Title, "true time (s)")
	requireTexts(t, svg, tl.Lanes...)
	requireTexts(t, svg,
		"c1 believes it holds the lock", "c2 believes it holds the lock",
		"lock key on a node (owner's colour)", "process paused (frozen)",
		"down (crashed)", "clock step or drift change",
		"network partition / heal", "write accepted by the resource",
		"write rejected by the resource", "both believe they hold the lock")
	requireTexts(t, svg, "token 33", "token 34", "GC 15s", "+2s", "crashed 6s", "partition n4,n5", "heal", "c1#1", "c2#1")
	// Each overlap has two red edges; each rejected write (and its legend
	// entry) a red cross of two strokes.
	if got := bytes.Count(svg, []byte("stroke:#D7191C;stroke-width:1.2")); got != 2*len(tl.Overlaps) {
		t.Errorf("%d red overlap edges, want %d", got, 2*len(tl.Overlaps))
	}
	if got := bytes.Count(svg, []byte("stroke:#D7191C;stroke-width:2.2")); got != 2*(1+1) {
		t.Errorf("%d red cross strokes, want 4 (one rejected write and its legend entry)", got)
	}
}

func TestTimelineDeterministic(t *testing.T) {
	draw := func() []byte {
		tl := gcPauseStory()
		return timelineSVG(t, tl)
	}
	a, b := draw(), draw()
	if !bytes.Equal(a, b) {
		t.Fatal("two drawings of the same timeline differ")
	}
}

// The legend explains what the figure shows, and nothing else.
func TestTimelineLegendOnlyWhatIsPresent(t *testing.T) {
	tl := Timeline{
		Title: "quiet",
		End:   10 * time.Second,
		Lanes: []string{"c1", "n1"},
		Spans: []Span{
			{Lane: "c1", Kind: SpanHold, Start: time.Second, End: 3 * time.Second, Label: "token 1"},
			{Lane: "n1", Kind: SpanKey, Start: time.Second, End: 4 * time.Second, Label: "c1#1"},
		},
	}
	svg := timelineSVG(t, tl)
	requireTexts(t, svg, "c1 believes it holds the lock", "lock key on a node (owner's colour)", "token 1", "c1#1")
	forbidTexts(t, svg, "process paused (frozen)", "down (crashed)", "clock step or drift change",
		"network partition / heal", "write accepted by the resource", "write rejected by the resource",
		"both believe they hold the lock")
}

// A label that does not fit its bar goes beside it on a bare lane; else
// in the gap above the bar, else below it; failing all, the bar gets a
// number and the legend lists the label under it.
func TestTimelineShortBarLabels(t *testing.T) {
	ms := time.Millisecond
	at := func(d time.Duration) time.Duration { return 30*time.Second + d }
	tl := Timeline{
		End:   100 * time.Second,
		Lanes: []string{"c1", "n1"},
		Spans: []Span{
			{Lane: "c1", Kind: SpanHold, Start: 10 * time.Second, End: 10*time.Second + 100*ms, Label: "token 7"},
			{Lane: "c1", Kind: SpanHold, Start: 50 * time.Second, End: 80 * time.Second, Label: "token 8"},
			// three short keys between two crashes of their node
			{Lane: "n1", Kind: SpanDown, Start: 20 * time.Second, End: at(0), Label: "crashed"},
			{Lane: "n1", Kind: SpanKey, Start: at(0), End: at(50 * ms), Label: "c1#9"},
			{Lane: "n1", Kind: SpanKey, Start: at(100 * ms), End: at(150 * ms), Label: "c1#10"},
			{Lane: "n1", Kind: SpanKey, Start: at(200 * ms), End: at(250 * ms), Label: "c1#11"},
			{Lane: "n1", Kind: SpanDown, Start: at(300 * ms), End: 90 * time.Second, Label: "crashed"},
		},
	}
	lt, err := layoutTimeline(tl)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(lt.numbers); got != "map[c1#11:1]" {
		t.Errorf("numbered labels %s, want map[c1#11:1]", got)
	}
	if lt.hidden != 0 || lt.zoom != 0 {
		t.Errorf("%d labels hidden, window %v; want none", lt.hidden, lt.zoom)
	}
	var dys []float64
	for _, l := range lt.labels {
		if strings.HasPrefix(l.text, "c1#") {
			dys = append(dys, l.dy)
		}
	}
	if len(dys) != 2 || dys[0] <= 0 || dys[1] >= 0 {
		t.Errorf("c1#9 and c1#10 at %v lanes from their lane's centre, want one above and one below", dys)
	}
	svg := timelineSVG(t, tl)
	for _, l := range []string{"token 7", "token 8", "c1#9", "c1#10", "c1#11"} {
		if got := bytes.Count(svg, []byte(svgText(l))); got != 1 {
			t.Errorf("%s appears %d times, want once", l, got)
		}
	}
	// the number on the bar and in the legend
	if got := bytes.Count(svg, []byte(svgText("1"))); got != 2 {
		t.Errorf("the number 1 appears %d times, want 2 (the bar and the legend)", got)
	}
}

// Beyond maxListed short labels, the figure says which window to draw
// instead, and drawn in windows of that length every label shows.
func TestTimelineTooManyShortLabels(t *testing.T) {
	tl := Timeline{End: 60 * time.Second, Lanes: []string{"n1"}}
	var labels []string
	for k := range 200 {
		start := time.Duration(k) * 300 * time.Millisecond
		label := fmt.Sprintf("c1#%d", k+1)
		labels = append(labels, label)
		tl.Spans = append(tl.Spans, Span{Lane: "n1", Kind: SpanKey, Start: start, End: start + 100*time.Millisecond, Label: label})
	}
	win, err := TimelineWindow(tl)
	if err != nil {
		t.Fatal(err)
	}
	if win <= 0 || win >= tl.End {
		t.Fatalf("window %v, want one within (0, %v)", win, tl.End)
	}
	svg := string(timelineSVG(t, tl))
	note := fmt.Sprintf("200 bar labels do not fit at this scale: draw at most %v at a time to read them on their bars (--from 0s --to %v)", win, win)
	if !strings.Contains(svg, svgText(note)) {
		t.Errorf("the figure has no note %q", note)
	}
	if _, h := TimelineSize(tl); h > 3*vg.Inch {
		t.Errorf("height %v in: the legend is not bounded", h/vg.Inch)
	}
	seen := map[string]bool{}
	for from := time.Duration(0); from < tl.End; from += win {
		sub := tl
		sub.From, sub.To = from, min(from+win, tl.End)
		if got, err := TimelineWindow(sub); err != nil || got != 0 {
			t.Fatalf("window [%v, %v] suggests %v (%v), want 0", sub.From, sub.To, got, err)
		}
		svg := string(timelineSVG(t, sub))
		for _, l := range labels {
			if strings.Contains(svg, svgText(l)) {
				seen[l] = true
			}
		}
	}
	for _, l := range labels {
		if !seen[l] {
			t.Errorf("label %s is in no window", l)
		}
	}
}

func TestRoundDown(t *testing.T) {
	for d, want := range map[time.Duration]time.Duration{
		7 * time.Second:         5 * time.Second,
		3 * time.Second:         2 * time.Second,
		1999 * time.Millisecond: time.Second,
		time.Second:             time.Second,
		0:                       time.Millisecond,
	} {
		if got := roundDown(d); got != want {
			t.Errorf("roundDown(%v) = %v, want %v", d, got, want)
		}
	}
}

func TestTimelineColours(t *testing.T) {
	tl, err := layoutTimeline(gcPauseStory())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(tl.clients, ","), "c1,c2"; got != want {
		t.Errorf("clients in colour order = %s, want %s", got, want)
	}
	if tl.color["c1"] == tl.color["c2"] {
		t.Error("c1 and c2 share a colour")
	}
	if got, want := tl.ownerColor("c2#1"), tl.color["c2"]; got != want {
		t.Errorf("key c2#1 coloured %v, want c2's %v", got, want)
	}
	if got := tl.ownerColor("zz#9"); got != unknownOwn {
		t.Errorf("key of an unknown client coloured %v, want grey %v", got, unknownOwn)
	}
	// A key owner without a lane still gets a colour of its own.
	tl2, err := layoutTimeline(Timeline{End: time.Second, Lanes: []string{"n1"}, Spans: []Span{{Lane: "n1", Kind: SpanKey, End: time.Second, Label: "c7#2"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tl2.color["c7"]; !ok {
		t.Error("the owner c7 of a key got no colour")
	}
}

func TestTimelineSize(t *testing.T) {
	small := Timeline{End: time.Second, Lanes: []string{"c1", "n1"}}
	big := small
	big.Lanes = []string{"c1", "n1", "n2"}
	w, h1 := TimelineSize(small)
	_, h2 := TimelineSize(big)
	if w != 10*vg.Inch {
		t.Errorf("width %v, want 10in", w)
	}
	if d := h2 - h1; d < 0.449*vg.Inch || d > 0.451*vg.Inch {
		t.Errorf("one more lane adds %v in of height, want 0.45", d/vg.Inch)
	}
	// the legend and the partition labels take room of their own
	_, h3 := TimelineSize(gcPauseStory())
	if min := vg.Inch + 7*0.45*vg.Inch + 3*legendRowH + 2*netRowH; h3 < min {
		t.Errorf("height of the GC story %v, want at least %v", h3, min)
	}
}

func TestTimelineErrors(t *testing.T) {
	base := func() Timeline {
		return Timeline{End: 10 * time.Second, Lanes: []string{"c1", "n1"}}
	}
	tests := []struct {
		name string
		edit func(*Timeline)
		want string
	}{
		{"zero end", func(t *Timeline) { t.End = 0 }, "timeline end 0s is not positive"},
		{"no lanes", func(t *Timeline) { t.Lanes = nil }, "timeline has no lanes"},
		{"duplicate lane", func(t *Timeline) { t.Lanes = append(t.Lanes, "c1") }, `timeline lane "c1" appears twice`},
		{"unknown span lane", func(t *Timeline) {
			t.Spans = []Span{{Lane: "c9", Kind: SpanHold, End: time.Second}}
		}, `span 0: unknown lane "c9" (lanes: c1, n1)`},
		{"invalid span kind", func(t *Timeline) {
			t.Spans = []Span{{Lane: "c1", End: time.Second}}
		}, "span 0 on c1: invalid kind 0"},
		{"span backwards", func(t *Timeline) {
			t.Spans = []Span{{Lane: "c1", Kind: SpanHold, Start: 2 * time.Second, End: time.Second}}
		}, "span 0 on c1: [2s, 1s] is not an interval within [0, 10s]"},
		{"span past the end", func(t *Timeline) {
			t.Spans = []Span{{Lane: "c1", Kind: SpanHold, End: 11 * time.Second}}
		}, "span 0 on c1: [0s, 11s] is not an interval within [0, 10s]"},
		{"unknown mark lane", func(t *Timeline) {
			t.Marks = []Mark{{Lane: "c9", Kind: MarkWrite}}
		}, `mark 0: unknown lane "c9" (lanes: c1, n1)`},
		{"invalid mark kind", func(t *Timeline) {
			t.Marks = []Mark{{Lane: "c1", Kind: 9}}
		}, "mark 0 on c1: invalid kind 9"},
		{"negative mark", func(t *Timeline) {
			t.Marks = []Mark{{Lane: "c1", Kind: MarkWrite, At: -time.Second}}
		}, "mark 0 on c1: -1s is outside [0, 10s]"},
		{"overlap backwards", func(t *Timeline) {
			t.Overlaps = []Overlap{{Start: 3 * time.Second, End: time.Second, A: "c1", B: "c2"}}
		}, "overlap 0 of c1 and c2: [3s, 1s] is not an interval within [0, 10s]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := base()
			tt.edit(&tl)
			_, err := TimelinePlot(tl)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// Network marks need no lane of their own.
func TestTimelineNetworkMarksNeedNoLane(t *testing.T) {
	tl := Timeline{End: 10 * time.Second, Lanes: []string{"c1"}, Marks: []Mark{
		{Lane: "net", Kind: MarkPartition, At: time.Second},
		{Kind: MarkHeal, At: 2 * time.Second},
	}}
	requireTexts(t, timelineSVG(t, tl), "partition", "heal", "network partition / heal")
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		15 * time.Second:                         "15s",
		1500 * time.Millisecond:                  "1.5s",
		15*time.Second + 123456*time.Microsecond: "15.12s",
		250 * time.Millisecond:                   "250ms",
		150*time.Second + 400*time.Millisecond:   "2m30s",
		500 * time.Microsecond:                   "500µs",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// Four cuts at the same instant get four rows: no label is dropped. An
// instant crash-and-restart gets a glyph, a label and a legend entry of its
// own; a promotion its triangle and label; and the legend names the
// outages the run has, not every kind there is.
func TestTimelineNeverDropsALabel(t *testing.T) {
	tl := Timeline{
		Title: "cuts", End: 30 * time.Second,
		Lanes: []string{"c1", "c2", "n1", "n2", "n3"},
		Spans: []Span{
			{Lane: "c1", Kind: SpanHold, Start: time.Second, End: 8 * time.Second},
			{Lane: "n3", Kind: SpanDown, Start: 2 * time.Second, End: 2 * time.Second, Label: "crashed"},
		},
		Marks: []Mark{
			{Lane: "net", Kind: MarkPartition, At: 0, Label: "cut c1→n4"},
			{Lane: "net", Kind: MarkPartition, At: 0, Label: "cut c1→n5"},
			{Lane: "net", Kind: MarkPartition, At: 0, Label: "cut c2→n1"},
			{Lane: "net", Kind: MarkPartition, At: 0, Label: "cut c2→n2"},
			{Lane: "n2", Kind: MarkPromotion, At: 5 * time.Second, Label: "promoted"},
		},
	}
	svg := timelineSVG(t, tl)
	requireTexts(t, svg, "cut c1→n4", "cut c1→n5", "cut c2→n1", "cut c2→n2",
		"crash + instant restart", "crash and instant restart", "promoted", "replica promoted to master")
	forbidTexts(t, svg, "down (crashed)", "leader elected")
	lt, err := layoutTimeline(tl)
	if err != nil {
		t.Fatal(err)
	}
	if got := lt.netRows(); got != 4*netRowH {
		t.Errorf("net label rows %v, want 4 rows", got)
	}
}

// --from and --to zoom: the axis shows the window, spans are cut to it and
// marks outside it are left out.
func TestTimelineWindow(t *testing.T) {
	tl := gcPauseStory()
	tl.From, tl.To = 10*time.Second, 14*time.Second
	p, err := TimelinePlot(tl)
	if err != nil {
		t.Fatal(err)
	}
	if p.X.Min != 10 || p.X.Max != 14 {
		t.Errorf("x axis [%g, %g], want [10, 14]", p.X.Min, p.X.Max)
	}
	lt, _ := layoutTimeline(tl)
	for _, s := range lt.t.Spans {
		if s.Start < tl.From || s.End > tl.To {
			t.Errorf("span %+v is not cut to the window", s)
		}
	}
	for _, m := range lt.t.Marks {
		if m.At < tl.From || m.At > tl.To {
			t.Errorf("mark %+v lies outside the window", m)
		}
	}
	tl.From, tl.To = 14*time.Second, 10*time.Second
	if _, err := TimelinePlot(tl); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("a reversed window: %v", err)
	}
}

// The report's SVG has a hover title for every span and mark, placed over
// what it names.
func TestTimelineSVGHoverTitles(t *testing.T) {
	tl := gcPauseStory()
	svg, err := TimelineSVG(tl)
	if err != nil {
		t.Fatal(err)
	}
	titles := bytes.Count(svg, []byte("<title>"))
	if want := len(tl.Spans) + len(tl.Marks) + len(tl.Overlaps); titles != want {
		t.Errorf("%d hover titles, want %d (one per span, mark and overlap)", titles, want)
	}
	for _, s := range []string{
		"<title>c1 believes it holds the lock, ",
		"<title>c1 is paused (GC), 1.000000 s to 16.000000 s</title>",
	} {
		if !bytes.Contains(svg, []byte(s)) {
			t.Errorf("no %q in the SVG", s)
		}
	}
	if !bytes.HasSuffix(bytes.TrimSpace(svg), []byte("</svg>")) {
		t.Error("the document does not end with </svg>")
	}
}

// A pause or an outage too short for its label gets it beside its band.
func TestTimelineShortPauseKeepsItsLabel(t *testing.T) {
	tl := Timeline{
		Title: "short", End: 60 * time.Second,
		Lanes: []string{"c1", "n1"},
		Spans: []Span{
			{Lane: "c1", Kind: SpanPause, Start: 10 * time.Second, End: 10*time.Second + 50*time.Millisecond, Label: "GC"},
			{Lane: "n1", Kind: SpanDown, Start: 20 * time.Second, End: 20*time.Second + 100*time.Millisecond, Label: "crashed"},
		},
	}
	requireTexts(t, timelineSVG(t, tl), "GC 50ms", "crashed 100ms")
}

// A long run's figure: 5 nodes with 200 short keys each over a minute,
// too many labels to list, so that drawing it includes looking for the
// window to suggest.
func BenchmarkTimelineDense(b *testing.B) {
	tl := Timeline{Title: "dense", End: 60 * time.Second, Lanes: []string{"n1", "n2", "n3", "n4", "n5"}}
	for _, lane := range tl.Lanes {
		for k := range 200 {
			start := time.Duration(k) * 300 * time.Millisecond
			tl.Spans = append(tl.Spans, Span{Lane: lane, Kind: SpanKey, Start: start, End: start + 100*time.Millisecond, Label: fmt.Sprintf("c%d#%d", k%3+1, k+1)})
		}
	}
	for b.Loop() {
		if _, err := TimelineSVG(tl); err != nil {
			b.Fatal(err)
		}
	}
}

// A pause cut by a zoomed window keeps its full length in its label:
// gc-pause's 15 s pause in [10 s, 15 s] is "GC 15s", not "GC 5s".
func TestTimelineWindowKeepsThePauseLength(t *testing.T) {
	tl := gcPauseStory()
	tl.From, tl.To = 10*time.Second, 15*time.Second
	svg := timelineSVG(t, tl)
	requireTexts(t, svg, "GC 15s")
	forbidTexts(t, svg, "GC 5s")
	hover, err := TimelineSVG(tl)
	if err != nil {
		t.Fatal(err)
	}
	if want := "c1 is paused (GC), 10.000000 s to 15.000000 s in this window; 15s in all"; !bytes.Contains(hover, []byte(want)) {
		t.Errorf("no hover title %q", want)
	}
}

// Long messages are arrows (a delayed write, with its hover title and
// legend entry); the milliseconds of an acquisition are not; a power loss
// has its own glyph and legend entry.
func TestTimelineArrowsAndPowerLoss(t *testing.T) {
	tl := gcPauseStory()
	tl.Lanes = append(tl.Lanes, "resource")
	tl.Messages = []Message{
		{From: "c1", To: "n1", Sent: 0, At: ms, Kind: "SET-NX"},
		{From: "c1", To: "resource", Sent: 2 * time.Second, At: 16 * time.Second, Kind: "RESOURCE-WRITE"},
	}
	tl.Spans = append(tl.Spans, Span{Lane: "n2", Kind: SpanDown, Start: 27 * time.Second, End: 27 * time.Second, Label: "power lost"})
	lt, err := layoutTimeline(tl)
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.arrows) != 1 || lt.arrows[0].Kind != "RESOURCE-WRITE" {
		t.Errorf("arrows %+v, want the delayed write alone", lt.arrows)
	}
	svg := timelineSVG(t, tl)
	requireTexts(t, svg, "delayed write to the resource", "power loss", "power loss + instant restart")
	forbidTexts(t, svg, "crash and instant restart")
	forbidTexts(t, svg, "delayed message")
	hover, err := TimelineSVG(tl)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<title>RESOURCE-WRITE c1 → resource, sent 2.000000 s, received 16.000000 s (14s in transit)</title>",
		"<title>n2 loses power and restarts at once, at 27.000000 s</title>",
	} {
		if !bytes.Contains(hover, []byte(want)) {
			t.Errorf("no %q in the SVG", want)
		}
	}
	// Zoomed into [15 s, 20 s], the write's end is in view and its start
	// cut: still an arrow.
	tl.From, tl.To = 15*time.Second, 20*time.Second
	if lt, _ := layoutTimeline(tl); len(lt.arrows) != 1 {
		t.Errorf("zoomed: %d arrows, want the delayed write", len(lt.arrows))
	}
}
