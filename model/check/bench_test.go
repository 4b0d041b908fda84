package check

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// benchHistory builds a run of n holds by five clients: mostly one after
// another with gaps in which others wait, with about one hold in ten
// overlapping its predecessor (a pause past validity), one write per hold
// (some lost, some stale, some fenced) and four log events per hold.
func benchHistory(n int) History {
	rng := rand.New(rand.NewPCG(1, 2))
	var h History
	t := time.Duration(0)
	for i := range n {
		client := fmt.Sprintf("c%d", rng.IntN(5)+1)
		wait := time.Duration(rng.IntN(200)) * time.Millisecond
		start := t + wait
		length := 100*time.Millisecond + time.Duration(rng.IntN(900))*time.Millisecond
		if i > 0 && rng.IntN(10) == 0 {
			start = h.Holds[i-1].Start + length/2 // overlaps the previous hold
		}
		end := start + length
		h.Holds = append(h.Holds, Hold{ID: i + 1, Client: client, Start: start, End: end, Token: uint64(i + 1), Lock: uint64(i)})
		h.Attempts = append(h.Attempts, Attempt{Client: client, Start: max(0, start-wait-10*time.Millisecond), End: start, OK: true})
		if rng.IntN(4) == 0 {
			h.Attempts = append(h.Attempts, Attempt{Client: "c9", Start: start, End: start + 2*length})
		}
		w := Write{Client: client, HoldID: i + 1, At: start + length/2, Element: uint64(i + 1), Accepted: rng.IntN(20) != 0}
		if !w.Accepted {
			w.Reason = "token too old"
		} else if rng.IntN(20) != 0 {
			h.Final = append(h.Final, w.Element)
		}
		h.Writes = append(h.Writes, w)
		for k, kind := range []string{"attempt", "acquired", "write", "released"} {
			h.Log = append(h.Log, Event{At: start + time.Duration(k)*length/3, Actor: client, Kind: kind})
		}
		t = max(t, end)
	}
	for _, a := range h.Attempts {
		h.End = max(h.End, a.End)
	}
	h.End = max(h.End, t)
	slices.SortStableFunc(h.Log, func(a, b Event) int { return int(a.At - b.At) })
	// Record holds out of order, as a simulator closing them would.
	rng.Shuffle(len(h.Holds), func(i, j int) { h.Holds[i], h.Holds[j] = h.Holds[j], h.Holds[i] })
	return h
}

func BenchmarkCheck(b *testing.B) {
	h := benchHistory(10_000)
	var r Report
	b.ReportAllocs()
	for b.Loop() {
		r = Check(h)
	}
	b.ReportMetric(float64(len(r.Violations)), "violations/op")
}
