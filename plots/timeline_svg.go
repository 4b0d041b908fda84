package plots

import (
	"bytes"
	"fmt"
	"html"
	"time"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// TimelineSVG draws t as an SVG document, as Save would at TimelineSize,
// with a transparent hover target over every span and mark whose <title>
// says what it is and when (a browser shows it as a tooltip): "c1
// believes it holds the lock, 0.002463 s to 16.000000 s (token 33)". The
// report inlines it.
func TimelineSVG(t Timeline) ([]byte, error) {
	p, err := TimelinePlot(t)
	if err != nil {
		return nil, err
	}
	tl, err := layoutTimeline(t)
	if err != nil {
		return nil, err
	}
	w, h := TimelineSize(t)
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	p.Draw(dc)
	da := p.DataCanvas(dc)
	trX, trY := p.Transforms(&da)

	var hover bytes.Buffer
	rect := func(x0, x1, y0, y1 vg.Length, title string) {
		if x1-x0 < 6 { // a short span or an instant: a target one can find
			mid := (x0 + x1) / 2
			x0, x1 = mid-3, mid+3
		}
		fmt.Fprintf(&hover, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#000\" fill-opacity=\"0\" pointer-events=\"all\"><title>%s</title></rect>\n",
			x0, y0, x1-x0, y1-y0, html.EscapeString(title))
	}
	for _, s := range tl.t.Spans {
		y := tl.y(tl.lane[s.Lane])
		half := map[SpanKind]float64{SpanHold: holdHalf, SpanKey: keyHalf, SpanPause: bandHalf, SpanDown: bandHalf}[s.Kind]
		rect(trX(s.Start.Seconds()), trX(s.End.Seconds()), trY(y-half), trY(y+half), spanTitle(s))
	}
	for _, m := range tl.t.Marks {
		if m.Kind == MarkPartition || m.Kind == MarkHeal {
			x := trX(m.At.Seconds())
			rect(x-2, x+2, da.Min.Y, da.Max.Y, markTitle(m))
			continue
		}
		y := trY(tl.y(tl.lane[m.Lane]))
		x := trX(m.At.Seconds())
		rect(x-6, x+6, y-6, y+6, markTitle(m))
	}
	for _, m := range tl.arrows {
		x0, y0 := trX(m.Sent.Seconds()), trY(tl.y(tl.lane[m.From]))
		x1, y1 := trX(m.At.Seconds()), trY(tl.y(tl.lane[m.To]))
		if cx0, cy0, cx1, cy1, ok := clipSegment(x0, y0, x1, y1, da.Min.X, da.Max.X); ok {
			fmt.Fprintf(&hover, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000\" stroke-opacity=\"0\" stroke-width=\"8\" pointer-events=\"all\"><title>%s</title></line>\n",
				cx0, cy0, cx1, cy1, html.EscapeString(messageTitle(m)))
		}
	}
	for _, o := range tl.t.Overlaps {
		rect(trX(o.Start.Seconds()), trX(o.End.Seconds()), da.Min.Y, da.Min.Y+6,
			fmt.Sprintf("%s and %s both believe they hold the lock, %s to %s", o.A, o.B, secs(o.Start), secs(o.End)))
	}

	var out bytes.Buffer
	if _, err := c.WriteTo(&out); err != nil {
		return nil, err
	}
	// The hover targets go last inside the root group, which carries the
	// flip to y-up coordinates the drawing used, so that they lie on top.
	doc := out.Bytes()
	end := bytes.LastIndex(doc, []byte("</g>"))
	if end < 0 {
		return nil, fmt.Errorf("timeline svg: no root group to add hover targets to")
	}
	return bytes.Join([][]byte{doc[:end], hover.Bytes(), doc[end:]}, nil), nil
}

func secs(d time.Duration) string { return fmt.Sprintf("%.6f s", d.Seconds()) }

func spanTitle(s Span) string {
	when := secs(s.Start) + " to " + secs(s.End)
	switch s.Kind {
	case SpanHold:
		t := s.Lane + " believes it holds the lock, " + when
		if s.Label != "" {
			t += " (" + s.Label + ")"
		}
		return t
	case SpanKey:
		return s.Lane + " holds the lock key (value " + s.Label + "), " + when
	case SpanPause:
		t := s.Lane + " is paused (" + s.Label + "), " + when
		if s.length != 0 {
			t += fmt.Sprintf(" in this window; %v in all", s.length)
		}
		return t
	default:
		if s.End-s.Start < instantSpan && powerLoss(s) {
			return s.Lane + " loses power and restarts at once, at " + secs(s.Start)
		}
		if s.End-s.Start < instantSpan {
			return s.Lane + " crashes and restarts at once, at " + secs(s.Start)
		}
		return s.Lane + " is down (" + s.Label + "), " + when
	}
}

func messageTitle(m Message) string {
	return fmt.Sprintf("%s %s → %s, sent %s, received %s (%v in transit)", m.Kind, m.From, m.To, secs(m.Sent), secs(m.At), m.At-m.Sent)
}

func markTitle(m Mark) string {
	at := " at " + secs(m.At)
	switch m.Kind {
	case MarkClock:
		return m.Lane + "'s clock changes: " + m.Label + at
	case MarkPartition:
		return "network: " + m.Label + at
	case MarkHeal:
		return "network heals" + at
	case MarkWrite:
		return "the resource accepts " + m.Lane + "'s write" + at
	case MarkReject:
		return "the resource rejects " + m.Lane + "'s write" + at
	case MarkPromotion:
		return m.Lane + " is promoted to master" + at
	default:
		return m.Lane + ": " + m.Label + at
	}
}
