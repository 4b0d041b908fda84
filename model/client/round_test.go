package client

import (
	"testing"

	"pgregory.net/rapid"
)

// A tag gives back what it packed for every purpose, every node index up to
// allNodes and every generation that fits; the index never leaks into the
// purpose or the generation, which is how 257 nodes used to break.
func TestTagRoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := purpose(rapid.IntRange(int(pLock), int(tOpTimeout)).Draw(t, "purpose"))
		gen := rapid.Uint64Range(0, 1<<genBits-1).Draw(t, "gen")
		idx := rapid.IntRange(0, allNodes).Draw(t, "idx")
		gp, ggen, gidx := untag(tag(p, gen, idx))
		if gp != p || ggen != gen || gidx != idx {
			t.Fatalf("untag(tag(%d, %d, %d)) = %d, %d, %d", p, gen, idx, gp, ggen, gidx)
		}
	})
}

func TestTagRefusesWhatDoesNotFit(t *testing.T) {
	for _, c := range []struct {
		gen uint64
		idx int
	}{{1 << genBits, 0}, {0, allNodes + 1}, {0, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("tag(pLock, %d, %d) did not panic", c.gen, c.idx)
				}
			}()
			tag(pLock, c.gen, c.idx)
		}()
	}
}

// A round counts each node once; a timeout covers only the nodes still
// waiting, and a closed round takes nothing more.
func TestRoundCountsEachNodeOnce(t *testing.T) {
	r := newRound(5)
	r.begin(7, 0)
	r.record(0, true)
	r.record(3, false)
	if r.awaits(7, 0) || !r.awaits(7, 1) || r.awaits(6, 1) {
		t.Fatalf("awaits: answered node 0 or stale generation 6 still awaited, or waiting node 1 not")
	}
	var timedOut []int
	r.timedOut(7, allNodes, func(i int) { timedOut = append(timedOut, i); r.record(i, false) })
	if len(timedOut) != 3 || timedOut[0] != 1 || timedOut[1] != 2 || timedOut[2] != 4 {
		t.Fatalf("timed out %v, want [1 2 4]", timedOut)
	}
	if !r.complete() || r.oks != 1 || r.refusals != 4 {
		t.Fatalf("complete %v, oks %d, refusals %d; want true, 1, 4", r.complete(), r.oks, r.refusals)
	}
	r.begin(8, 0)
	r.only(2)
	if r.answered != 4 || !r.awaits(8, 2) {
		t.Fatalf("only(2): answered %d, awaits node 2 %v; want 4, true", r.answered, r.awaits(8, 2))
	}
	r.close()
	if r.awaits(8, 2) || r.awaits(0, 2) {
		t.Fatal("a closed round still awaits a reply")
	}
}
