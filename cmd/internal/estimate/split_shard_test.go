package estimate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// splitComparable is comparable with what splitting adds by value: its
// SplitInfo and the dominant path's alternatives (pointers).
func splitComparable(r *Result) string {
	info := fmt.Sprintf("%+v", *r.Splitting)
	q := *r
	q.Splitting = nil
	r = &q
	var alts []string
	if d := r.Dominant; d != nil {
		for _, a := range d.alts {
			alts = append(alts, fmt.Sprintf("%+v", *a))
		}
		c := *d
		c.alts = nil
		q := *r
		q.Dominant = &c
		r = &q
	}
	return comparable(r) + " splitting " + info + " alternatives " + strings.Join(alts, "; ")
}

// A sharded splitting estimate, merged, is the estimate one machine
// makes: its repetitions, budget and stopping rule, its dominant path and
// the alternatives Pin would try; with the stopping rule stopping it and
// with the budget cutting a repetition short.
func TestSplittingShardedAndMergedIsUnsharded(t *testing.T) {
	sc := load(t, "closed-form.toml", "clients.client[0].pauses.length.median=25ms")
	for _, c := range []struct {
		name    string
		rel     float64
		maxRuns int
		shards  int
		stopped string
	}{
		{"stops at its rel-error", 0.3, 15000, 3, "reached"},
		{"at its budget", 0.05, 3000, 2, "--max-runs reached"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := splitQuick(quick(sc, Mutex, 7, c.rel))
			opt.Particles, opt.MaxRuns, opt.Inputs = 20, c.maxRuns, "test"
			one := estimateOf(t, opt)
			if one.Method != Splitting || !strings.Contains(one.Stopped, c.stopped) {
				t.Errorf("%s, stopped %q; the case wants splitting, %q", one.Method, one.Stopped, c.stopped)
			}
			merged, _, _ := shardAndMerge(t, opt, c.shards)
			if a, b := splitComparable(one), splitComparable(merged); a != b {
				t.Errorf("unsharded and merged differ:\n%s\n%s", a, b)
			}
			t.Logf("%d runs, %d repetitions: %.3g [%.3g, %.3g], stopped: %s", one.Runs, one.Splitting.Repetitions, one.Probability, one.CILow, one.CIHigh, one.Stopped)
		})
	}
}

// A splitting shard file reads back as it was written; a damaged one is
// refused with its line; a shard cut short leaves a gap the merge names.
func TestSplittingShardFile(t *testing.T) {
	f := &ShardFile{Shard: sweep.Shard{K: 2, N: 3}, Digest: "abc", Phase: Splitting, Budget: 9000, Chunk: 1, Complete: true,
		Reps: []ShardRep{
			{Index: 1, P: 0.0012345678901234567, Hits: 18, Spends: []int{20, 2, 3}, PlainHits: []int{4}, Mildest: []float64{1.5e8, 2e8}, Pos: []int{3, 0}},
			{Index: 4, P: 0, Spends: []int{20, 2}},
		}}
	roundTripShardFile(t, f, []shardDamage{
		{"\n4,", "\n5,", "x:4: repetition 5 is not one of shard 2/3's"},
		{"1.5e+08:3", "1.5e+08", "x:3: candidate"},
		{",18,", ",-1,", "x:3:"},
	})

	sc := load(t, "closed-form.toml", "clients.client[0].pauses.length.median=25ms")
	opt := splitQuick(quick(sc, Mutex, 7, 0.3))
	opt.Particles, opt.MaxRuns, opt.Inputs = 20, 4000, "test"
	var files []*ShardFile
	for k := 1; k <= 2; k++ {
		o := opt
		o.Shard = sweep.Shard{K: k, N: 2}
		files = append(files, estimateOf(t, o).ShardFile)
	}
	cut := *files[1]
	cut.Reps, cut.Complete = cut.Reps[:2], false
	o := opt
	o.Merge = []*ShardFile{files[0], &cut}
	if res := estimateOf(t, o); !strings.Contains(res.Stopped, "shard 2/2 stopped before repetition 5") {
		t.Errorf("stopped %q, want the gap named", res.Stopped)
	}
}
