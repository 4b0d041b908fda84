package estimate

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// comparable is a result without its timings, which no two processes share.
func comparable(r *Result) string {
	c := *r
	c.Elapsed, c.RunsPerSec, c.ShardFile, c.Dominant = 0, 0, nil, nil
	return fmt.Sprintf("%+v dominant %+v", c, r.Dominant)
}

// shardAndMerge makes every shard of opt's estimate, writes and reads back
// their files, and merges them; made is the runs the shards made in all.
func shardAndMerge(t *testing.T, opt Options, n int) (merged *Result, made int, files []*ShardFile) {
	t.Helper()
	for k := n; k >= 1; k-- { // any order
		o := opt
		o.Shard = sweep.Shard{K: k, N: n}
		o.Workers = 1 + k%2
		res := estimateOf(t, o)
		if res.ShardFile == nil {
			t.Fatalf("shard %d/%d wrote no shard file", k, n)
		}
		made += res.Runs
		var b bytes.Buffer
		if _, err := res.ShardFile.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		f, err := ReadShardFile(&b, fmt.Sprintf("shard%d", k))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	o := opt
	o.Merge = files
	return estimateOf(t, o), made, files
}

// A sharded estimate, merged, is the estimate one machine makes: for
// importance sampling (every shard learns the same tilt) and for plain
// Monte Carlo, with the budget cutting in and with the stopping rule
// stopping early; whether the shards make their projected share of the
// main phase or all of the budget. The projected share makes fewer runs
// where the estimate stops early.
func TestShardedAndMergedIsUnsharded(t *testing.T) {
	for _, c := range []struct {
		name    string
		method  string
		rel     float64
		maxRuns int
		shards  int
		stopped string
		sets    []string
	}{
		{"is stops at its rel-error", IS, 0.35, 16000, 3, "reached", nil},
		{"is at its budget", IS, 0.05, 2000, 2, "--max-runs reached", nil},
		{"mc stops at its rel-error", MC, 0.3, 8000, 4, "reached", []string{"clients.pauses.length.median=60ms"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := load(t, "pause-tail.toml", c.sets...)
			opt := quick(sc, Mutex, 7, c.rel)
			opt.Method, opt.MaxRuns, opt.Inputs = c.method, c.maxRuns, "test"
			opt.Pilot, opt.CERuns, opt.Chunk = 200, 300, 200
			one := estimateOf(t, opt)
			if !strings.Contains(one.Stopped, c.stopped) {
				t.Errorf("stopped %q; the case wants %q", one.Stopped, c.stopped)
			}
			merged, made, _ := shardAndMerge(t, opt, c.shards)
			if a, b := comparable(one), comparable(merged); a != b {
				t.Errorf("unsharded and merged differ:\n%s\n%s", a, b)
			}
			all := opt
			all.AllRuns = true
			mergedAll, madeAll, _ := shardAndMerge(t, all, c.shards)
			if a, b := comparable(one), comparable(mergedAll); a != b {
				t.Errorf("unsharded and merged with --all-runs differ:\n%s\n%s", a, b)
			}
			if c.stopped == "reached" && made >= madeAll {
				t.Errorf("the projected shares made %d runs, all of the budget %d", made, madeAll)
			}
			t.Logf("%s, %d runs: %.3g [%.3g, %.3g], stopped: %s; the shards made %d runs (%d with --all-runs)", one.Method, one.Runs, one.Probability, one.CILow, one.CIHigh, one.Stopped, made, madeAll)
		})
	}
}

// A merge whose estimate outruns where a shard's projection stopped it
// stops there and says so, naming the shard and --all-runs.
func TestMergeSaysTheShareWasOutrun(t *testing.T) {
	sc := load(t, "pause-tail.toml")
	opt := quick(sc, Mutex, 7, 0.35)
	opt.Method, opt.MaxRuns, opt.Inputs = IS, 30000, "test"
	opt.Pilot, opt.CERuns, opt.Chunk = 200, 300, 200
	_, _, files := shardAndMerge(t, opt, 2)
	// Cut shard 2/2 (files are in the order made: 2/2 first) before its
	// first chunk, as if its projection had stopped it there.
	f := files[0]
	f.Share, f.Runs = f.Chunk, nil
	o := opt
	o.Merge = files
	res := estimateOf(t, o)
	if !strings.Contains(res.Stopped, "shard 2/2 stopped where its runs projected") || !strings.Contains(res.Stopped, "--all-runs") || res.EstimateRuns != opt.Chunk {
		t.Errorf("stopped %q after %d runs, want shard 2/2's end (%d) named", res.Stopped, res.EstimateRuns, opt.Chunk)
	}
}

// A merge refuses shard files of another estimate, a shard given twice or
// missing; a shard stopped early leaves a gap the merge stops at, saying
// which shard.
func TestMergeRefusesOtherShards(t *testing.T) {
	sc := load(t, "pause-tail.toml")
	opt := quick(sc, Mutex, 7, 0.3)
	opt.MaxRuns, opt.Inputs = 1500, "test"
	opt.Pilot, opt.CERuns, opt.Chunk = 200, 300, 100
	shard := func(o Options, k, n int) *ShardFile {
		o.Shard = sweep.Shard{K: k, N: n}
		return estimateOf(t, o).ShardFile
	}
	a1, a2 := shard(opt, 1, 2), shard(opt, 2, 2)
	other := opt
	other.Seed = 8
	b2 := shard(other, 2, 2)
	for _, c := range []struct {
		files []*ShardFile
		opt   Options
		want  string
	}{
		{[]*ShardFile{a1, b2}, opt, "of different estimates"},
		{[]*ShardFile{a1, a1}, opt, "given twice"},
		{[]*ShardFile{a2}, opt, "shard 1/2 is missing"},
		{[]*ShardFile{a1, a2}, other, "of another estimate"},
	} {
		o := c.opt
		o.Merge = c.files
		if _, err := Estimate(context.Background(), o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
	cut := *a2
	cut.Runs, cut.Complete = cut.Runs[:50], false
	o := opt
	o.Merge = []*ShardFile{a1, &cut}
	res := estimateOf(t, o)
	if !strings.Contains(res.Stopped, "shard 2/2 stopped before run") {
		t.Errorf("stopped %q, want the gap named", res.Stopped)
	}
}

// A shard file reads back as it was written, and a damaged one is refused
// with its line.
func TestShardFileRoundTrip(t *testing.T) {
	f := &ShardFile{Shard: sweep.Shard{K: 2, N: 3}, Digest: "abc", Phase: IS, From: 0, Budget: 1200, Share: 900, Chunk: 100, Complete: false,
		Runs: []ShardRun{{Index: 100, Violated: true, Acq: 3, LogLR: -12.345678901234567, LogF: 1e-300}, {Index: 199, LogLR: 0.1}}}
	roundTripShardFile(t, f, []shardDamage{
		{"100,1,3", "150,1,3", ""},
		{"199,0", "200,0", "x:4: run 200 is not one of shard 2/3's runs"},
		{"shard=2/3", "shard=4/3", "x:1: malformed header"},
		{"share=900", "share=1300", "x:1: malformed header"},
		{"share=900", "share=100", "x:3: run 100 is not one of shard 2/3's runs"},
		{",0.1,", ",zero,", "x:4:"},
		{"# redlocksim estimate shard", "# redlocksim sweep", "not an estimate shard file"},
	})
}

// shardDamage replaces from by to in a written shard file; want is what
// the reader's error says ("" for a change it accepts).
type shardDamage struct{ from, to, want string }

// roundTripShardFile checks that f reads back as it was written, and that
// each damage to its text is refused (or accepted) as it says.
func roundTripShardFile(t *testing.T, f *ShardFile, damages []shardDamage) {
	t.Helper()
	var b bytes.Buffer
	f.WriteTo(&b)
	g, err := ReadShardFile(bytes.NewReader(b.Bytes()), "x")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", f) != fmt.Sprintf("%+v", g) {
		t.Errorf("wrote %+v, read %+v", f, g)
	}
	for _, c := range damages {
		bad := strings.Replace(b.String(), c.from, c.to, 1)
		_, err := ReadShardFile(strings.NewReader(bad), "x")
		if c.want == "" {
			if err != nil {
				t.Errorf("%q→%q: %v", c.from, c.to, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q→%q: want %q, got %v", c.from, c.to, c.want, err)
		}
	}
}
