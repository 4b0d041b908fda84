package sweeprun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// testSpec is a small sweep with violations at some points: short runs,
// random pauses, explicit points crossed with two axes.
const testSpec = `name = "small"
seeds = 4

[[points]]
resource.mode = "unprotected"

[[points]]
resource.mode = "fencing"
resource.tokens = "incr"

[axes]
lock.ttl = ["500ms", "2s"]
clients.pauses.length.median = ["20ms", "400ms"]

[base]
duration = "10s"
[base.lock]
ttl = "2s"
[base.workload]
critical_section = "300ms"
[base.clients]
count = 3
pauses = { every = "2s", length = { kind = "lognormal", median = "50ms", sigma = 1 } }
`

func loadSpec(t testing.TB, src string) *sweep.Spec {
	t.Helper()
	s, err := sweep.Parse("small.toml", []byte(src))
	require.NoError(t, err)
	return s
}

// sweepFiles runs spec into dir and returns the results and raw files.
func sweepFiles(t testing.TB, spec *sweep.Spec, dir string, opt Options) (results, raw []byte) {
	t.Helper()
	opt.Out = filepath.Join(dir, "results.csv")
	opt.Raw = filepath.Join(dir, "raw.csv")
	_, err := Run(context.Background(), spec, opt)
	require.NoError(t, err)
	results, err = os.ReadFile(opt.Out)
	require.NoError(t, err)
	raw, err = os.ReadFile(opt.Raw)
	require.NoError(t, err)
	_, err = os.Stat(JournalPath(opt.Out))
	require.True(t, errors.Is(err, os.ErrNotExist), "the journal is removed at the end")
	return results, raw
}

func TestWorkerInvariance(t *testing.T) {
	spec := loadSpec(t, testSpec)
	want, wantRaw := sweepFiles(t, spec, t.TempDir(), Options{Workers: 1})
	for _, w := range []int{2, 4} {
		got, gotRaw := sweepFiles(t, spec, t.TempDir(), Options{Workers: w})
		require.Equal(t, string(want), string(got), "workers=%d", w)
		require.Equal(t, string(wantRaw), string(gotRaw), "workers=%d", w)
	}
	lines := strings.Split(strings.TrimSpace(string(want)), "\n")
	require.Len(t, lines, 1+spec.NumPoints())
	require.Equal(t, "point,resource.mode,resource.tokens,lock.ttl,lock.ttl_s,clients.pauses.length.median,clients.pauses.length.median_s,"+
		strings.Join(ResultColumns, ",")+","+strings.Join(RateColumns, ","), lines[0], "a duration key has its seconds beside it")
	// The unprotected points leave resource.tokens to the base, which does
	// not give it (the model's default): empty. Every point gives its
	// lock.ttl and its median, in seconds too.
	require.True(t, strings.HasPrefix(lines[1], "0,unprotected,,500ms,0.5,20ms,0.02,"), lines[1])
	require.True(t, strings.HasPrefix(lines[5], "4,fencing,incr,500ms,0.5,20ms,0.02,"), lines[5])
	require.Len(t, strings.Split(strings.TrimSpace(string(wantRaw)), "\n"), 1+spec.Runs())
	// The sweep finds something: some points violate, some do not.
	var rates []string
	for _, l := range lines[1:] {
		rates = append(rates, strings.Split(l, ",")[9])
	}
	require.Contains(t, rates, "0")
	require.NotEqual(t, []string{"0", "0", "0", "0", "0", "0", "0", "0"}, rates)
}

// TestResume: a sweep interrupted after some runs and resumed writes the
// bytes of an uninterrupted one, also when the journal's last slot was
// half written or a slot is corrupt.
func TestResume(t *testing.T) {
	spec := loadSpec(t, testSpec)
	want, wantRaw := sweepFiles(t, spec, t.TempDir(), Options{Workers: 2})
	for _, c := range []struct {
		name   string
		after  int
		damage func(t *testing.T, journal string)
	}{
		{"cancel", 5, nil},
		{"cancel at once", 0, nil},
		{"half-written slot", 9, func(t *testing.T, j string) {
			fi, err := os.Stat(j)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(j, fi.Size()-slotSize/2))
		}},
		{"corrupt slot", 9, func(t *testing.T, j string) {
			f, err := os.OpenFile(j, os.O_RDWR, 0)
			require.NoError(t, err)
			defer f.Close()
			// The first slot that holds a run (runs finish in any order).
			b := make([]byte, slotSize)
			i := 0
			for ; ; i++ {
				_, err := f.ReadAt(b, headerSize+int64(i)*slotSize)
				require.NoError(t, err, "no finished run in the journal")
				if _, ok := decode(i, b); ok {
					break
				}
			}
			_, err = f.WriteAt([]byte{0xff}, headerSize+int64(i)*slotSize+40)
			require.NoError(t, err)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			opt := Options{Out: filepath.Join(dir, "results.csv"), Raw: filepath.Join(dir, "raw.csv"), Workers: 2}
			ctx, cancel := context.WithCancel(context.Background())
			if c.after == 0 {
				cancel()
			}
			opt.Progress = func(done, todo int) {
				if done >= c.after {
					cancel()
				}
			}
			sum, err := Run(ctx, spec, opt)
			require.ErrorIs(t, err, ErrInterrupted)
			require.Less(t, sum.Ran, spec.Runs())
			require.GreaterOrEqual(t, sum.Ran, c.after)
			_, err = os.Stat(opt.Out)
			require.True(t, errors.Is(err, os.ErrNotExist), "no results file before the end")
			if c.damage != nil {
				c.damage(t, JournalPath(opt.Out))
			}

			opt.Progress = nil
			if sum.Ran == 0 {
				// Stopped before any run was kept: no journal to resume
				// or to block the next sweep.
				_, err = os.Stat(JournalPath(opt.Out))
				require.True(t, errors.Is(err, os.ErrNotExist), "a sweep that kept nothing leaves no journal")
			} else {
				// Without --resume the journal is not overwritten.
				_, err = Run(context.Background(), spec, opt)
				var je *JournalError
				require.ErrorAs(t, err, &je)
				require.Contains(t, err.Error(), "give --resume")
			}

			opt.Resume = true
			sum2, err := Run(context.Background(), spec, opt)
			require.NoError(t, err)
			require.Equal(t, spec.Runs(), sum2.Resumed+sum2.Ran)
			if c.damage == nil {
				require.Equal(t, sum.Ran, sum2.Resumed)
			} else {
				require.Equal(t, sum.Ran-1, sum2.Resumed, "the damaged slot is made again")
			}
			got, err := os.ReadFile(opt.Out)
			require.NoError(t, err)
			gotRaw, err := os.ReadFile(opt.Raw)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got))
			require.Equal(t, string(wantRaw), string(gotRaw))
		})
	}
}

// TestResumeOtherSpec: a journal of another sweep (another --seeds here)
// is refused, not mixed in.
func TestResumeOtherSpec(t *testing.T) {
	spec := loadSpec(t, testSpec)
	dir := t.TempDir()
	opt := Options{Out: filepath.Join(dir, "results.csv"), Workers: 1}
	ctx, cancel := context.WithCancel(context.Background())
	opt.Progress = func(int, int) { cancel() }
	_, err := Run(ctx, spec, opt)
	require.ErrorIs(t, err, ErrInterrupted)
	other := loadSpec(t, strings.Replace(testSpec, "seeds = 4", "seeds = 5", 1))
	opt.Progress, opt.Resume = nil, true
	_, err = Run(context.Background(), other, opt)
	var je *JournalError
	require.ErrorAs(t, err, &je)
	require.Contains(t, err.Error(), "belongs to another sweep")
	_, err = Run(context.Background(), spec, Options{Out: opt.Out, Resume: true, Shard: sweep.Shard{K: 1, N: 2}})
	require.ErrorAs(t, err, &je, "another shard is another sweep")
}

// TestShardsMerge: the shards' files, merged, are the one-machine files;
// and merge refuses what it cannot merge.
func TestShardsMerge(t *testing.T) {
	spec := loadSpec(t, testSpec)
	want, wantRaw := sweepFiles(t, spec, t.TempDir(), Options{Workers: 2})
	for _, n := range []int{1, 3, 10} { // 10 shards: some have no point
		dir := t.TempDir()
		var res, raw []string
		for k := n; k >= 1; k-- {
			d := filepath.Join(dir, fmt.Sprint(k))
			require.NoError(t, os.Mkdir(d, 0o755))
			r, rr := sweepFiles(t, spec, d, Options{Workers: 2, Shard: sweep.Shard{K: k, N: n}})
			require.True(t, strings.HasPrefix(string(r), fmt.Sprintf("# redlocksim sweep spec=%s shard=%d/%d points=8 seeds=4 file=results\n", spec.Hash(), k, n)))
			require.True(t, strings.HasPrefix(string(rr), fmt.Sprintf("# redlocksim sweep spec=%s shard=%d/%d points=8 seeds=4 file=raw\n", spec.Hash(), k, n)))
			res = append(res, filepath.Join(d, "results.csv"))
			raw = append(raw, filepath.Join(d, "raw.csv"))
		}
		out := filepath.Join(dir, "merged.csv")
		require.NoError(t, Merge(out, res))
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%d shards", n)
		require.NoError(t, Merge(out, raw))
		got, err = os.ReadFile(out)
		require.NoError(t, err)
		require.Equal(t, string(wantRaw), string(got), "%d shards, raw", n)
	}

	// Three shards to refuse with.
	dir := t.TempDir()
	shard := func(name string, s *sweep.Spec, k, n int) (string, string) {
		d := filepath.Join(dir, name)
		require.NoError(t, os.Mkdir(d, 0o755))
		sweepFiles(t, s, d, Options{Workers: 2, Shard: sweep.Shard{K: k, N: n}})
		return filepath.Join(d, "results.csv"), filepath.Join(d, "raw.csv")
	}
	s1, r1 := shard("a", spec, 1, 3)
	s2, _ := shard("b", spec, 2, 3)
	s3, _ := shard("c", spec, 3, 3)
	o3, _ := shard("d", loadSpec(t, strings.Replace(testSpec, "seeds = 4", "seeds = 3", 1)), 3, 3)
	q3, _ := shard("e", spec, 3, 4)
	full := filepath.Join(dir, "full.csv")
	require.NoError(t, os.WriteFile(full, want, 0o644))
	trunc := filepath.Join(dir, "trunc.csv")
	data, err := os.ReadFile(s3)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(trunc, data[:bytes.LastIndexByte(data[:len(data)-1], '\n')+1], 0o644))
	extra := filepath.Join(dir, "extra.csv")
	require.NoError(t, os.WriteFile(extra, append(data, data[bytes.LastIndexByte(data[:len(data)-1], '\n')+1:]...), 0o644))
	out := filepath.Join(dir, "out.csv")
	for _, c := range []struct {
		name   string
		inputs []string
		msg    string
	}{
		{"missing", []string{s1, s3}, "shard 2/3 missing"},
		{"duplicate", []string{s1, s2, s2, s3}, "shard 2/3 is given twice"},
		{"other spec", []string{s1, s2, o3}, "shards of different sweeps"},
		{"other count", []string{s1, s2, q3}, "the shard counts differ"},
		{"mixed kinds", []string{s1, s2, r1}, "merge results files and raw files separately"},
		{"not a shard file", []string{s1, s2, full}, "not a shard file"},
		{"truncated", []string{s1, s2, trunc}, "the shard file is incomplete"},
		{"extra rows", []string{s1, s2, extra}, "rows after its last point"},
		{"nothing", nil, "no shard files"},
	} {
		err := Merge(out, c.inputs)
		var me *MergeError
		require.ErrorAs(t, err, &me, c.name)
		require.ErrorContains(t, err, c.msg, c.name)
		_, err = os.Stat(out)
		require.True(t, errors.Is(err, os.ErrNotExist), "%s: no output on refusal", c.name)
	}
}

func TestNum(t *testing.T) {
	for f, want := range map[float64]string{0.2775328: "0.277533", 0: "0", 1: "1", 0.05: "0.05", 1.0 / 3: "0.333333", 123.4567891: "123.456789", -1e-9: "0", 2.5e6: "2500000"} {
		require.Equal(t, want, num(f), "%v", f)
	}
}

func TestJournalSlots(t *testing.T) {
	r := record{Seed: 1<<62 + 5, MutexViolations: 2, MutexOverlap: 123456789, LostUpdates: 3, AcquireP99: -1, LongestOutage: math.MaxInt64}
	var b [slotSize]byte
	r.encode(17, &b)
	got, ok := decode(17, b[:])
	require.True(t, ok)
	require.Equal(t, r, got)
	_, ok = decode(18, b[:])
	require.False(t, ok, "a slot at the wrong place")
	for i := range slotSize {
		c := b
		c[i] ^= 0x10
		_, ok := decode(17, c[:])
		require.False(t, ok, "a flipped bit at byte %d", i)
	}
	_, ok = decode(0, make([]byte, slotSize))
	require.False(t, ok, "zeros")
}
