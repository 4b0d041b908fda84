package plots

import (
	"math"
	"regexp"
	"strings"
	"testing"
)

// twoOverlays are real points over the first and last of threeSeries:
// at 0 and 10000 over lock.ttl=1s, at 5000 over lock.ttl=30s, one of them
// without an interval.
func twoOverlays() []Overlay {
	return []Overlay{
		{Series: "lock.ttl=1s", Name: "lock.ttl=1s, real", Points: []Point{
			{X: 0, Y: 0, Low: 0, High: 0.43}, {X: 10000, Y: 0.6, Low: 0.23, High: 0.88},
		}},
		{Series: "lock.ttl=30s", Name: "lock.ttl=30s, real", Points: []Point{
			{X: 5000, Y: 0.2, Low: math.NaN(), High: math.NaN()},
		}},
	}
}

func TestLineOverlayGolden(t *testing.T) {
	o := LineOptions{Title: "simulated lines, real rings", XLabel: "nodes.clock.rate_ppm (ppm)", YLabel: "mutex_violation_rate", Caption: "Rings: real runs."}
	f, err := LineOverlayPlot(o, threeSeries(), twoOverlays())
	if err != nil {
		t.Fatal(err)
	}
	svg := svgOf(t, f, LineWidth, LineHeight)
	checkGolden(t, "line_overlay.svg", svg)
	requireTexts(t, svg, "lock.ttl=1s", "lock.ttl=1s, real", "lock.ttl=30s, real", "Rings: real runs.")
	// Each real point is a ring of radius 5.5 in its line's colour, and
	// each overlay has one more in the legend: 2+1 in the first colour,
	// 1+1 in the third, none in the second.
	for k, want := range []int{3, 0, 2} {
		col := colorHex(seriesColors[k])
		rings := regexp.MustCompile(`A5\.5,5\.5 [^"]*" style="fill:none;stroke:`+col+`;stroke-width:1\.6"`).FindAll(svg, -1)
		if len(rings) != want {
			t.Errorf("series %d: %d rings in %s, want %d", k, len(rings), col, want)
		}
	}
	// The legend lists the lines first, then the real points.
	s := string(svg)
	if strings.Index(s, svgText("lock.ttl=30s")) > strings.Index(s, svgText("lock.ttl=1s, real")) {
		t.Error("the legend lists a real entry before the last line")
	}
}

func TestLineOverlayErrors(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		over []Overlay
		want string
	}{
		{nil, "no overlay to draw"},
		{[]Overlay{{Series: "lock.ttl=2s", Name: "x", Points: []Point{{X: 0, Y: 0, Low: nan, High: nan}}}}, `overlay "x" is over the line "lock.ttl=2s", which is not drawn`},
		{[]Overlay{{Series: "lock.ttl=1s", Name: "lock.ttl=10s", Points: []Point{{X: 0, Y: 0, Low: nan, High: nan}}}}, `two legend entries are named "lock.ttl=10s"`},
		{[]Overlay{{Series: "lock.ttl=1s", Name: "r"}}, `overlay: series "r" has no points`},
		{[]Overlay{{Series: "lock.ttl=1s", Name: "r", Points: []Point{{X: 0, Y: 0.5, Low: 0.6, High: 0.7}, {X: 1, Y: 0, Low: 0.9, High: 0.1}}}}, "interval low 0.9 exceeds high 0.1"},
	} {
		_, err := LineOverlayPlot(LineOptions{}, threeSeries(), c.over)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

// On a log y axis a real rate of zero is drawn at a floor as the lines'
// zeros are: here only the real point is zero, and the floor is the decade
// below the smallest positive value (the lines' 0.1).
func TestLineOverlayLogFloor(t *testing.T) {
	nan := math.NaN()
	s := []Series{{Name: "a", Points: []Point{{X: 1, Y: 0.1, Low: nan, High: nan}, {X: 10, Y: 0.5, Low: nan, High: nan}}}}
	over := []Overlay{{Series: "a", Name: "a, real", Points: []Point{{X: 1, Y: 0, Low: 0, High: 0.002}}}}
	f, err := LineOverlayPlot(LineOptions{LogY: true, YLabel: "rate"}, s, over)
	if err != nil {
		t.Fatal(err)
	}
	requireTexts(t, svgOf(t, f, LineWidth, LineHeight), "rate (log scale; 0 drawn at 0.01)")
}
