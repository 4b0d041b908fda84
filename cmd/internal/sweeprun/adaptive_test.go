package sweeprun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/scenarios/sweep"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// adaptiveOpt samples testSpec's points adaptively: batches of 10, at
// most 120 seeds, stopping at an interval narrower than 0.25.
func adaptiveOpt(workers int) Options {
	return Options{Workers: workers, CIWidth: 0.25, MaxSeeds: 120, Batch: 10}
}

// TestAdaptiveSampling: the files are the same bytes for 1 and 2 workers;
// each point took whole batches and stopped exactly where the rule says,
// as recomputed from its raw rows; points differ in how many they took.
func TestAdaptiveSampling(t *testing.T) {
	spec := loadSpec(t, testSpec)
	want, wantRaw := sweepFiles(t, spec, t.TempDir(), adaptiveOpt(1))
	got, gotRaw := sweepFiles(t, spec, t.TempDir(), adaptiveOpt(2))
	require.Equal(t, string(want), string(got), "results, 1 and 2 workers")
	require.Equal(t, string(wantRaw), string(gotRaw), "raw, 1 and 2 workers")

	rows := readCSV(t, want)
	raw := readCSV(t, wantRaw)
	smp := sampling{per: 120, batch: 10, width: 0.25}
	seen := map[string]bool{}
	for _, row := range rows {
		n, err := strconv.Atoi(row["runs"])
		require.NoError(t, err)
		seen[row["runs"]] = true
		var violated []bool
		for _, r := range raw {
			if r["point"] == row["point"] {
				violated = append(violated, r["mutex_violations"] != "0")
			}
		}
		require.Len(t, violated, n, "point %s: raw rows", row["point"])
		require.True(t, n%10 == 0 || n == 120, "point %s took %d runs: whole batches", row["point"], n)
		k := 0
		for i, v := range violated {
			if v {
				k++
			}
			if (i+1)%10 == 0 {
				lo, hi := results.Wilson(k, i+1)
				stopHere := hi-lo < 0.25 || i+1 == 120
				require.Equal(t, i+1 == n, stopHere, "point %s: at %d runs (%d violating) the interval is %.3f wide", row["point"], i+1, k, hi-lo)
			}
		}
		require.Equal(t, strconv.Itoa(k), row["mutex_violation_runs"])
		require.True(t, smp.stop(k, n))
	}
	require.Greater(t, len(seen), 1, "every point took the same number of runs: the rule decides nothing here")

	// Fixed sampling is untouched: no sampling in the header or the journal.
	fixed, _ := sweepFiles(t, spec, t.TempDir(), Options{Workers: 2})
	require.NotEqual(t, string(fixed), string(want))
}

func TestAdaptiveResume(t *testing.T) {
	spec := loadSpec(t, testSpec)
	want, wantRaw := sweepFiles(t, spec, t.TempDir(), adaptiveOpt(2))
	for _, after := range []int{3, 25, 60} {
		t.Run(fmt.Sprint(after), func(t *testing.T) {
			dir := t.TempDir()
			opt := adaptiveOpt(2)
			opt.Out, opt.Raw = filepath.Join(dir, "results.csv"), filepath.Join(dir, "raw.csv")
			ctx, cancel := context.WithCancel(context.Background())
			opt.Progress = func(done, todo int) {
				if done >= after {
					cancel()
				}
			}
			sum, err := Run(ctx, spec, opt)
			require.ErrorIs(t, err, ErrInterrupted)
			opt.Progress = nil

			// Another width is another sweep: its journal is refused.
			other := opt
			other.CIWidth, other.Resume = 0.3, true
			_, err = Run(context.Background(), spec, other)
			var je *JournalError
			require.ErrorAs(t, err, &je)
			require.Contains(t, je.Msg, "ci_width=0.25")

			opt.Resume = true
			sum2, err := Run(context.Background(), spec, opt)
			require.NoError(t, err)
			require.Equal(t, sum.Ran, sum2.Resumed)
			got, _ := os.ReadFile(opt.Out)
			gotRaw, _ := os.ReadFile(opt.Raw)
			require.Equal(t, string(want), string(got))
			require.Equal(t, string(wantRaw), string(gotRaw))
		})
	}
}

func TestAdaptiveShardsMerge(t *testing.T) {
	spec := loadSpec(t, testSpec)
	want, wantRaw := sweepFiles(t, spec, t.TempDir(), adaptiveOpt(2))
	dir := t.TempDir()
	var res, raw []string
	for k := 1; k <= 3; k++ {
		d := filepath.Join(dir, fmt.Sprint(k))
		require.NoError(t, os.Mkdir(d, 0o755))
		opt := adaptiveOpt(2)
		opt.Shard = sweep.Shard{K: k, N: 3}
		r, _ := sweepFiles(t, spec, d, opt)
		require.True(t, strings.HasPrefix(string(r), fmt.Sprintf("# redlocksim sweep spec=%s shard=%d/3 points=8 seeds=120 ci_width=0.25 batch=10 file=results\n", spec.Hash(), k)), string(r))
		res = append(res, filepath.Join(d, "results.csv"))
		raw = append(raw, filepath.Join(d, "raw.csv"))
	}
	out := filepath.Join(dir, "merged.csv")
	require.NoError(t, Merge(out, res))
	got, _ := os.ReadFile(out)
	require.Equal(t, string(want), string(got))
	require.NoError(t, Merge(out, raw))
	got, _ = os.ReadFile(out)
	require.Equal(t, string(wantRaw), string(got))

	// A shard sampled another way is not merged in.
	d := filepath.Join(dir, "other")
	require.NoError(t, os.Mkdir(d, 0o755))
	opt := adaptiveOpt(2)
	opt.CIWidth, opt.Shard = 0.3, sweep.Shard{K: 3, N: 3}
	sweepFiles(t, spec, d, opt)
	err := Merge(filepath.Join(dir, "bad.csv"), []string{res[0], res[1], filepath.Join(d, "results.csv")})
	var me *MergeError
	require.ErrorAs(t, err, &me)
	require.Contains(t, me.Msg, "were sampled differently")
	_, err = os.Stat(filepath.Join(dir, "bad.csv"))
	require.True(t, errors.Is(err, os.ErrNotExist))
}
