package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/scenarios"
)

// smallSweep is a sweep spec with an inline base: 4 points of short runs.
const smallSweep = `name = "small"
seeds = 3

[axes]
lock.ttl = ["500ms", "2s"]
resource.mode = ["unprotected", "compare-and-set"]

[base]
duration = "10s"
[base.lock]
ttl = "2s"
[base.workload]
critical_section = "300ms"
[base.clients]
count = 3
pauses = { every = "2s", length = { kind = "lognormal", median = "200ms", sigma = 1 } }
`

func writeSpec(t *testing.T, src string) (dir, spec string) {
	t.Helper()
	dir = t.TempDir()
	spec = filepath.Join(dir, "small.toml")
	require.NoError(t, os.WriteFile(spec, []byte(src), 0o644))
	return dir, spec
}

func TestSweepCommand(t *testing.T) {
	dir, spec := writeSpec(t, smallSweep)
	out, raw := filepath.Join(dir, "r.csv"), filepath.Join(dir, "raw.csv")
	code, stdout, stderr := runCLI("sweep", spec, "--out", out, "--raw", raw, "--workers", "2", "--seeds", "2")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout)
	require.Regexp(t, `^sweep small: 8 runs to make on 2 workers: about [0-9.]+[mµ]?s \([0-9.]+[mµ]?s a run, timed over 8 runs\)\n`+
		`sweep small: 4 points × 2 seeds = 8 runs in [0-9.]+m?s, [0-9.]+ runs/s; wrote .*r\.csv and .*raw\.csv\n$`, stderr)
	rows := readCSV(t, out)
	require.Len(t, rows, 5)
	require.Equal(t, []string{"point", "lock.ttl", "lock.ttl_s", "resource.mode", "runs"}, rows[0][:5])
	require.Equal(t, []string{"3", "2s", "2", "compare-and-set", "2"}, rows[4][:5])
	require.Len(t, readCSV(t, raw), 9)

	// Flags may come first; the same sweep gives the same bytes.
	out2 := filepath.Join(dir, "r2.csv")
	code, _, stderr = runCLI("sweep", "--seeds", "2", "--out", out2, "--workers", "1", spec)
	require.Equal(t, 0, code, stderr)
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(out2)
	require.Equal(t, string(a), string(b))
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	require.NoError(t, err)
	return rows
}

func TestSweepBadInput(t *testing.T) {
	dir, spec := writeSpec(t, strings.Replace(smallSweep, "lock.ttl = [", "lock.tll = [", 1))
	_, good := writeSpec(t, smallSweep)
	out := filepath.Join(dir, "r.csv")
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	t.Setenv("JOB_COMPLETION_INDEX", "")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{spec, "--out", out}, spec + `:5: lock.tll: unknown key; did you mean "ttl"?`},
		{[]string{"no-such-sweep", "--out", out}, `no built-in sweep is called "no-such-sweep"`},
		{[]string{filepath.Join(dir, "missing.toml"), "--out", out}, "no such file"},
		{[]string{good}, "--out is required"},
		{nil, "want one sweep"},
		{[]string{good, good, "--out", out}, "want one sweep"},
		{[]string{good, "--out", out, "--seeds", "-1"}, "--seeds must be between 1"},
		{[]string{good, "--out", out, "--workers", "0"}, "--workers must be between 1 and 1024"},
		{[]string{good, "--out", out, "--shard", "0/3"}, "K counts from 1"},
		{[]string{good, "--out", out, "--shard", "auto"}, "neither SLURM_ARRAY_TASK_ID"},
		{[]string{good, "--out", out, "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{good, "--out", out, "--raw", out}, "--out and --raw name the same file"},
		{[]string{good, "--out", filepath.Join(dir, "no", "r.csv")}, "no directory"},
	} {
		code, _, stderr := runCLI(append([]string{"sweep"}, c.args...)...)
		require.Equal(t, 2, code, "%v: %s", c.args, stderr)
		require.Contains(t, stderr, c.msg, "%v", c.args)
	}
	code, _, _ := runCLI("sweep", "-h")
	require.Equal(t, 0, code)
}

func TestSweepList(t *testing.T) {
	code, stdout, stderr := runCLI("sweep", "--list")
	require.Equal(t, 0, code, stderr)
	for _, name := range scenarios.SweepNames() {
		require.Contains(t, stdout, name+" ")
	}
	require.Contains(t, stdout, "ttl-vs-drift    25 points × 400 seeds  Redlock with random GC pauses")
}

func TestSweepPrintBase(t *testing.T) {
	_, spec := writeSpec(t, smallSweep)
	code, stdout, stderr := runCLI("sweep", spec, "--print-base")
	require.Equal(t, 0, code, stderr)
	s, err := scenarios.Parse("small.base.toml", []byte(stdout))
	require.NoError(t, err, stdout)
	require.Equal(t, "small", s.Name)
	require.Equal(t, 2*time.Second, s.Config.Lock.TTL)
	for _, name := range scenarios.SweepNames() {
		code, stdout, stderr := runCLI("sweep", name, "--print-base")
		require.Equal(t, 0, code, stderr)
		_, err := scenarios.Parse(name+".base.toml", []byte(stdout))
		require.NoError(t, err, name)
	}
}

func TestSweepProgressBar(t *testing.T) {
	old := isTerminal
	isTerminal = func(io.Writer) bool { return true }
	defer func() { isTerminal = old }()
	dir, spec := writeSpec(t, smallSweep)
	code, _, stderr := runCLI("sweep", spec, "--out", filepath.Join(dir, "r.csv"), "--seeds", "2")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "sweep small")
	require.Contains(t, stderr, "8/8")
	require.Contains(t, stderr, "runs/s")
	require.Contains(t, stderr, "wrote ")
}

// TestSweepInterruptAndResume: a signal stops the sweep with the status a
// shell gives a command it killed (128 + its number) and the journal kept; --resume finishes it with the bytes of an
// uninterrupted sweep.
func TestSweepInterruptAndResume(t *testing.T) {
	old := interruptSignals
	interruptSignals = []os.Signal{syscall.SIGUSR1}
	defer func() { interruptSignals = old }()
	dir, spec := writeSpec(t, smallSweep)
	want := filepath.Join(dir, "want.csv")
	code, _, stderr := runCLI("sweep", spec, "--out", want, "--seeds", "150")
	require.Equal(t, 0, code, stderr)

	out := filepath.Join(dir, "r.csv")
	go func() {
		// Once the journal exists, the sweep is under way.
		for range 2000 {
			if _, err := os.Stat(sweeprun.JournalPath(out)); err == nil {
				break
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	}()
	code, _, stderr = runCLI("sweep", spec, "--out", out, "--seeds", "150")
	if code == 0 {
		t.Skip("the sweep finished before the signal")
	}
	require.Equal(t, 128+int(syscall.SIGUSR1), code, stderr)
	require.Regexp(t, `sweep small interrupted: \d+ of 600 runs done, kept in .*r\.csv\.partial; run the same command with --resume to continue`, stderr)
	if strings.Contains(stderr, "interrupted: 0 of 600 runs done") {
		// On a loaded machine the signal can come before the first run
		// ends; a sweep that kept nothing leaves no journal, by design.
		t.Skip("the signal came before the first run finished")
	}

	code, _, stderr = runCLI("sweep", spec, "--out", out, "--seeds", "150")
	require.Equal(t, 2, code, "a journal without --resume")
	require.Contains(t, stderr, "give --resume to continue it")

	code, _, stderr = runCLI("sweep", spec, "--out", out, "--seeds", "150", "--resume")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "from the journal")
	a, _ := os.ReadFile(want)
	b, _ := os.ReadFile(out)
	require.Equal(t, string(a), string(b))
}

func TestMergeCommand(t *testing.T) {
	dir, spec := writeSpec(t, smallSweep)
	full := filepath.Join(dir, "full.csv")
	code, _, stderr := runCLI("sweep", spec, "--out", full, "--seeds", "2")
	require.Equal(t, 0, code, stderr)
	var shards []string
	for k := 1; k <= 3; k++ {
		out := filepath.Join(dir, fmt.Sprintf("s%d.csv", k))
		code, _, stderr := runCLI("sweep", spec, "--out", out, "--seeds", "2", "--shard", fmt.Sprintf("%d/3", k))
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stderr, fmt.Sprintf("sweep small shard %d/3:", k))
		shards = append(shards, out)
	}
	merged := filepath.Join(dir, "merged.csv")
	code, _, stderr = runCLI("merge", merged, shards[2], shards[0], shards[1])
	require.Equal(t, 0, code, stderr)
	a, _ := os.ReadFile(full)
	b, _ := os.ReadFile(merged)
	require.Equal(t, string(a), string(b))

	code, _, stderr = runCLI("merge", merged, shards[0], shards[1])
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "shard 3/3 missing")
	code, _, stderr = runCLI("merge", merged, shards[0], filepath.Join(dir, "nope.csv"))
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "no such file")
	code, _, _ = runCLI("merge", merged)
	require.Equal(t, 2, code)
}

// TestSweepReplay: a raw row's replay command runs that run alone and
// finds what the sweep found.
func TestSweepReplay(t *testing.T) {
	dir, spec := writeSpec(t, smallSweep)
	raw := filepath.Join(dir, "raw.csv")
	code, _, stderr := runCLI("sweep", spec, "--out", filepath.Join(dir, "r.csv"), "--raw", raw, "--seeds", "4")
	require.Equal(t, 0, code, stderr)
	rows := readCSV(t, raw)
	header := rows[0]
	col := func(name string) int {
		for i, h := range header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	var row []string
	for _, r := range rows[1:] {
		if r[col("mutex_violations")] != "0" {
			row = r
			break
		}
	}
	require.NotNil(t, row, "no run with a violation")
	replay := row[col("replay")]
	printBase, runPart, ok := strings.Cut(replay, " && ")
	require.True(t, ok, replay)
	args := strings.Fields(printBase)
	require.Equal(t, []string{"redlocksim", "sweep", spec, "--print-base", ">", "small.base.toml"}, args)
	code, baseTOML, stderr := runCLI(args[1:4]...)
	require.Equal(t, 0, code, stderr)
	basePath := filepath.Join(dir, "small.base.toml")
	require.NoError(t, os.WriteFile(basePath, []byte(baseTOML), 0o644))
	args = strings.Fields(runPart) // the --set values here need no quotes
	require.Equal(t, "small.base.toml", args[2])
	args[2] = basePath
	code, stdout, stderr := runCLI(append(args[1:], "--json")...)
	if code == 2 && strings.Contains(stderr, "--set is not available") {
		t.Skip("run does not take --set yet")
	}
	require.Contains(t, []int{0, 1}, code, stderr)
	require.Contains(t, stdout, fmt.Sprintf(`"mutex_violations": %s`, row[col("mutex_violations")]))
}
