package plots

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// SpanKind is what a timeline span shows. The zero value is invalid.
type SpanKind uint8

// The kinds of span.
const (
	_         SpanKind = iota
	SpanHold           // a client believes it holds the lock
	SpanKey            // a node holds the lock key; the label is the key's value, "c1#1"
	SpanPause          // a process is frozen; the label says why ("GC")
	SpanDown           // a node is crashed, or the store has no leader
)

// MarkKind is what a timeline instant shows. The zero value is invalid.
type MarkKind uint8

// The kinds of mark.
const (
	_             MarkKind = iota
	MarkClock              // a process's clock steps, slews or changes rate; the label says how ("+9s")
	MarkPartition          // a network partition or cut begins (drawn across all lanes)
	MarkHeal               // the network heals (drawn across all lanes)
	MarkWrite              // the resource accepted a write from the lane's client
	MarkReject             // the resource rejected a write from the lane's client
	MarkPromotion          // the lane's node was promoted to master (failover)
	MarkElection           // the lane's store elected a leader again
	maxMarkKind
)

// Span is an interval of true time on one lane.
type Span struct {
	Lane       string
	Kind       SpanKind
	Start, End time.Duration
	Label      string

	// length is the span's length before a window cut it (see window);
	// 0 when uncut.
	length time.Duration
}

// Length is how long the span lasts, whole: a pause cut by a zoomed
// window is labelled with its full length, not the part in view.
func (s Span) Length() time.Duration {
	if s.length != 0 {
		return s.length
	}
	return s.End - s.Start
}

// Mark is an instant of true time on one lane. Partition and heal marks
// are drawn across every lane; their Lane may be empty or any name.
type Mark struct {
	Lane  string
	Kind  MarkKind
	At    time.Duration
	Label string
}

// Overlap is a mutual-exclusion violation: from Start to End both client A
// and client B believed they held the lock.
type Overlap struct {
	Start, End time.Duration
	A, B       string
}

// Message is a delivered message, from its sender's lane at Sent to its
// receiver's at At.
type Message struct {
	From, To string
	Sent, At time.Duration
	Kind     string // SET-NX, REPLY, RESOURCE-WRITE, ...
}

// LongMessage is the share of the drawn window a message must be in
// transit to get an arrow: the figure shows the delayed and held messages
// (a write delayed by seconds, a reply held by a partition), which change
// the story; the millisecond round trips of every acquisition would only
// hatch the lanes (the lab draws them all).
const LongMessage = 0.01

// Timeline is the data of a space-time diagram of one run. Lanes are drawn
// top to bottom in the order given: clients, then nodes, then anything
// else (resource, store). Every span and non-network mark names one of
// them. Times are true times in [0, End].
type Timeline struct {
	Title string
	End   time.Duration
	// From and To, when To is positive, zoom into [From, To]: spans are
	// cut to the window and marks outside it left out. Times are still
	// validated against [0, End].
	From, To time.Duration
	Lanes    []string
	Spans    []Span
	Marks    []Mark
	Overlaps []Overlap
	// Messages are the run's delivered messages; those in transit at least
	// LongMessage of the window, between lanes the figure draws, are
	// arrows.
	Messages []Message
}

// Timeline geometry, in lanes (a lane is one unit of the y axis).
const (
	bandHalf = 0.46 // pause and down bands
	holdHalf = 0.26 // a client's hold
	keyHalf  = 0.20 // a node's key
)

// Timeline colours that do not belong to a client.
var (
	zebraGrey  = color.Gray{Y: 244}
	gridGrey   = color.Gray{Y: 215}
	pauseGrey  = color.Gray{Y: 214}
	hatchGrey  = color.Gray{Y: 110}
	downDark   = color.Gray{Y: 55}
	netDark    = color.Gray{Y: 60}
	clockColor = rgb(0x5E3C99)
	promoColor = rgb(0x009E73)
	unknownOwn = color.Gray{Y: 150}
	labelBox   = withAlpha(white, 225)
)

// timelineWidth is the width TimelinePlot lays its legend out for.
const timelineWidth = 10 * vg.Inch

// TimelineSize returns the size TimelinePlot is designed for: 10 inches
// wide, and tall enough for the title, the legend, the time axis and
// 0.45 inch per lane.
func TimelineSize(t Timeline) (width, height vg.Length) {
	tl, err := layoutTimeline(t)
	extra := vg.Length(0)
	if err == nil {
		extra = tl.legend.height() // includes the network labels' rows
	}
	return timelineWidth, vg.Inch + extra + vg.Length(len(t.Lanes))*0.45*vg.Inch
}

// TimelinePlot draws a space-time diagram: one horizontal lane per client
// and per node, true time in seconds across. A client's hold is a thick
// bar in its colour, labelled with the label (its fencing token); a
// node's lock key is a thinner bar in the colour of the client whose value
// it holds (the client is the part of the label before '#'), labelled with
// the value. A bar too short for its label has it beside the bar where the
// lane is bare, else a number whose label the legend lists; when those are
// more than the legend can list readably (maxListed), the legend says
// instead which window (From, To) to draw, as TimelineWindow returns.
// Pauses are grey hatched bands labelled with the label and the length
// ("GC 15s"), crashes dark bands. Clock changes are diamonds labelled with
// the mark's label, partitions and heals dashed lines across all lanes,
// accepted writes black dots and rejected writes red crosses on the
// writer's lane. Each overlap is a translucent red band across the client
// lanes. A legend strip above the lanes explains what is present.
//
// It returns an error if a span or mark names an unknown lane, if a time
// lies outside [0, End], if a span ends before it starts, or if a kind is
// invalid. Size the figure with TimelineSize.
func TimelinePlot(t Timeline) (*plot.Plot, error) {
	tl, err := layoutTimeline(t)
	if err != nil {
		return nil, err
	}
	p := tl.axes()
	p.Add(tl, tl.legend)
	return p, nil
}

// TimelineWindow is the window the figure of t suggests drawing at a time
// (with From and To) when its bars carry more labels too long for them
// than its legend lists, or 0 when the figure shows every label: on its
// bar, beside it, or numbered and listed in the legend. Drawn in windows
// of that length from t's start, each figure shows every label of its
// window.
func TimelineWindow(t Timeline) (time.Duration, error) {
	tl, err := layoutTimeline(t)
	if err != nil {
		return 0, err
	}
	return tl.zoom, nil
}

// axes is the figure without its content: title, time axis and lanes.
func (tl *timeline) axes() *plot.Plot {
	p := newPlot(tl.t.Title)
	p.X.Label.Text = "true time (s)"
	p.X.Min, p.X.Max = tl.from.Seconds(), tl.to.Seconds()
	p.X.Tick.Marker = linearTicks(15)
	p.X.Padding = 0
	p.Y.Min, p.Y.Max = -0.5, float64(tl.n)-0.5
	p.Y.Padding = 0
	p.Y.Tick.Label.Font.Size = 11
	ticks := make(plot.ConstantTicks, tl.n)
	for i, name := range tl.t.Lanes {
		ticks[i] = plot.Tick{Value: tl.y(i), Label: name}
	}
	p.Y.Tick.Marker = ticks
	return p
}

// dataWidth is the width of the data area of a figure timelineWidth wide:
// the labels are laid out for it before the figure is drawn, because the
// legend that lists the short bars' labels takes height of its own. The
// content's glyph boxes have no width, so the axes alone decide it.
func (tl *timeline) dataWidth() vg.Length {
	c := draw.Canvas{Canvas: new(recorder.Canvas), Rectangle: vg.Rectangle{Max: vg.Point{X: timelineWidth, Y: 10 * vg.Inch}}}
	da := tl.axes().DataCanvas(c)
	return da.Max.X - da.Min.X
}

// labelShortBars lays out the labels and lists those of the bars too
// short for them, numbered, in the legend; or, when they are more than
// maxListed, says in the legend which window to draw to read them (with
// noZoom, only counts them: the window is being looked for).
func (tl *timeline) labelShortBars(noZoom bool) {
	tl.width = tl.dataWidth()
	_, short := tl.placeLabels(tl.width, nil)
	tl.numbers = map[string]int{}
	var listed []string
	for _, s := range short {
		if !slices.Contains(listed, s.Label) {
			listed = append(listed, s.Label)
		}
	}
	if len(listed) > maxListed {
		tl.hidden = len(listed)
		// without the labels in the gaps, which a dense figure cannot
		// take: count again
		_, short = tl.placeLabels(tl.width, nil)
		listed = listed[:0]
		for _, s := range short {
			if !slices.Contains(listed, s.Label) {
				listed = append(listed, s.Label)
			}
		}
		tl.hidden = len(listed)
		if !noZoom {
			tl.zoom = tl.window()
			tl.legend.notes = append(tl.legend.notes, fmt.Sprintf(
				"%d bar labels do not fit at this scale: draw at most %v at a time to read them on their bars (--from %v --to %v)",
				tl.hidden, tl.zoom, tl.from, tl.from+tl.zoom))
		}
	} else {
		for k, label := range listed {
			num := strconv.Itoa(k + 1)
			tl.numbers[label] = k + 1
			tl.legend.add(label, thumbFunc(func(c *draw.Canvas) { badge(c, num) }))
		}
	}
	tl.labels, _ = tl.placeLabels(tl.width, tl.numbers)
}

// window is the longest round length of window (1, 2 or 5 times a power
// of ten) such that, cut into windows of it from the start, the figure
// lists every bar label that does not fit on its bar.
func (tl *timeline) window() time.Duration {
	full := tl.to - tl.from
	w := roundDown(full * maxListed / time.Duration(tl.hidden+1))
	for ; w > time.Millisecond; w = roundDown(w - 1) {
		ok := true
		for from := tl.from; from < tl.to && ok; from += w {
			t := tl.t
			t.From, t.To = from, min(from+w, tl.to)
			sub, err := layout(t, true)
			ok = err == nil && sub.hidden == 0
		}
		if ok {
			return w
		}
	}
	return w
}

// roundDown is the largest 1, 2 or 5 times a power of ten (in
// nanoseconds) not above d, and at least a millisecond.
func roundDown(d time.Duration) time.Duration {
	if d <= time.Millisecond {
		return time.Millisecond
	}
	p := time.Duration(1)
	for p*10 <= d {
		p *= 10
	}
	for _, m := range []time.Duration{5, 2} {
		if m*p <= d {
			return m * p
		}
	}
	return p
}

// timeline is a validated Timeline with its layout decided: lane
// positions, client colours, the legend and the rows of the network
// labels. It draws itself.
type timeline struct {
	t        Timeline // cut to the window
	from, to time.Duration
	netPlace []netLabel // one per net mark
	n        int
	lane     map[string]int // lane name → index from the top
	clients  []string       // in colour order
	color    map[string]color.Color
	cLanes   []int // lanes of clients (holders and overlap parties)
	legend   *legendStrip
	net      []Mark    // partition and heal marks
	arrows   []Message // long messages, cut to the window
	label    text.Style
	width    vg.Length      // of the data area the labels are laid out for
	labels   []placedLabel  // laid out for width
	numbers  map[string]int // short bar's label → its number in the legend
	hidden   int            // short bars' labels too many to list
	zoom     time.Duration  // the window the legend suggests when hidden
}

func layoutTimeline(t Timeline) (*timeline, error) { return layout(t, false) }

func layout(t Timeline, noZoom bool) (*timeline, error) {
	if t.End <= 0 {
		return nil, fmt.Errorf("timeline end %v is not positive", t.End)
	}
	if len(t.Lanes) == 0 {
		return nil, errors.New("timeline has no lanes")
	}
	tl := &timeline{
		t:     t,
		n:     len(t.Lanes),
		lane:  make(map[string]int, len(t.Lanes)),
		color: make(map[string]color.Color),
		label: textStyle(9, black),
	}
	for i, name := range t.Lanes {
		if _, dup := tl.lane[name]; dup {
			return nil, fmt.Errorf("timeline lane %q appears twice", name)
		}
		tl.lane[name] = i
	}
	if err := tl.validate(); err != nil {
		return nil, err
	}
	for _, m := range t.Marks {
		if m.Kind == MarkPartition || m.Kind == MarkHeal {
			tl.net = append(tl.net, m)
		}
	}
	tl.from, tl.to = 0, t.End
	if t.To > 0 {
		tl.from, tl.to = t.From, t.To
		t = window(t, t.From, t.To)
		tl.t = t
		tl.net = slices.DeleteFunc(tl.net, func(m Mark) bool { return m.At < tl.from || m.At > tl.to })
	}

	tl.colorClients()
	tl.arrows = longMessages(t.Messages, tl.lane, tl.from, tl.to)
	tl.legend = tl.makeLegend()
	tl.placeNetLabels()
	tl.legend.below = tl.netRows()
	tl.labelShortBars(noZoom)
	return tl, nil
}

// validate refuses a timeline whose spans, marks, window or overlaps do
// not fit its lanes and its length, naming the first that does not.
func (tl *timeline) validate() error {
	t := tl.t
	inRange := func(d time.Duration) bool { return d >= 0 && d <= t.End }
	for i, s := range t.Spans {
		if _, ok := tl.lane[s.Lane]; !ok {
			return fmt.Errorf("span %d: unknown lane %q (lanes: %s)", i, s.Lane, strings.Join(t.Lanes, ", "))
		}
		if s.Kind < SpanHold || s.Kind > SpanDown {
			return fmt.Errorf("span %d on %s: invalid kind %d", i, s.Lane, s.Kind)
		}
		if !inRange(s.Start) || !inRange(s.End) || s.End < s.Start {
			return fmt.Errorf("span %d on %s: [%v, %v] is not an interval within [0, %v]", i, s.Lane, s.Start, s.End, t.End)
		}
	}
	if t.To > 0 && (t.From < 0 || t.To > t.End || t.From >= t.To) {
		return fmt.Errorf("timeline window [%v, %v] is not within [0, %v]", t.From, t.To, t.End)
	}
	for i, m := range t.Marks {
		if m.Kind < MarkClock || m.Kind >= maxMarkKind {
			return fmt.Errorf("mark %d on %s: invalid kind %d", i, m.Lane, m.Kind)
		}
		if !inRange(m.At) {
			return fmt.Errorf("mark %d on %s: %v is outside [0, %v]", i, m.Lane, m.At, t.End)
		}
		if m.Kind == MarkPartition || m.Kind == MarkHeal {
			continue
		}
		if _, ok := tl.lane[m.Lane]; !ok {
			return fmt.Errorf("mark %d: unknown lane %q (lanes: %s)", i, m.Lane, strings.Join(t.Lanes, ", "))
		}
	}
	for i, o := range t.Overlaps {
		if !inRange(o.Start) || !inRange(o.End) || o.End < o.Start {
			return fmt.Errorf("overlap %d of %s and %s: [%v, %v] is not an interval within [0, %v]", i, o.A, o.B, o.Start, o.End, t.End)
		}
	}
	return nil
}

// colorClients gives the clients their colours, in colour order: lanes
// that hold, top to bottom; then owners of keys and overlap parties that
// have no lane of their own.
func (tl *timeline) colorClients() {
	t := tl.t
	addClient := func(name string) {
		if name == "" {
			return
		}
		if _, ok := tl.color[name]; ok {
			return
		}
		tl.color[name] = seriesColors[len(tl.clients)%len(seriesColors)]
		tl.clients = append(tl.clients, name)
	}
	holds := make([]bool, tl.n)
	for _, s := range t.Spans {
		if s.Kind == SpanHold {
			holds[tl.lane[s.Lane]] = true
		}
	}
	for _, o := range t.Overlaps {
		for _, c := range []string{o.A, o.B} {
			if i, ok := tl.lane[c]; ok {
				holds[i] = true
			}
		}
	}
	for i, h := range holds {
		if h {
			addClient(t.Lanes[i])
			tl.cLanes = append(tl.cLanes, i)
		}
	}
	for _, s := range t.Spans {
		if s.Kind == SpanKey {
			addClient(keyOwner(s.Label))
		}
	}
	for _, o := range t.Overlaps {
		addClient(o.A)
		addClient(o.B)
	}
}

// longMessages are the messages between known lanes whose transit
// overlaps [from, to] and lasts at least LongMessage of it, cut to it (a
// cut end moves along the arrow, so that it keeps its slope).
func longMessages(ms []Message, lane map[string]int, from, to time.Duration) []Message {
	var out []Message
	for _, m := range ms {
		_, okF := lane[m.From]
		_, okT := lane[m.To]
		d := m.At - m.Sent
		if !okF || !okT || m.From == m.To || d <= 0 || float64(d) < LongMessage*float64(to-from) || m.At < from || m.Sent > to {
			continue
		}
		out = append(out, m)
	}
	return out
}

// window cuts t to [from, to]: spans and overlaps are clipped, marks
// outside are left out.
func window(t Timeline, from, to time.Duration) Timeline {
	out := t
	out.Spans, out.Marks, out.Overlaps = nil, nil, nil
	for _, s := range t.Spans {
		if s.End < from || s.Start > to {
			continue
		}
		s.length = s.Length()
		s.Start, s.End = max(s.Start, from), min(s.End, to)
		out.Spans = append(out.Spans, s)
	}
	for _, m := range t.Marks {
		if m.At >= from && m.At <= to {
			out.Marks = append(out.Marks, m)
		}
	}
	for _, o := range t.Overlaps {
		if o.End < from || o.Start > to {
			continue
		}
		o.Start, o.End = max(o.Start, from), min(o.End, to)
		out.Overlaps = append(out.Overlaps, o)
	}
	return out
}

// netLabel is where a partition or heal label goes: its row above the
// lanes, and whether it sits left of its line.
type netLabel struct {
	text string
	row  int
	left bool
}

// netNominal is the data-area width the network labels are laid out
// for: less than any TimelineSize figure gives, so that on the page they
// only move further apart.
const netNominal = timelineWidth - 1.6*vg.Inch

var netStyle = textStyle(9, netDark)

// placeNetLabels gives every partition and heal label a row: the first
// row where it fits right of its line, else left of it, without touching
// another label. Rows are added as needed, so that no label is dropped.
func (tl *timeline) placeNetLabels() {
	var rows [][]extent
	span := (tl.to - tl.from).Seconds()
	for _, m := range tl.net {
		txt := m.Label
		if txt == "" {
			txt = map[MarkKind]string{MarkPartition: "partition", MarkHeal: "heal"}[m.Kind]
		}
		x := netNominal * vg.Length((m.At-tl.from).Seconds()/span)
		w := netStyle.Width(txt)
		placed := false
		for row := 0; !placed; row++ {
			if row == len(rows) {
				rows = append(rows, nil)
			}
			for _, left := range []bool{false, true} {
				lo := x + 3
				if left {
					lo = x - 3 - w
				}
				// outside the area only when no side fits (a long label
				// on a narrow window): then right, in a row of its own
				inside := lo >= 0 && lo+w <= netNominal
				if (inside || len(rows[row]) == 0 && !left) && occupancy(rows).free(row, lo-4, lo+w+4) {
					rows[row] = append(rows[row], extent{lo, lo + w})
					tl.netPlace = append(tl.netPlace, netLabel{text: txt, row: row, left: left})
					placed = true
					break
				}
			}
		}
	}
}

// keyOwner is the client whose value a key label names: "c1#1" → "c1".
func keyOwner(label string) string {
	if i := strings.IndexByte(label, '#'); i >= 0 {
		return label[:i]
	}
	return label
}

// y is lane i's centre on the y axis: the first lane is at the top.
func (tl *timeline) y(i int) float64 { return float64(tl.n - 1 - i) }

// netRows is the height of the rows above the lanes that carry the
// partition and heal labels.
func (tl *timeline) netRows() vg.Length {
	rows := 0
	for _, p := range tl.netPlace {
		rows = max(rows, p.row+1)
	}
	return vg.Length(rows) * netRowH
}

const netRowH = vg.Length(12)

func (tl *timeline) has(kind SpanKind) bool {
	return slices.ContainsFunc(tl.t.Spans, func(s Span) bool { return s.Kind == kind })
}

func (tl *timeline) hasMark(kind MarkKind) bool {
	return slices.ContainsFunc(tl.t.Marks, func(m Mark) bool { return m.Kind == kind })
}

func (tl *timeline) makeLegend() *legendStrip {
	l := newLegendStrip(timelineWidth - vg.Inch)
	for _, c := range tl.clients {
		col := tl.color[c]
		l.add(c+" believes it holds the lock", thumbFunc(func(c *draw.Canvas) {
			r := c.Rectangle
			fillRect(c, col, r)
		}))
	}
	if tl.has(SpanKey) {
		var cols []color.Color
		for _, c := range tl.clients {
			cols = append(cols, tl.color[c])
		}
		l.add("lock key on a node (owner's colour)", thumbFunc(func(c *draw.Canvas) {
			r := c.Rectangle
			mid := (r.Min.Y + r.Max.Y) / 2
			h := (r.Max.Y - r.Min.Y) * 0.3
			w := (r.Max.X - r.Min.X) / vg.Length(max(len(cols), 1))
			for i, col := range cols {
				x := r.Min.X + vg.Length(i)*w
				fillRect(c, col, vg.Rectangle{Min: vg.Point{X: x, Y: mid - h}, Max: vg.Point{X: x + w, Y: mid + h}})
			}
		}))
	}
	if tl.has(SpanPause) {
		l.add("process paused (frozen)", thumbFunc(func(c *draw.Canvas) {
			fillRect(c, pauseGrey, c.Rectangle)
			hatch(c, draw.LineStyle{Color: hatchGrey, Width: 0.6}, c.Rectangle, 4)
		}))
	}
	// One entry per kind of outage the run has, in its own words.
	var downs []string
	for _, s := range tl.t.Spans {
		if s.Kind == SpanDown && !tl.instant(s) {
			if w := cmp.Or(s.Label, "down"); !slices.Contains(downs, w) {
				downs = append(downs, w)
			}
		}
	}
	if len(downs) > 0 {
		l.add("down ("+strings.Join(downs, ", ")+")", thumbFunc(func(c *draw.Canvas) {
			fillRect(c, downDark, c.Rectangle)
		}))
	}
	tl.addEventEntries(l)
	return l
}

// addEventEntries adds to l the legend's entries for what happens at an
// instant or across lanes: restarts, power losses, delayed messages,
// promotions, clock changes, the network's cuts, the resource's answers
// and the violations, each only if the run has one.
func (tl *timeline) addEventEntries(l *legendStrip) {
	resource := func(m Message) bool { return strings.HasPrefix(m.Kind, "RESOURCE") }
	arrow := func(m Message) thumbFunc {
		return func(c *draw.Canvas) {
			sty := arrowStyle(m)
			a, b := vg.Point{X: c.Min.X, Y: c.Max.Y}, vg.Point{X: c.Max.X, Y: c.Min.Y}
			c.StrokeLine2(sty, a.X, a.Y, b.X, b.Y)
			arrowHead(c, sty.Color, a, b)
		}
	}
	for _, e := range []struct {
		has   bool
		label string
		thumb thumbFunc
	}{
		{slices.ContainsFunc(tl.t.Spans, func(s Span) bool { return tl.instant(s) && !powerLoss(s) }),
			"crash and instant restart", func(c *draw.Canvas) { restartGlyph(c, c.Center()) }},
		{slices.ContainsFunc(tl.t.Spans, powerLoss), "power loss", func(c *draw.Canvas) { powerGlyph(c, c.Center()) }},
		{slices.ContainsFunc(tl.arrows, func(m Message) bool { return !resource(m) }), "delayed message", arrow(Message{})},
		{slices.ContainsFunc(tl.arrows, resource), "delayed write to the resource", arrow(Message{Kind: "RESOURCE-WRITE"})},
		{tl.hasMark(MarkPromotion), "replica promoted to master", func(c *draw.Canvas) { promoGlyph(c, c.Center()) }},
		{tl.hasMark(MarkElection), "leader elected", func(c *draw.Canvas) { promoGlyph(c, c.Center()) }},
		{tl.hasMark(MarkClock), "clock step or drift change", func(c *draw.Canvas) { diamond(c, clockColor, c.Center(), 5) }},
		{len(tl.net) > 0, "network partition / heal", func(c *draw.Canvas) {
			x := c.Center().X
			thumb := netLine
			thumb.Dashes = []vg.Length{3, 2}
			c.StrokeLine2(thumb, x, c.Min.Y-2, x, c.Max.Y+2)
		}},
		{tl.hasMark(MarkWrite), "write accepted by the resource", func(c *draw.Canvas) { writeDot(c, c.Center()) }},
		{tl.hasMark(MarkReject), "write rejected by the resource", func(c *draw.Canvas) { rejectCross(c, c.Center()) }},
		{len(tl.t.Overlaps) > 0, "both believe they hold the lock", func(c *draw.Canvas) {
			fillRect(c, withAlpha(violationRed, 90), c.Rectangle)
			strokeRect(c, draw.LineStyle{Color: violationRed, Width: 1}, c.Rectangle)
		}},
	} {
		if e.has {
			l.add(e.label, e.thumb)
		}
	}
}

var netLine = draw.LineStyle{Color: netDark, Width: 1.2, Dashes: []vg.Length{5, 3}}

// instantSpan is the longest outage drawn as an instant: a node that
// crashes and restarts at once (no time to be down in) gets a glyph and a
// label instead of an invisible band.
const instantSpan = time.Millisecond

func (tl *timeline) instant(s Span) bool {
	return s.Kind == SpanDown && s.End-s.Start < instantSpan
}

// powerLossLabel is the label of a down span that is a power loss (the
// model's); the figure marks its start with a lightning bolt, apart from a
// process crash.
const powerLossLabel = "power lost"

func powerLoss(s Span) bool { return s.Kind == SpanDown && s.Label == powerLossLabel }

// powerGlyph marks a power loss: a yellow lightning bolt outlined in
// black (the palette's yellow, which no client takes before the seventh).
func powerGlyph(c *draw.Canvas, p vg.Point) {
	pts := []vg.Point{
		{X: p.X + 2.5, Y: p.Y + 8}, {X: p.X - 4.5, Y: p.Y - 0.5}, {X: p.X - 0.5, Y: p.Y - 0.5},
		{X: p.X - 2.5, Y: p.Y - 8}, {X: p.X + 4.5, Y: p.Y + 1.5}, {X: p.X + 0.5, Y: p.Y + 1.5},
	}
	c.FillPolygon(rgb(0xF0E442), pts)
	c.StrokeLines(draw.LineStyle{Color: black, Width: 1}, append(pts, pts[0]))
}

// arrowStyle is a message arrow's line: the resource's writes and their
// replies in the palette's reddish purple, the lock's messages dark grey.
func arrowStyle(m Message) draw.LineStyle {
	if strings.HasPrefix(m.Kind, "RESOURCE") {
		return draw.LineStyle{Color: rgb(0xCC79A7), Width: 1.8}
	}
	return draw.LineStyle{Color: netDark, Width: 1.2}
}

// arrowHead draws a filled head at the end of the line from a to b.
func arrowHead(c *draw.Canvas, col color.Color, a, b vg.Point) {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	n := math.Hypot(dx, dy)
	if n == 0 {
		return
	}
	ux, uy := dx/n, dy/n
	const l, w = 7.0, 3.5
	base := vg.Point{X: b.X - vg.Length(ux*l), Y: b.Y - vg.Length(uy*l)}
	c.FillPolygon(col, []vg.Point{b,
		{X: base.X - vg.Length(uy*w), Y: base.Y + vg.Length(ux*w)},
		{X: base.X + vg.Length(uy*w), Y: base.Y - vg.Length(ux*w)}})
}

// clipSegment cuts the segment to xmin ≤ x ≤ xmax; ok is false when none
// of it lies there.
func clipSegment(x0, y0, x1, y1, xmin, xmax vg.Length) (cx0, cy0, cx1, cy1 vg.Length, ok bool) {
	if x1 < x0 || max(x0, x1) < xmin || min(x0, x1) > xmax {
		return 0, 0, 0, 0, false
	}
	at := func(x vg.Length) vg.Length {
		if x1 == x0 {
			return y0
		}
		return y0 + (y1-y0)*(x-x0)/(x1-x0)
	}
	cx0, cx1 = max(x0, xmin), min(x1, xmax)
	return cx0, at(cx0), cx1, at(cx1), true
}

// restartGlyph marks a crash with an instant restart: a dark disc with a
// white cross.
func restartGlyph(c *draw.Canvas, p vg.Point) {
	c.DrawGlyphNoClip(draw.GlyphStyle{Color: white, Radius: 7.5, Shape: draw.CircleGlyph{}}, p)
	c.DrawGlyphNoClip(draw.GlyphStyle{Color: downDark, Radius: 6.5, Shape: draw.CircleGlyph{}}, p)
	const r = 3.2
	sty := draw.LineStyle{Color: white, Width: 1.6}
	c.StrokeLine2(sty, p.X-r, p.Y-r, p.X+r, p.Y+r)
	c.StrokeLine2(sty, p.X-r, p.Y+r, p.X+r, p.Y-r)
}

// promoGlyph marks a promotion or an election: an upward triangle.
func promoGlyph(c *draw.Canvas, p vg.Point) {
	const r = 6
	pts := []vg.Point{{X: p.X, Y: p.Y + r}, {X: p.X + r, Y: p.Y - r*0.8}, {X: p.X - r, Y: p.Y - r*0.8}}
	c.FillPolygon(promoColor, pts)
	c.StrokeLines(draw.LineStyle{Color: white, Width: 1}, append(pts, pts[0]))
}

func diamond(c *draw.Canvas, col color.Color, p vg.Point, r vg.Length) {
	pts := []vg.Point{{X: p.X, Y: p.Y + r}, {X: p.X + r, Y: p.Y}, {X: p.X, Y: p.Y - r}, {X: p.X - r, Y: p.Y}}
	c.FillPolygon(col, pts)
	c.StrokeLines(draw.LineStyle{Color: white, Width: 1}, append(pts, pts[0]))
}

func writeDot(c *draw.Canvas, p vg.Point) {
	c.DrawGlyphNoClip(draw.GlyphStyle{Color: white, Radius: 4.5, Shape: draw.CircleGlyph{}}, p)
	c.DrawGlyphNoClip(draw.GlyphStyle{Color: black, Radius: 3.2, Shape: draw.CircleGlyph{}}, p)
}

func rejectCross(c *draw.Canvas, p vg.Point) {
	const r = 5
	for _, sty := range []draw.LineStyle{{Color: white, Width: 4}, {Color: violationRed, Width: 2.2}} {
		c.StrokeLine2(sty, p.X-r, p.Y-r, p.X+r, p.Y+r)
		c.StrokeLine2(sty, p.X-r, p.Y+r, p.X+r, p.Y-r)
	}
}

// DataRange implements plot.DataRanger.
func (tl *timeline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return tl.from.Seconds(), tl.to.Seconds(), -0.5, float64(tl.n) - 0.5
}

// GlyphBoxes reserves the rows of network labels above the lanes.
func (tl *timeline) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	if h := tl.netRows(); h > 0 {
		return []plot.GlyphBox{{X: 0, Y: 1, Rectangle: vg.Rectangle{Max: vg.Point{Y: h}}}}
	}
	return nil
}

// extent is a horizontal interval on one lane already taken by a label or
// a glyph.
type extent struct{ lo, hi vg.Length }

type occupancy [][]extent

func (o occupancy) free(lane int, lo, hi vg.Length) bool {
	for _, e := range o[lane] {
		if lo < e.hi && e.lo < hi {
			return false
		}
	}
	return true
}

func (o occupancy) take(lane int, lo, hi vg.Length) { o[lane] = append(o[lane], extent{lo, hi}) }

// Plot implements plot.Plotter: it paints the layers bottom to top.
func (tl *timeline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	tl.paintBackground(&c, p, trX, trY)
	tl.paintSpans(&c, trX, trY)
	tl.paintOverlaps(&c, trX, trY)
	tl.paintArrows(&c, trX, trY)
	tl.paintNet(&c, trX)
	tl.paintInstants(&c, trX, trY)
	tl.paintLabels(&c, trY)
}

// paintBackground paints the zebra lanes, the seconds grid and the rule
// between client lanes and the others.
func (tl *timeline) paintBackground(c *draw.Canvas, p *plot.Plot, trX, trY func(float64) vg.Length) {
	for i := 1; i < tl.n; i += 2 {
		fillRect(c, zebraGrey, vg.Rectangle{
			Min: vg.Point{X: c.Min.X, Y: trY(tl.y(i) - 0.5)},
			Max: vg.Point{X: c.Max.X, Y: trY(tl.y(i) + 0.5)},
		})
	}
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.IsMinor() {
			continue
		}
		x := trX(tk.Value)
		c.StrokeLine2(draw.LineStyle{Color: gridGrey, Width: 0.5}, x, c.Min.Y, x, c.Max.Y)
	}
	// a rule between client lanes and the others
	isClient := make([]bool, tl.n)
	for _, i := range tl.cLanes {
		isClient[i] = true
	}
	for i := 1; i < tl.n; i++ {
		if isClient[i-1] != isClient[i] {
			y := trY(tl.y(i) + 0.5)
			c.StrokeLine2(draw.LineStyle{Color: hatchGrey, Width: 0.8}, c.Min.X, y, c.Max.X, y)
		}
	}
}

// paintSpans paints the bands (pauses, outages), then the bars (holds,
// keys) on top of them.
func (tl *timeline) paintSpans(c *draw.Canvas, trX, trY func(float64) vg.Length) {
	t := tl.t
	band := func(lane int, half float64, s, e time.Duration) vg.Rectangle {
		y := tl.y(lane)
		return vg.Rectangle{
			Min: vg.Point{X: trX(s.Seconds()), Y: trY(y - half)},
			Max: vg.Point{X: trX(e.Seconds()), Y: trY(y + half)},
		}
	}
	// minimum visible width, so that an instant's span still shows
	widen := func(r vg.Rectangle) vg.Rectangle {
		if r.Max.X-r.Min.X < 1 {
			r.Max.X = r.Min.X + 1
		}
		return r
	}

	for _, s := range t.Spans {
		r := widen(band(tl.lane[s.Lane], bandHalf, s.Start, s.End))
		switch {
		case tl.instant(s):
			// drawn with the instants below
		case s.Kind == SpanDown:
			fillRect(c, downDark, r)
		case s.Kind == SpanPause:
			fillRect(c, pauseGrey, r)
			hatch(c, draw.LineStyle{Color: hatchGrey, Width: 0.6}, r, 4)
		}
	}
	for _, s := range t.Spans {
		var r vg.Rectangle
		var col color.Color
		switch s.Kind {
		case SpanHold:
			r, col = band(tl.lane[s.Lane], holdHalf, s.Start, s.End), tl.color[s.Lane]
		case SpanKey:
			r, col = band(tl.lane[s.Lane], keyHalf, s.Start, s.End), tl.ownerColor(s.Label)
		default:
			continue
		}
		r = widen(r)
		fillRect(c, col, r)
		strokeRect(c, draw.LineStyle{Color: white, Width: 0.8}, r)
	}
}

// paintOverlaps paints the violations across the client lanes.
func (tl *timeline) paintOverlaps(c *draw.Canvas, trX, trY func(float64) vg.Length) {
	t := tl.t
	if len(t.Overlaps) > 0 {
		lo, hi := tl.n, -1
		for _, i := range tl.cLanes {
			lo, hi = min(lo, i), max(hi, i)
		}
		if hi < 0 { // no client lane: cover everything
			lo, hi = 0, tl.n-1
		}
		for _, o := range t.Overlaps {
			x0, x1 := trX(o.Start.Seconds()), trX(o.End.Seconds())
			r := vg.Rectangle{
				Min: vg.Point{X: x0, Y: trY(tl.y(hi) - 0.5)},
				Max: vg.Point{X: max(x1, x0+1), Y: trY(tl.y(lo) + 0.5)},
			}
			fillRect(c, withAlpha(violationRed, 80), r)
			edge := draw.LineStyle{Color: violationRed, Width: 1.2}
			c.StrokeLine2(edge, r.Min.X, r.Min.Y, r.Min.X, r.Max.Y)
			c.StrokeLine2(edge, r.Max.X, r.Min.Y, r.Max.X, r.Max.Y)
		}
	}
}

// paintArrows paints the long messages: an arrow from the sender's lane
// to the receiver's, drawn inside the window (an end outside it is cut along the line).
func (tl *timeline) paintArrows(c *draw.Canvas, trX, trY func(float64) vg.Length) {
	for _, m := range tl.arrows {
		x0, y0 := trX(m.Sent.Seconds()), trY(tl.y(tl.lane[m.From]))
		x1, y1 := trX(m.At.Seconds()), trY(tl.y(tl.lane[m.To]))
		cx0, cy0, cx1, cy1, ok := clipSegment(x0, y0, x1, y1, c.Min.X, c.Max.X)
		if !ok {
			continue
		}
		sty := arrowStyle(m)
		c.StrokeLine2(draw.LineStyle{Color: white, Width: sty.Width + 2}, cx0, cy0, cx1, cy1)
		c.StrokeLine2(sty, cx0, cy0, cx1, cy1)
		if cx1 == x1 { // the head is in the window
			arrowHead(c, sty.Color, vg.Point{X: x0, Y: y0}, vg.Point{X: x1, Y: y1})
		}
	}
}

// paintNet paints the network events across every lane, labelled above
// the lanes in the rows placeNetLabels chose. A line at the very edge of the area is
// drawn just inside it, where the axis would hide it.
func (tl *timeline) paintNet(c *draw.Canvas, trX func(float64) vg.Length) {
	for k, m := range tl.net {
		x := min(max(trX(m.At.Seconds()), c.Min.X+1.5), c.Max.X-1.5)
		c.StrokeLine2(netLine, x, c.Min.Y, x, c.Max.Y)
		pl := tl.netPlace[k]
		lo := x + 3
		if pl.left {
			lo = x - 3 - netStyle.Width(pl.text)
		}
		c.FillText(netStyle, vg.Point{X: lo, Y: c.Max.Y + vg.Length(pl.row)*netRowH + 2}, pl.text)
	}
}

// paintInstants paints the instants on lanes: glyphs of restarts, power
// losses and marks.
func (tl *timeline) paintInstants(c *draw.Canvas, trX, trY func(float64) vg.Length) {
	t := tl.t
	for _, s := range t.Spans {
		pt := vg.Point{X: trX(s.Start.Seconds()), Y: trY(tl.y(tl.lane[s.Lane]))}
		switch {
		case tl.instant(s) && powerLoss(s):
			powerGlyph(c, pt)
		case tl.instant(s):
			restartGlyph(c, pt)
		case powerLoss(s) && s.length == 0: // a power loss starts the band; a band cut by the window did not start here
			powerGlyph(c, pt)
		}
	}
	for _, m := range t.Marks {
		if m.Kind == MarkPartition || m.Kind == MarkHeal {
			continue
		}
		pt := vg.Point{X: trX(m.At.Seconds()), Y: trY(tl.y(tl.lane[m.Lane]))}
		switch m.Kind {
		case MarkClock:
			diamond(c, clockColor, pt, 6)
		case MarkPromotion, MarkElection:
			promoGlyph(c, pt)
		case MarkWrite:
			writeDot(c, pt)
		case MarkReject:
			rejectCross(c, pt)
		}
	}
}

// paintLabels paints the labels where layoutTimeline placed them; on a
// canvas of another width than the one it planned for, placed again the same way.
func (tl *timeline) paintLabels(c *draw.Canvas, trY func(float64) vg.Length) {
	labels := tl.labels
	if w := c.Max.X - c.Min.X; w != tl.width {
		labels, _ = tl.placeLabels(w, tl.numbers)
	}
	laneH := trY(1) - trY(0)
	for _, l := range labels {
		pt := vg.Point{X: c.Min.X + l.lo, Y: trY(tl.y(l.lane)) + vg.Length(l.dy)*laneH}
		sty := l.sty
		sty.Color = l.fg
		sty.YAlign = draw.YCenter
		if l.bg != nil {
			w, h := sty.Width(l.text), sty.Font.Size
			fillRect(c, l.bg, vg.Rectangle{
				Min: vg.Point{X: pt.X - 2, Y: pt.Y - h*0.62},
				Max: vg.Point{X: pt.X + w + 2, Y: pt.Y + h*0.62},
			})
		}
		c.FillText(sty, pt, l.text)
	}
}

// placedLabel is a text laid out on a lane: lo is measured from the data
// area's left edge, dy in lanes from the lane's centre (positive is up).
// A label with a background colour is drawn in a box of it.
type placedLabel struct {
	lane   int
	lo     vg.Length
	dy     float64
	text   string
	sty    text.Style
	fg, bg color.Color
}

// maxListed is the most labels the side list of short bars holds: beyond
// it a list is no longer read from the back of a lecture hall, and the
// figure says which window to draw instead.
const maxListed = 18

// badgeStyle is the style of the number that marks a short bar whose
// label is listed in the legend.
var (
	gapStyle   = textStyle(8, black) // a label in the gap above or below its bar
	badgeStyle = textStyle(8, white)
	badgeBg    = color.Gray{Y: 45}
)

// placeLabels lays out every label of the figure for a data area w wide.
// Most important first, where they fit without covering another label or
// a glyph: the labels of marks, then of pauses and outages (beside their
// band when it is too short), then of holds and keys: inside the bar, else
// beside it on the bare lane. The labels of the bars that fit neither are
// short; with numbers (label → number) each such bar gets its number
// (numbers nil: they are only returned, in the order of their bars).
// A label absent from numbers is then left out: layoutTimeline has said
// in the legend which window shows them.
func (tl *timeline) placeLabels(w vg.Length, numbers map[string]int) (out []placedLabel, short []Span) {
	lp := &labelPlacer{tl: tl, w: w, occ: make(occupancy, tl.n), edges: make(occupancy, tl.n), bars: make(occupancy, tl.n),
		above: make(occupancy, tl.n), below: make(occupancy, tl.n)}
	lp.placeMarks(lp.obstacles())
	short = lp.placeSpans()
	if numbers == nil {
		return lp.out, short
	}
	lp.placeNumbers(short, numbers)
	return lp.out, nil
}

// labelPlacer is placeLabels' state: the labels placed so far and what
// each lane has taken, in the occupancies a label must keep clear of:
// labels and glyphs (occ), the ends of holds and keys (edges), anything
// drawn (bars), and the gaps above and below the bars.
type labelPlacer struct {
	tl                             *timeline
	w                              vg.Length
	out                            []placedLabel
	occ, edges, bars, above, below occupancy
}

// markLabel is the label of a mark's glyph at x on lane.
type markLabel struct {
	lane   int
	x      vg.Length
	text   string
	fg, bg color.Color
}

func (lp *labelPlacer) trX(d time.Duration) vg.Length {
	tl := lp.tl
	return vg.Length((d.Seconds()-tl.from.Seconds())/(tl.to-tl.from).Seconds()) * lp.w
}

func (lp *labelPlacer) put(lane int, lo vg.Length, txt string, sty text.Style, fg, bg color.Color) {
	lp.occ.take(lane, lo-2, lo+sty.Width(txt)+2)
	lp.out = append(lp.out, placedLabel{lane: lane, lo: lo, text: txt, sty: sty, fg: fg, bg: bg})
}

func (lp *labelPlacer) inside(lo, wt vg.Length) bool { return lo >= 0 && lo+wt <= lp.w }

// obstacles takes the glyphs of instant restarts and marks, and the bars
// and their ends, and returns the marks' labels to place.
func (lp *labelPlacer) obstacles() []markLabel {
	tl, occ := lp.tl, lp.occ
	var markLabels []markLabel
	for _, s := range tl.t.Spans {
		if tl.instant(s) {
			i, x := tl.lane[s.Lane], lp.trX(s.Start)
			occ.take(i, x-8, x+8)
			txt := "crash + instant restart"
			if powerLoss(s) {
				txt = "power loss + instant restart"
			}
			markLabels = append(markLabels, markLabel{i, x, txt, white, downDark})
		}
	}
	for _, m := range tl.t.Marks {
		if m.Kind == MarkPartition || m.Kind == MarkHeal {
			continue
		}
		i, x := tl.lane[m.Lane], lp.trX(m.At)
		switch m.Kind {
		case MarkClock:
			occ.take(i, x-6, x+6)
			if m.Label != "" {
				markLabels = append(markLabels, markLabel{i, x, m.Label, clockColor, labelBox})
			}
		case MarkPromotion, MarkElection:
			occ.take(i, x-6, x+6)
			txt := cmp.Or(m.Label, map[MarkKind]string{MarkPromotion: "promoted", MarkElection: "leader elected"}[m.Kind])
			markLabels = append(markLabels, markLabel{i, x, txt, promoColor, labelBox})
		case MarkWrite:
			occ.take(i, x-4, x+4)
		case MarkReject:
			occ.take(i, x-6, x+6)
		}
	}
	for _, s := range tl.t.Spans {
		i := tl.lane[s.Lane]
		x0, x1 := lp.trX(s.Start), lp.trX(s.End)
		lp.bars.take(i, x0, max(x1, x0+1))
		if s.Kind == SpanHold || s.Kind == SpanKey {
			for _, x := range []vg.Length{x0, x1} {
				lp.edges.take(i, x-1, x+1)
			}
		}
	}
	return markLabels
}

// placeMarks places the marks' labels (a clock change, a promotion, an
// instant restart): right of the glyph, else left, where it hides no
// bar's start or end (the moment a key is set or expires); failing both,
// where it covers no other label; failing that, right of it anyway: a
// mark's label is never dropped.
func (lp *labelPlacer) placeMarks(markLabels []markLabel) {
	for _, l := range markLabels {
		sty := lp.tl.label
		wt := sty.Width(l.text)
		right, left := l.x+9, l.x-9-wt
		lo := right
		if !lp.inside(lo, wt) {
			lo = left
		}
		for _, try := range []struct {
			lo    vg.Length
			edges bool
		}{{right, true}, {left, true}, {right, false}, {left, false}} {
			if lp.inside(try.lo, wt) && lp.occ.free(l.lane, try.lo-2, try.lo+wt+2) && (!try.edges || lp.edges.free(l.lane, try.lo-2, try.lo+wt+2)) {
				lo = try.lo
				break
			}
		}
		lp.put(l.lane, lo, l.text, sty, l.fg, l.bg)
	}
}

// within places txt inside [x0, x1]: centred, else at the start, else at
// the end. It reports whether it did.
func (lp *labelPlacer) within(lane int, x0, x1 vg.Length, txt string, sty text.Style, fg, bg color.Color) bool {
	wt := sty.Width(txt)
	const pad = 3
	if txt == "" || x1-x0 < wt+2*pad {
		return false
	}
	for _, lo := range []vg.Length{(x0 + x1 - wt) / 2, x0 + pad, x1 - pad - wt} {
		if lp.occ.free(lane, lo-pad, lo+wt+pad) {
			lp.occ.take(lane, lo-pad, lo+wt+pad)
			lp.out = append(lp.out, placedLabel{lane: lane, lo: lo, text: txt, sty: sty, fg: fg, bg: bg})
			return true
		}
	}
	return false
}

// beside places a label right of [x0, x1], else left of it, where it
// covers no other label; with bare, only where nothing at all is drawn on
// the lane (a bar's label beside it must not seem another bar's). It
// reports whether it did.
func (lp *labelPlacer) beside(lane int, x0, x1 vg.Length, txt string, sty text.Style, fg, bg color.Color, bare bool) bool {
	wt := sty.Width(txt)
	for _, lo := range []vg.Length{x1 + 4, x0 - 4 - wt} {
		if lp.inside(lo, wt) && lp.occ.free(lane, lo-2, lo+wt+2) && (!bare || lp.bars.free(lane, lo-3, lo+wt+3)) {
			lp.put(lane, lo, txt, sty, fg, bg)
			return true
		}
	}
	return false
}

// gap is how far above (or below) its lane's centre a label in the gap
// beside a bar of kind sits.
func gap(kind SpanKind) float64 {
	half := map[SpanKind]float64{SpanHold: holdHalf, SpanKey: keyHalf}[kind]
	return half + (0.5-half)/2
}

// stacked places a bar's label in the gap above the bar, centred on it,
// else in the gap below it, where no other label is; so that neighbouring
// short bars take turns. It reports whether it did.
func (lp *labelPlacer) stacked(lane int, x0, x1 vg.Length, s Span) bool {
	if lp.tl.hidden > 0 {
		return false // scattered over stripes, they would name the wrong bars
	}
	sty := gapStyle
	wt := sty.Width(s.Label)
	// at the area's edges, moved inside, still over its bar
	lo := max(0, min((x0+x1-wt)/2, lp.w-wt))
	if !lp.inside(lo, wt) {
		return false
	}
	for _, side := range []struct {
		occ occupancy
		dy  float64
	}{{lp.above, gap(s.Kind)}, {lp.below, -gap(s.Kind)}} {
		if side.occ.free(lane, lo-3, lo+wt+3) {
			side.occ.take(lane, lo-3, lo+wt+3)
			lp.out = append(lp.out, placedLabel{lane: lane, lo: lo, dy: side.dy, text: s.Label, sty: sty, fg: black, bg: labelBox})
			return true
		}
	}
	return false
}

// placeSpans places the labels of pauses and outages, then of holds and
// keys, and returns the bars whose labels fit nowhere, in order.
func (lp *labelPlacer) placeSpans() (short []Span) {
	tl := lp.tl
	for _, kind := range []SpanKind{SpanPause, SpanDown, SpanHold, SpanKey} {
		for _, s := range tl.t.Spans {
			if s.Kind != kind || tl.instant(s) {
				continue
			}
			i := tl.lane[s.Lane]
			x0, x1 := lp.trX(s.Start), lp.trX(s.End)
			switch kind {
			case SpanPause, SpanDown:
				lp.placeBand(i, x0, x1, s)
			case SpanHold, SpanKey:
				sty, col := tl.label, tl.color[s.Lane]
				if kind == SpanKey {
					sty.Font.Size = 8
					col = tl.ownerColor(s.Label)
				}
				if s.Label == "" || lp.within(i, x0, x1, s.Label, sty, textOn(col), nil) ||
					lp.beside(i, x0, x1, s.Label, sty, black, labelBox, true) || lp.stacked(i, x0, x1, s) {
					continue
				}
				short = append(short, s)
			}
		}
	}
	slices.SortStableFunc(short, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(tl.lane[a.Lane], tl.lane[b.Lane]))
	})
	return short
}

// placeBand places a pause's or an outage's label: in its band, else
// beside it; failing both sides, right of it anyway (left at the area's
// right edge): these labels are never dropped.
func (lp *labelPlacer) placeBand(i int, x0, x1 vg.Length, s Span) {
	tl := lp.tl
	txt := withLength(s.Label, "paused", s.Length())
	var fg, bg color.Color = black, labelBox
	if s.Kind == SpanDown {
		// boxed: a key kept through the crash may lie under it
		txt, fg, bg = withLength(s.Label, "down", s.Length()), white, downDark
	}
	if !lp.within(i, x0, x1, txt, tl.label, fg, bg) && !lp.beside(i, x0, x1, txt, tl.label, fg, bg, false) {
		wt := tl.label.Width(txt)
		lo := x1 + 4
		if lo+wt > lp.w {
			lo = max(x0-4-wt, 0)
		}
		lp.put(i, lo, txt, tl.label, fg, bg)
	}
}

// placeNumbers gives each short bar its number: in the bar when it is
// wide enough, else in the gap above it, else below it, else above it
// anyway. A bar whose label numbers lacks is left out.
func (lp *labelPlacer) placeNumbers(short []Span, numbers map[string]int) {
	tl := lp.tl
	for _, s := range short {
		num, ok := numbers[s.Label]
		if !ok {
			continue
		}
		txt := strconv.Itoa(num)
		i := tl.lane[s.Lane]
		x0, x1 := lp.trX(s.Start), lp.trX(s.End)
		wt := badgeStyle.Width(txt)
		lo := max(0, min((x0+x1-wt)/2, lp.w-wt))
		badge := placedLabel{lane: i, lo: lo, text: txt, sty: badgeStyle, fg: white, bg: badgeBg}
		switch {
		case x1-x0 >= wt+8 && lp.occ.free(i, lo-3, lo+wt+3):
			lp.occ.take(i, lo-3, lo+wt+3)
		case !lp.above.free(i, lo-3, lo+wt+3) && lp.below.free(i, lo-3, lo+wt+3):
			lp.below.take(i, lo-3, lo+wt+3)
			badge.dy = -gap(s.Kind)
		default:
			lp.above.take(i, lo-3, lo+wt+3)
			badge.dy = gap(s.Kind)
		}
		lp.out = append(lp.out, badge)
	}
}

// badge draws a short bar's number centred in c, as on the bar.
func badge(c *draw.Canvas, num string) {
	sty := badgeStyle
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	p := c.Center()
	w, h := sty.Width(num), sty.Font.Size
	fillRect(c, badgeBg, vg.Rectangle{
		Min: vg.Point{X: p.X - w/2 - 2, Y: p.Y - h*0.62},
		Max: vg.Point{X: p.X + w/2 + 2, Y: p.Y + h*0.62},
	})
	c.FillText(sty, p, num)
}

func (tl *timeline) ownerColor(label string) color.Color {
	if col, ok := tl.color[keyOwner(label)]; ok {
		return col
	}
	return unknownOwn
}

// withLength is "label 15s", or "fallback 15s" without a label.
func withLength(label, fallback string, d time.Duration) string {
	if label == "" {
		label = fallback
	}
	return label + " " + shortDuration(d)
}

// shortDuration prints d with at most three significant digits: 15s,
// 1.5s, 250ms, 2m30s.
func shortDuration(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.String()
}
