package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
)

// builtBinary builds redlocksim into the test's directory, for the tests
// that need a process of their own (a signal, an exit status, a memory
// ceiling). The build cache makes every build after the first a link.
func builtBinary(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "redlocksim")
	out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return path
}

// builtBinaryUnlessShort is builtBinary for a test that runs the binary
// as a process, which -short skips, saying why.
func builtBinaryUnlessShort(t *testing.T, why string) string {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
	return builtBinary(t)
}

// runBinary runs the binary with args and returns its exit status, stderr,
// peak resident memory and wall time. The peak is GNU time's (-f %M): the
// kernel's own count for a child of this process starts from this
// process's memory (the child shares it until exec), which is no measure
// of the child. Without /usr/bin/time peakKB is -1.
func runBinary(t *testing.T, bin string, args ...string) (code int, stderr string, peakKB int64, wall time.Duration) {
	t.Helper()
	peakKB = -1
	cmd := exec.Command(bin, args...)
	timeOut := filepath.Join(t.TempDir(), "time")
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		cmd = exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", timeOut, bin}, args...)...)
	}
	var e strings.Builder
	cmd.Stderr = &e
	start := time.Now()
	err := cmd.Run()
	wall = time.Since(start)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	if b, err := os.ReadFile(timeOut); err == nil {
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		peakKB, err = strconv.ParseInt(lines[len(lines)-1], 10, 64)
		require.NoError(t, err, "GNU time's output: %s", b)
	}
	return code, e.String(), peakKB, wall
}

// needPeak skips a memory check without GNU time (Debian's package time),
// and fails instead in CI.
func needPeak(t *testing.T, peakKB int64) bool {
	t.Helper()
	if peakKB >= 0 {
		return true
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true and no /usr/bin/time (Debian package time) to measure peak memory")
	}
	t.Log("no /usr/bin/time (Debian package time): peak memory not checked")
	return false
}

// vmHWM is a running process's peak resident memory in KB, from
// /proc/PID/status (its own address space's, unlike the exit rusage).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return -1
}

// TestSweepRefusals is the contract: the billion-run spec, --out a
// directory, the 1000 × 1000 point and a 1 GB file are each refused with
// exit 2 and a clear message, before any run, within 2 s and under 100 MB,
// leaving no journal.
func TestSweepRefusals(t *testing.T) {
	dir := t.TempDir()
	write := fileWriter(t, dir)
	var ppm []string
	for i := range 100 {
		ppm = append(ppm, strconv.Itoa(i))
	}
	billion := write("billion.toml", "name = \"billion\"\nbase = \"baseline\"\nseeds = 1000000\n[axes]\n"+
		"lock.ttl = [\"1s\", \"2s\", \"3s\", \"4s\", \"5s\", \"6s\", \"7s\", \"8s\", \"9s\", \"10s\"]\n"+
		"nodes.clock.rate_ppm = ["+strings.Join(ppm, ", ")+"]\n")
	big := write("big.toml", "name = \"big\"\nbase = \"baseline\"\nseeds = 4\n[axes]\nclients.count = [3, 1000]\nnodes.count = [5, 1000]\n")
	huge := filepath.Join(dir, "huge.toml")
	f, err := os.Create(huge)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30))
	f.Close()
	small := write("small.toml", smallSweep)
	out := filepath.Join(dir, "r.csv")
	bin := builtBinary(t)

	for _, c := range []struct {
		name string
		args []string
		msg  []string
	}{
		{"billion runs", []string{"sweep", billion, "--out", out}, []string{
			billion + " has 1000000000 runs, more than --max-runs 10000000; the count is the product of\n",
			"  " + billion + ":5: axes.lock.ttl: 10 values\n",
			"  " + billion + ":6: axes.nodes.clock.rate_ppm: 100 values\n",
			"  " + billion + ":3: seeds = 1000000\n"}},
		{"--max-runs", []string{"sweep", small, "--out", out, "--max-runs", "11"}, []string{"has 12 runs, more than --max-runs 11"}},
		{"--out a directory", []string{"sweep", small, "--out", dir}, []string{"cannot write --out " + dir + ": it is a directory"}},
		{"--out in a missing directory", []string{"sweep", small, "--out", filepath.Join(dir, "no", "r.csv")}, []string{"no directory " + filepath.Join(dir, "no")}},
		{"--out under a file", []string{"sweep", small, "--out", filepath.Join(small, "r.csv")}, []string{"no directory " + small}},
		{"1000 × 1000", []string{"sweep", big, "--out", out}, []string{
			"point 3 of " + big + " cannot run (clients.count=1000 at " + big + ":5, nodes.count=1000 at " + big + ":6): the run would exceed its budget"}},
		{"1 GB file", []string{"sweep", huge, "--out", out}, []string{huge + ": the file is 1.0 GiB: too large, a scenario or sweep file may be at most 1048576 bytes (1 MiB)"}},
		{"1 GB scenario", []string{"run", huge}, []string{"too large"}},
		{"--max-seeds alone", []string{"sweep", small, "--out", out, "--max-seeds", "50"}, []string{"--max-seeds goes with --ci-width"}},
		{"--ci-width out of range", []string{"sweep", small, "--out", out, "--ci-width", "1.5"}, []string{"--ci-width is a width between 0 and 1"}},
		{"--max-time without a unit", []string{"sweep", small, "--out", out, "--max-time", "10"}, []string{"--max-time is a positive duration with a unit"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stderr, peak, wall := runBinary(t, bin, c.args...)
			require.Equal(t, 2, code, stderr)
			for _, m := range c.msg {
				require.Contains(t, stderr, m)
			}
			require.NotContains(t, stderr, "runs to make", "refused before the calibration")
			require.Less(t, wall, 2*time.Second)
			if needPeak(t, peak) {
				require.Less(t, peak, int64(100<<10), "peak memory in KB")
			}
			_, err := os.Stat(sweeprun.JournalPath(out))
			require.Error(t, err, "no journal is left")
		})
	}
}

// TestSweepStatesItsRunsAndEstimate: before the runs, one line with their
// number and the calibrated estimate; --max-time below it refuses the
// sweep with exit 2 and no journal.
func TestSweepStatesItsRunsAndEstimate(t *testing.T) {
	dir, spec := writeSpec(t, smallSweep)
	out := filepath.Join(dir, "r.csv")
	code, _, stderr := runCLI("sweep", spec, "--out", out, "--seeds", "10", "--workers", "2")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `^sweep small: 40 runs to make on 2 workers: about \S+ \(\S+ a run, timed over \d+ runs\)\n`, stderr)

	code, _, stderr = runCLI("sweep", spec, "--out", filepath.Join(dir, "r2.csv"), "--seeds", "400", "--max-time", "1ms")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "more than --max-time 1ms; nothing was kept")
	_, err := os.Stat(sweeprun.JournalPath(filepath.Join(dir, "r2.csv")))
	require.Error(t, err, "no journal is left")
}

// TestSweepOfTenMillionRunsStopsOnSIGTERM: the contract, with the
// built binary: a sweep of 10^7 runs within the budget stops on SIGTERM
// within 2 s, exits 143, keeps a journal that --resume continues, and
// stays under 100 MB.
func TestSweepOfTenMillionRunsStopsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a process for a few seconds")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "tenm.toml")
	require.NoError(t, os.WriteFile(spec, []byte("name = \"tenm\"\nbase = \"baseline\"\nseeds = 400000\n[set]\nduration = \"2s\"\n[axes]\n"+
		"lock.ttl = [\"1s\", \"2s\", \"3s\", \"4s\", \"5s\"]\nnodes.clock.rate_ppm = [0, 10, 20, 30, 40]\n"), 0o644))
	out := filepath.Join(dir, "r.csv")
	done := regexp.MustCompile(`interrupted: (\d+) of 10000000 runs done`)
	var kept int
	bin := builtBinary(t)
	for round, args := range [][]string{{"sweep", spec, "--out", out}, {"sweep", spec, "--out", out, "--resume"}} {
		cmd := exec.Command(bin, args...)
		pipe, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		rd := bufio.NewReader(pipe)
		line, err := rd.ReadString('\n') // the estimate: the sweep is under way
		require.NoError(t, err)
		require.Contains(t, line, "runs to make")
		time.Sleep(time.Second)
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		sent := time.Now()
		peak := make(chan int64)
		go func() { // the peak while it stops, read until it is gone
			p := int64(-1)
			for hwm := vmHWM(cmd.Process.Pid); hwm > 0; hwm = vmHWM(cmd.Process.Pid) {
				p = max(p, hwm)
				time.Sleep(20 * time.Millisecond)
			}
			peak <- p
		}()
		rest, _ := rd.ReadString(0)
		err = cmd.Wait()
		stopped := time.Since(sent)
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, rest)
		require.Equal(t, 143, ee.ExitCode(), rest)
		require.Less(t, stopped, 2*time.Second, "stopping took %v", stopped)
		if p := <-peak; runtime.GOOS == "linux" {
			require.Positive(t, p, "VmHWM was read")
			require.Less(t, p, int64(100<<10), "peak memory in KB")
		}
		m := done.FindStringSubmatch(rest)
		require.NotNil(t, m, rest)
		n, _ := strconv.Atoi(m[1])
		require.Greater(t, n, kept, "round %d keeps what the last kept and adds to it", round)
		kept = n
		_, err = os.Stat(sweeprun.JournalPath(out))
		require.NoError(t, err, "the journal is kept for --resume")
	}
}

// TestSweepCIWidth: the flags reach the runner; 1 and 2 workers write the
// same bytes; the summary says how many runs the rule saved.
func TestSweepCIWidth(t *testing.T) {
	dir, spec := writeSpec(t, smallSweep)
	var files []string
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "r"+w+".csv")
		code, _, stderr := runCLI("sweep", spec, "--out", out, "--ci-width", "0.3", "--max-seeds", "60", "--workers", w)
		require.Equal(t, 0, code, stderr)
		require.Regexp(t, `^sweep small: at most 240 runs to make \(each point until its interval is narrower than 0.3\) on `+w+` workers`, stderr)
		require.Regexp(t, `\nsweep small: 4 points, (\d+) runs \((\d+) fewer than 60 seeds each, stopping at a 95% interval narrower than 0.3\) in `, stderr)
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		files = append(files, string(b))
		meta, err := os.ReadFile(sweeprun.MetaPath(out))
		require.NoError(t, err)
		require.Contains(t, string(meta), `"ci_width": 0.3`)
	}
	require.Equal(t, files[0], files[1])
	rows := readCSV(t, filepath.Join(dir, "r1.csv"))
	runs := map[string]bool{}
	for _, r := range rows[1:] {
		runs[r[3]] = true
	}
	require.Greater(t, len(runs), 1, "the points took different numbers of runs: %v", runs)
}

// TestSweepToAFIFOWithoutAReaderStops: a sweep whose --out is a FIFO that
// nobody reads finished its runs and then waited in open(2), where no
// signal reached it: alive 5 s after SIGINT or SIGTERM. It now waits
// where a signal stops it: exit 130 or 143 soon after, with the message
// of an interrupted sweep, and nothing left but the journal --resume
// continues from.
func TestSweepToAFIFOWithoutAReaderStops(t *testing.T) {
	bin := builtBinaryUnlessShort(t, "runs a process")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir, spec := writeSpec(t, smallSweep)
		out := filepath.Join(dir, "fifo.csv")
		require.NoError(t, syscall.Mkfifo(out, 0o644))
		cmd := exec.Command(bin, "sweep", spec, "--out", out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		journal := sweeprun.JournalPath(out)
		// The sweep's 12 runs take a fraction of a second; then it waits
		// for a reader of the FIFO.
		for i := 0; i < 100 && !fileExists(journal); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(time.Second)
		require.NoError(t, cmd.Process.Signal(sig))
		sent := time.Now()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
		select {
		case err = <-exited:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Fatalf("%v: still waiting 3 s after the signal; stderr: %s", sig, stderr.String())
		}
		t.Logf("%v: exited %v after the signal", sig, time.Since(sent).Round(time.Millisecond))
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, stderr.String())
		require.Equal(t, 128+int(sig), ee.ExitCode(), stderr.String())
		require.Contains(t, stderr.String(), "sweep small interrupted: 12 of 12 runs done, kept in "+journal+"; run the same command with --resume to continue")
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		require.ElementsMatch(t, []string{"small.toml", "fifo.csv", "fifo.csv.partial"}, names, "nothing but the journal is left")
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
