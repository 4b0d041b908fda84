package sweeprun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

func TestOutputThroughSymlinkKeepsTheLink(t *testing.T) {
	spec := loadSpec(t, testSpec)
	want, _ := sweepFiles(t, spec, t.TempDir(), Options{Workers: 2})

	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "store"), 0o755))
	target := filepath.Join(dir, "store", "r.csv")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o644))
	link := filepath.Join(dir, "results.csv")
	require.NoError(t, os.Symlink("store/r.csv", link))
	sum, err := Run(context.Background(), spec, Options{Out: link, Workers: 2})
	require.NoError(t, err)
	require.Empty(t, sum.Direct)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.Equal(t, os.ModeSymlink, fi.Mode().Type(), "--out onto a symlink must keep the symlink")
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "the results go to the link's target")
}

func TestOutputToDevNullKeepsTheDevice(t *testing.T) {
	spec := loadSpec(t, testSpec)
	before, err := os.Stat(os.DevNull)
	require.NoError(t, err)
	// The journal sits beside the output, and /dev is not ours to write:
	// a link in a temporary directory points at /dev/null.
	link := filepath.Join(t.TempDir(), "out.csv")
	require.NoError(t, os.Symlink(os.DevNull, link))
	sum, err := Run(context.Background(), spec, Options{Out: link, Workers: 2})
	require.NoError(t, err)
	require.Equal(t, []string{link}, sum.Direct, "a write into a device is reported as direct")
	after, err := os.Stat(os.DevNull)
	require.NoError(t, err)
	require.True(t, os.SameFile(before, after) && after.Mode()&os.ModeDevice != 0, "/dev/null is still the device")
}

func TestJournalIsLockedWhileASweepUsesIt(t *testing.T) {
	spec := loadSpec(t, testSpec)
	out := filepath.Join(t.TempDir(), "results.csv")
	ctx, cancel := context.WithCancel(context.Background())
	var second error
	opt := Options{Out: out, Workers: 1}
	opt.Progress = func(done, todo int) {
		if done == 2 {
			// While the first sweep holds its journal, a second one on the
			// same output, with --resume, must be turned away.
			_, second = Run(context.Background(), spec, Options{Out: out, Workers: 1, Resume: true})
			cancel()
		}
	}
	_, err := Run(ctx, spec, opt)
	require.ErrorIs(t, err, ErrInterrupted)
	var je *JournalError
	require.ErrorAs(t, second, &je)
	require.Contains(t, je.Msg, "another sweep or hunt is using this journal")

	// Once the first has let go, --resume continues it.
	_, err = Run(context.Background(), spec, Options{Out: out, Workers: 2, Resume: true})
	require.NoError(t, err)
}

func TestPanickingRunIsAnInternalErrorWithItsSeed(t *testing.T) {
	spec := loadSpec(t, testSpec)
	bad := spec.RunSeed(spec.Point(3), 2)
	defer func(f func(*model.Plan, uint64, uint64) (model.Result, error)) { runFast = f }(runFast)
	runFast = func(plan *model.Plan, seed, maxEvents uint64) (model.Result, error) {
		if seed == bad {
			panic("injected")
		}
		return plan.RunFastWithin(seed, maxEvents)
	}
	_, err := Run(context.Background(), spec, Options{Out: filepath.Join(t.TempDir(), "r.csv"), Workers: 2})
	var ie *InternalError
	require.True(t, errors.As(err, &ie), "got %v", err)
	require.Equal(t, bad, ie.Seed)
	require.Equal(t, "injected", ie.Value)
	require.Contains(t, ie.Replay, "redlocksim run ")
	require.Contains(t, ie.Replay, "--seed ")
	require.NotEmpty(t, ie.Stack)
}

func TestMergeRefusesAnOutputThatIsAnInput(t *testing.T) {
	spec := loadSpec(t, testSpec)
	dir := t.TempDir()
	var shards []string
	for k := 1; k <= 2; k++ {
		d := filepath.Join(dir, fmt.Sprint(k))
		require.NoError(t, os.Mkdir(d, 0o755))
		sweepFiles(t, spec, d, Options{Workers: 2, Shard: sweep.Shard{K: k, N: 2}})
		shards = append(shards, filepath.Join(d, "results.csv"))
	}
	before, err := os.ReadFile(shards[1])
	require.NoError(t, err)
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink(shards[1], link))
	for _, out := range []string{shards[1], filepath.Join(dir, "2", ".", "results.csv"), link} {
		err := Merge(out, shards)
		var me *MergeError
		require.ErrorAs(t, err, &me, "out %s", out)
		require.Contains(t, me.Msg, "is also an input")
		after, err := os.ReadFile(shards[1])
		require.NoError(t, err)
		require.Equal(t, string(before), string(after), "the shard is untouched")
	}
}

// TestMergeRefusesDamagedCells: merge checks every cell of the sweep's
// own columns by its kind and range, and names the file, line and column.
func TestMergeRefusesDamagedCells(t *testing.T) {
	spec := loadSpec(t, testSpec)
	dir := t.TempDir()
	var res, raw []string
	for k := 1; k <= 2; k++ {
		d := filepath.Join(dir, fmt.Sprint(k))
		require.NoError(t, os.Mkdir(d, 0o755))
		sweepFiles(t, spec, d, Options{Workers: 2, Shard: sweep.Shard{K: k, N: 2}})
		res = append(res, filepath.Join(d, "results.csv"))
		raw = append(raw, filepath.Join(d, "raw.csv"))
	}
	// damage sets column col of the first data row (line 3) of a copy of
	// file to cell.
	damage := func(file, col, cell string) string {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		lines := strings.Split(string(data), "\n")
		header := strings.Split(lines[1], ",")
		row := strings.Split(lines[2], ",")
		i := slices.Index(header, col)
		require.GreaterOrEqual(t, i, 0, "column %s", col)
		row[i] = cell
		lines[2] = strings.Join(row, ",")
		out := filepath.Join(t.TempDir(), "shard.csv")
		require.NoError(t, os.WriteFile(out, []byte(strings.Join(lines, "\n")), 0o644))
		return out
	}
	out := filepath.Join(dir, "out.csv")
	for _, c := range []struct {
		files    []string
		col, bad string
		msg      string
	}{
		{res, "mutex_violation_rate", "5", "must be a fraction of runs, from 0 to 1, got 5"},
		{res, "mutex_ci_low", "-1", `must be a fraction of runs, from 0 to 1 written as a sweep writes it (0.05), got "-1"`},
		{res, "runs", "0x10", `must be a count, a whole number from 0 written as a sweep writes it (12), got "0x10"`},
		{res, "runs", "-0", `got "-0"`},
		{res, "mutex_overlap_ms_mean", "1e308", `got "1e308"`},
		{res, "runs", "", "is empty; it must be a count"},
		{raw, "lost_updates", "1.5", `got "1.5"`},
		{raw, "seed", "18446744073709551616", "must be a seed"},
	} {
		bad := damage(c.files[0], c.col, c.bad)
		err := Merge(out, []string{bad, c.files[1]})
		var me *MergeError
		require.ErrorAs(t, err, &me, "%s=%q", c.col, c.bad)
		require.Contains(t, me.Msg, bad+":3: column "+c.col+" ", "%s=%q", c.col, c.bad)
		require.Contains(t, me.Msg, c.msg)
		_, err = os.Stat(out)
		require.True(t, os.IsNotExist(err), "nothing written for %s=%q", c.col, c.bad)
	}
}

// TestTruncatedJournalHeader: a journal cut short inside its header was
// reported as belonging to another sweep; it says it is cut short.
func TestTruncatedJournalHeader(t *testing.T) {
	spec := loadSpec(t, testSpec)
	dir := t.TempDir()
	out := filepath.Join(dir, "results.csv")
	require.NoError(t, os.WriteFile(JournalPath(out), []byte("redlocksim sweep spec=0123"), 0o644))
	_, err := Run(context.Background(), spec, Options{Out: out, Workers: 1, Resume: true})
	var je *JournalError
	require.ErrorAs(t, err, &je)
	require.Equal(t, JournalPath(out)+": is cut short: 26 bytes, less than its 256-byte header; it cannot be resumed: remove it to start again", err.Error())
}
