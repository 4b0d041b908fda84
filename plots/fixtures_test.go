package plots

import (
	"math"
	"time"
)

const ms = time.Millisecond

// gcPauseStory is Kleppmann's picture drawn by hand: c1 locks all five
// nodes (token 33) and freezes in a 15 s GC pause; the keys expire at 10 s;
// c2 locks at 11 s (token 34) and writes; c1 wakes at 16 s and its write
// is rejected by fencing. n3's clock steps forward on the way, n5 crashes
// later, and a partition cuts n4 and n5 off for a while.
func gcPauseStory() Timeline {
	nodes := []string{"n1", "n2", "n3", "n4", "n5"}
	t := Timeline{
		Title: "gc-pause-fencing (seed 1)",
		End:   30 * time.Second,
		Lanes: append([]string{"c1", "c2"}, nodes...),
	}
	t.Spans = append(t.Spans,
		Span{Lane: "c1", Kind: SpanHold, Start: 52 * ms, End: 16300 * ms, Label: "token 33"},
		Span{Lane: "c1", Kind: SpanPause, Start: time.Second, End: 16 * time.Second, Label: "GC"},
		Span{Lane: "c2", Kind: SpanHold, Start: 11052 * ms, End: 13200 * ms, Label: "token 34"},
	)
	for i, n := range nodes {
		off := time.Duration(i) * ms
		t.Spans = append(t.Spans,
			Span{Lane: n, Kind: SpanKey, Start: 30*ms + off, End: 10030*ms + off, Label: "c1#1"},
			Span{Lane: n, Kind: SpanKey, Start: 11030*ms + off, End: 13210*ms + off, Label: "c2#1"},
		)
	}
	t.Spans = append(t.Spans, Span{Lane: "n5", Kind: SpanDown, Start: 20 * time.Second, End: 26 * time.Second, Label: "crashed"})
	t.Marks = []Mark{
		{Lane: "n3", Kind: MarkClock, At: 4 * time.Second, Label: "+2s"},
		{Lane: "c2", Kind: MarkWrite, At: 13100 * ms, Label: "write"},
		{Lane: "c1", Kind: MarkReject, At: 16200 * ms, Label: "rejected"},
		{Lane: "net", Kind: MarkPartition, At: 18 * time.Second, Label: "partition n4,n5"},
		{Lane: "net", Kind: MarkHeal, At: 24 * time.Second, Label: "heal"},
	}
	t.Overlaps = []Overlap{{Start: 11052 * ms, End: 13200 * ms, A: "c1", B: "c2"}}
	return t
}

// threeSeries is a sweep of the server clock rate error with three lock
// TTLs: violation rates with Wilson-like intervals; the last point of one
// series has no interval.
func threeSeries() []Series {
	xs := []float64{0, 2500, 5000, 7500, 10000, 15000}
	var out []Series
	for k, name := range []string{"lock.ttl=1s", "lock.ttl=10s", "lock.ttl=30s"} {
		s := Series{Name: name}
		for i, x := range xs {
			y := math.Max(0, math.Min(1, (x-10000/float64(k+1))/8000))
			lo, hi := math.Max(0, y-0.08), math.Min(1, y+0.08)
			if k == 2 && i == len(xs)-1 {
				lo, hi = math.NaN(), math.NaN()
			}
			s.Points = append(s.Points, Point{X: x, Y: y, Low: lo, High: hi})
		}
		out = append(out, s)
	}
	return out
}

// smallGrid is a 4 × 3 sweep of TTL against clock rate error with one
// missing cell.
func smallGrid() Grid {
	g := Grid{
		Xs:     []float64{1, 2, 5, 10},
		Ys:     []float64{100, 1000, 10000},
		XLabel: "lock.ttl (s)",
		YLabel: "nodes.clock.rate_ppm (ppm)",
		ZLabel: "mutex violation rate",
		Title:  "violations by TTL and clock rate error",
		Cells:  CellsTrue,
	}
	g.Z = [][]float64{
		{0, 0, 0, 0},
		{0.02, 0.01, 0, math.NaN()},
		{0.9, 0.75, 0.5, 0.31},
	}
	return g
}
