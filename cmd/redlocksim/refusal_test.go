package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// TestRefusalsCostNothing: a run over its budget is refused from its
// Config, before its world is built, whatever its shape: within 2 s and
// under 100 MB of peak memory (the child's, by GNU time), with exit 2 and
// a message naming the key that drives it. The medium world (700 × 700)
// took 12 s and 868 MB to be refused by the pilot's estimate.
func TestRefusalsCostNothing(t *testing.T) {
	bin := builtBinaryUnlessShort(t, "runs processes")
	for _, c := range []struct {
		name string
		args []string
		msg  []string
	}{
		{"1000 × 1000", []string{"gc-pause", "--set", "nodes.count=1000", "--set", "clients.count=1000"},
			[]string{"its world alone would hold 577MB before the first event", "The key that drives it is clients.count = 1000"}},
		{"700 × 700", []string{"gc-pause", "--set", "nodes.count=700", "--set", "clients.count=700"},
			[]string{"acquisitions can succeed in the run", "the 700 clients spend the rest of their time awake failing", "The key that drives it is clients.count = 700"}},
		{"500 × 500", []string{"gc-pause", "--set", "nodes.count=500", "--set", "clients.count=500"},
			[]string{"the 500 clients spend the rest of their time awake failing"}},
		{"400 nodes, 1000 clients", []string{"gc-pause", "--set", "nodes.count=400", "--set", "clients.count=1000"},
			[]string{"the 1000 clients spend the rest of their time awake failing", "The key that drives it is clients.count = 1000"}},
		// Took 8.5 s and 290 MB to be refused by the pilot's estimate.
		{"400 × 400", []string{"gc-pause", "--set", "nodes.count=400", "--set", "clients.count=400"},
			[]string{"at most 68 acquisitions can succeed in the run", "The key that drives it is clients.count = 400"}},
		// Took 12 s and 245 MB: the floor now counts on the retry
		// jitter averaging out over the failed tries.
		{"100 nodes, 1000 clients", []string{"gc-pause", "--set", "nodes.count=100", "--set", "clients.count=1000"},
			[]string{"once every 252.5ms on average at least (their retry jitter of ±100ms averages out: this bound fails with a chance under 1e-9)", "The key that drives it is clients.count = 1000"}},
		// A lock no one holds for long (iterations without end): 11 s and
		// 690 MB to be refused by the pilot's estimate.
		{"baseline, 400 nodes, 1000 clients", []string{"baseline", "--set", "nodes.count=400", "--set", "clients.count=1000"},
			[]string{"the 1000 clients spend the rest of their time awake failing", "The key that drives it is clients.count = 1000"}},
		// Network loss and Redisson's watchdog left the floor unsure, and
		// the pilot refused them: 3.2-4.6 s and 266 MB, and 1.8-2.3 s and
		// 163 MB.
		{"400 × 400, 1% loss", []string{"gc-pause", "--set", "nodes.count=400", "--set", "clients.count=400", "--set", "network.loss=0.01"},
			[]string{"at least 97M events", "The network loses a message with a chance of up to 0.01: the bound counts 99% of the requests, and of their replies, delivered, less their deviation (it fails with a chance under 1e-9)", "The key that drives it is clients.count = 400"}},
		{"300 × 300, watchdog", []string{"gc-pause", "--set", "nodes.count=300", "--set", "clients.count=300", "--set", `lock.renewal="watchdog"`},
			[]string{"at most 68 acquisitions can succeed in the run", "the 300 clients spend the rest of their time awake failing", "The key that drives it is clients.count = 300"}},
		{"long duration", []string{"baseline", "--set", "duration=10000h"},
			[]string{"at least ", `The key that drives it is duration = "10000h0m0s"`}},
		{"long duration, tiny latency", []string{"baseline", "--set", "duration=10000h", "--set", `network.latency={kind="constant",value="1ns"}`},
			[]string{"at least ", `The key that drives it is duration = "10000h0m0s"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stderr, peak, wall := runBinary(t, bin, append([]string{"run"}, c.args...)...)
			require.Equal(t, exitBadInput, code, stderr)
			assert.Contains(t, stderr, "redlocksim run: ")
			assert.Contains(t, stderr, "the run would exceed its budget")
			for _, m := range c.msg {
				assert.Contains(t, stderr, m)
			}
			assert.Less(t, wall, 2*time.Second)
			if needPeak(t, peak) {
				assert.Less(t, peak, int64(100<<10), "peak memory in KB")
			}
		})
	}
}

// TestHugeWorldUnderAMemoryLimitIsRefused: under ulimit -v 4000000 the
// 1000 × 1000 world died of the Go runtime's "out of memory" (exit 2,
// bad input's status, for a crash); now the budget refuses it first,
// with its message, and the runtime never gets near the limit. So does
// the 700 × 700 world, which the pilot refused at 868 MB.
func TestHugeWorldUnderAMemoryLimitIsRefused(t *testing.T) {
	bin := builtBinaryUnlessShort(t, "runs processes")
	for _, c := range []struct {
		limitKB, size string
		msg           string
	}{
		{"4000000", "1000", "its world alone would hold 577MB"},
		{"4000000", "700", "the 700 clients spend the rest of their time awake failing"},
	} {
		cmd := exec.Command("sh", "-c", `ulimit -v `+c.limitKB+` && exec "$0" run gc-pause --set nodes.count=$1 --set clients.count=$1`, bin, c.size)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, string(out))
		assert.Equal(t, exitBadInput, ee.ExitCode(), string(out))
		assert.Contains(t, string(out), c.msg)
		assert.False(t, strings.Contains(string(out), "fatal error"), "no runtime crash: %s", out)
	}
}

// TestRefusalGridCostsLittle walks the gc-pause, and baseline
// (clients that want the lock without end), over a grid of nodes ×
// clients × duration whose runs exceed the budget, the medium worlds
// included, with network loss and Redisson's watchdog: each is refused with exit 2 and the budget's message (the
// estimate, the key that drives it, how to raise the budget), under
// 100 MB of peak memory (GNU time's). Before the floor counted the
// clients' failing time and the pilot refused a steady rate early,
// 400 × 400 took 8.5 s and 290 MB, baseline 400 × 1000 11 s and 690 MB,
// 100 × 400 for an hour 10 s and 103 MB, and 1,000 clients of 5 nodes for
// an hour 4.5 s. Wall times go to the log, as notes: they depend on the
// machine's load.
func TestRefusalGridCostsLittle(t *testing.T) {
	bin := builtBinaryUnlessShort(t, "runs processes")
	type point struct {
		scenario       string
		nodes, clients int
		duration       string
		set            string // one more --set, or none
	}
	var grid []point
	for _, s := range []string{"gc-pause", "baseline"} {
		for _, n := range []int{5, 100, 400, 1000} {
			for _, c := range []int{400, 1000} {
				grid = append(grid, point{s, n, c, "1h", ""})
				if n >= 400 {
					grid = append(grid, point{s, n, c, "30s", ""})
				}
			}
		}
	}
	for _, n := range []int{400, 1000} {
		grid = append(grid, point{"baseline", n, 2, "1h", ""}) // two clients, many nodes, without end
	}
	// Loss and Redisson's watchdog, which the floor now bounds: gc-pause
	// 400 × 400 with loss took 3.2 s and 268 MB, 300 × 300 with the
	// watchdog 1.8 s and 164 MB.
	for _, set := range []string{"network.loss=0.01", `lock.renewal="watchdog"`} {
		grid = append(grid, point{"gc-pause", 400, 400, "30s", set}, point{"gc-pause", 300, 300, "30s", set},
			point{"baseline", 100, 400, "1h", set})
	}
	for _, p := range grid {
		name := fmt.Sprintf("%s %d nodes × %d clients × %s %s", p.scenario, p.nodes, p.clients, p.duration, p.set)
		args := []string{"run", p.scenario, "--set", fmt.Sprintf("nodes.count=%d", p.nodes),
			"--set", fmt.Sprintf("clients.count=%d", p.clients), "--set", "duration=" + p.duration}
		if p.set != "" {
			args = append(args, "--set", p.set)
		}
		refusedCheaply(t, bin, name, p.scenario, args)
	}
	// The other locks, a thousand clients for 10000 h: faults, a store or
	// a fast client clock leave the Config's floor unsure, and the run's
	// rate refuses them. Their rates rise after the first seconds (a
	// failover, a late client), and they were refused only at the pilot's
	// end, after 1M events: failover-wait in 8.5 s and 137 MB,
	// dynamodb-fast-waiter in 5.8 s and 114 MB; and a full row of links
	// for each of the 1000 clients held 60-145 MB more. Now 0.2-0.3 s of
	// CPU and under 40 MB each.
	for _, s := range []string{"failover-race", "failover-wait", "consensus-lease-pauses", "zookeeper-session-pause",
		"consul-holder-crash", "k8s-leader-pause", "dynamodb-fast-waiter", "watchdog-gc-pause"} {
		refusedCheaply(t, bin, s+" 1000 clients × 10000h", s,
			[]string{"run", s, "--set", "clients.count=1000", "--set", "duration=10000h"})
	}
}

// refusedCheaply runs the binary with args and checks that it refuses
// the run of scenario over its budget, with exit 2 and the budget's
// message, under 100 MB of peak memory; its wall time goes to the log.
func refusedCheaply(t *testing.T, bin, name, scenario string, args []string) {
	t.Helper()
	code, stderr, peak, wall := runBinary(t, bin, args...)
	t.Logf("%s: exit %d in %v, peak %d KB", name, code, wall.Round(time.Millisecond), peak)
	if !assert.Equal(t, exitBadInput, code, "%s: %s", name, stderr) {
		return
	}
	assert.Contains(t, stderr, "redlocksim run: "+scenario+": the run would exceed its budget", name)
	assert.Regexp(t, `The key that drives it is (clients\.count|nodes\.count|duration) = `, stderr, name)
	assert.Contains(t, stderr, "raise the budget with --max-events N", name)
	if needPeak(t, peak) {
		assert.Less(t, peak, int64(100<<10), "%s: peak memory in KB", name)
	}
}

// TestHugeWorkersAreRefused: --workers 100000000 made hunt die of the Go
// runtime's "out of memory" (SIGABRT), and a sweep, estimate or league
// start goroutines until their signals no longer reached them; every
// command that takes --workers (and the lab's --max-runs-at-once) now
// refuses it with exit 2, before it starts anything.
func TestHugeWorkersAreRefused(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir, spec := writeSpec(t, smallSweep)
	for _, args := range [][]string{
		{"sweep", spec, "--out", filepath.Join(dir, "r.csv")},
		{"hunt", "baseline"},
		{"estimate", "baseline"},
		{"assess", "baseline"},
		{"league"},
		{"boundary", "baseline", "--key", "lock.ttl", "--from", "1s", "--to", "20s"},
		{"explore", "baseline"},
	} {
		code, _, errOut := runCLI(append(args, "--workers", "100000000")...)
		assert.Equal(t, exitBadInput, code, "%v: %s", args, errOut)
		assert.Contains(t, errOut, "redlocksim "+args[0]+": --workers must be between 1 and 1024 (each worker holds a run's world; the default is one per core), got 100000000", args)
	}
	code, _, errOut := runCLI("lab", "--max-runs-at-once", "100000000")
	assert.Equal(t, exitBadInput, code, errOut)
	assert.Contains(t, errOut, "redlocksim lab: --max-runs-at-once is a whole number from 1 to 1024 (each run holds its world), got 100000000")
}

// TestBudgetRefusalIsBadInputEverywhere: a run over its budget is bad
// input (2) whichever command makes it, with the command's name and the
// budget's message. estimate and assess of gc-pause with 1000 nodes and
// 1000 clients exited 3, a bug's status, with the budget's message alone.
//
// A hunt refused so left its journal behind, and the same hunt with a
// larger --max-events, as the message advises, was then refused as
// "interrupted"; now a hunt that kept nothing leaves no journal.
func TestBudgetRefusalIsBadInputEverywhere(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	huge := []string{"gc-pause", "--set", "nodes.count=1000", "--set", "clients.count=1000"}
	for _, cmd := range []string{"run", "hunt", "estimate", "assess", "explore"} {
		code, _, errOut := runCLI(append([]string{cmd}, huge...)...)
		assert.Equal(t, exitBadInput, code, "%s: %s", cmd, errOut)
		assert.Regexp(t, `redlocksim `+cmd+`:( gc-pause:)? the run would exceed its budget: its world alone would hold 577MB`, errOut, cmd)
		assert.Contains(t, errOut, "The key that drives it is clients.count = 1000", cmd)
	}
	// Refused by its rate, at its first run, twice over.
	for range 2 {
		code, _, errOut := runCLI("hunt", "failover-race", "--set", "clients.count=1000", "--set", "duration=10000h", "--seeds", "2", "--workers", "1")
		assert.Equal(t, exitBadInput, code, errOut)
		assert.Contains(t, errOut, "redlocksim hunt: seed 1: the run would exceed its budget: an estimated 553G events")
	}
	left, err := filepath.Glob(filepath.Join(cache, "redlocksim", "hunt-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "a hunt that kept nothing leaves no journal")
}

// millionPointSpec writes the sweep of 1000 × 1000 points, 1000
// seeds each, to dir/big.toml (or, with wide, the largest spec the loader
// takes: an axis of 130,000 values crossed with two, near the 1 MiB it allows).
func millionPointSpec(t *testing.T, dir string, wide bool) string {
	t.Helper()
	n := 1000
	ttl := make([]string, 0, n)
	for i := range n {
		ttl = append(ttl, fmt.Sprintf(`"%dms"`, 100+i))
	}
	if wide {
		n, ttl = 130_000, []string{`"1s"`, `"2s"`}
	}
	ppm := make([]string, n)
	for i := range ppm {
		ppm[i] = fmt.Sprint(i)
	}
	src := "name = \"big\"\nbase = \"baseline\"\nseeds = 1000\n[axes]\nlock.ttl = [" + strings.Join(ttl, ", ") +
		"]\nnodes.clock.rate_ppm = [" + strings.Join(ppm, ", ") + "]\n"
	path := filepath.Join(dir, "big.toml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

// TestMillionPointSweepIsRefusedFromItsCounts: the sweep loader applied
// every one of a million points to the base (a minute and 79 MB) before
// sweep counted the billion runs and refused them. Now the loader builds
// a sample of CheckedAtLoad points at most, and every command that loads
// a spec refuses one over its budget from the spec's counts, with exit 2,
// building no more; a sweep's runs are counted before its points are
// checked, and an emitted job's tasks before they are queued.
func TestMillionPointSweepIsRefusedFromItsCounts(t *testing.T) {
	dir := t.TempDir()
	spec := millionPointSpec(t, dir, false)
	out := filepath.Join(dir, "r.csv")
	billion := spec + " has 1000000000 runs"
	factors := "; the count is the product of\n  " + spec + ":5: axes.lock.ttl: 1000 values\n  " + spec + ":6: axes.nodes.clock.rate_ppm: 1000 values\n  " + spec + ":3: seeds = 1000\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", spec, "--out", out}, "redlocksim sweep: " + billion + ", more than --max-runs 10000000" + factors},
		{[]string{"sweep", spec, "--out", out, "--ci-width", "0.1"}, "redlocksim sweep: " + billion + " at most (every point at --max-seeds), more than --max-runs 10000000" + factors},
		{[]string{"sweep", spec, "--out", out, "--seeds", "100", "--shard", "1/2"}, "redlocksim sweep: " + spec + " has 50000000 runs, more than --max-runs 10000000 in shard 1/2 (500000 of its 1000000 points)"},
		{[]string{"sweep", spec, "--emit", "slurm"}, "redlocksim sweep: the job's tasks would be refused (raise --shards to split it further): " + spec + " has 62500000 runs, more than --max-runs 10000000 in shard 1/16"},
		{[]string{"sweep", spec, "--estimate", "--max-time", "1h", "--out", out}, "redlocksim sweep: 1000000 points of at most 1m0s each may take 16666h40m0s, beyond --max-time 1h0m0s"},
		{[]string{"compare", "sweep", spec, "--out", out}, "redlocksim compare: sweep big has 1000000 points; compare --sweep reads at most 100000"},
	} {
		before := sweep.ScenariosBuilt()
		code, _, errOut := runCLI(c.args...)
		assert.Equal(t, exitBadInput, code, "%v: %s", c.args, errOut)
		assert.Contains(t, errOut, c.want, c.args)
		assert.LessOrEqual(t, sweep.ScenariosBuilt()-before, int64(sweep.CheckedAtLoad), "%v: scenarios built", c.args)
		assert.NoFileExists(t, out+".partial", c.args)
		assert.NoFileExists(t, out, c.args)
	}
	// --print-base needs no more than the spec's loading either.
	before := sweep.ScenariosBuilt()
	code, base, errOut := runCLI("sweep", spec, "--print-base")
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, base, "[lock]")
	assert.LessOrEqual(t, sweep.ScenariosBuilt()-before, int64(sweep.CheckedAtLoad))
}

// TestLargestSweepSpecIsRefusedUnder100MB: the refusal's peak memory, as
// a process, for the spec and for the largest spec the loader
// takes (1 MiB of axis values), which peaked at 85-111 MB at the
// collector's default target and 160-250 MB at a sweep's. Wall times go
// to the log: they depend on the machine's load.
func TestLargestSweepSpecIsRefusedUnder100MB(t *testing.T) {
	bin := builtBinaryUnlessShort(t, "runs processes")
	for _, wide := range []bool{false, true} {
		dir := t.TempDir()
		spec := millionPointSpec(t, dir, wide)
		code, stderr, peak, wall := runBinary(t, bin, "sweep", spec, "--out", filepath.Join(dir, "r.csv"))
		t.Logf("wide=%v: exit %d in %v, peak %d KB", wide, code, wall.Round(time.Millisecond), peak)
		require.Equal(t, exitBadInput, code, stderr)
		assert.Contains(t, stderr, "runs, more than --max-runs 10000000")
		if needPeak(t, peak) {
			assert.Less(t, peak, int64(100<<10), "wide=%v: peak memory in KB", wide)
		}
	}
}

// TestLargeSweepHasEveryPointCheckedFirst: the loader checks a sample of
// a large spec's points; sweep, and sweep --estimate, which would have
// met the bad point hours in, check every point before the first run.
// Here a pause of client c2 at the points with one client, a combination
// the sample (which takes every value of every axis) does not take.
func TestLargeSweepHasEveryPointCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	ttl := make([]string, 600)
	for i := range ttl {
		ttl[i] = fmt.Sprintf(`"%dms"`, 1000+i)
	}
	spec := filepath.Join(dir, "large.toml")
	require.NoError(t, os.WriteFile(spec, []byte("name = \"large\"\nseeds = 1\n[axes]\nclients.count = [1, 2]\n\"faults[0].target\" = [\"c1\", \"c2\"]\nlock.ttl = ["+
		strings.Join(ttl, ", ")+"]\n[base]\nduration = \"5s\"\n[[base.faults]]\nat = \"1s\"\nkind = \"pause\"\ntarget = \"c1\"\nfor = \"1s\"\n"), 0o644))
	out := filepath.Join(dir, "r.csv")
	for _, extra := range [][]string{nil, {"--estimate"}} {
		code, _, errOut := runCLI(append([]string{"sweep", spec, "--out", out}, extra...)...)
		assert.Equal(t, exitBadInput, code, "%v: %s", extra, errOut)
		assert.Contains(t, errOut, "redlocksim sweep: point 600 of "+spec+` cannot run (clients.count=1 at `+spec+`:4, faults[0].target="c2" at `+spec+`:5, lock.ttl="1000ms" at `+spec+`:6)`, extra)
		assert.Contains(t, errOut, `no process is called "c2"`, extra)
		assert.NoFileExists(t, out+".partial", extra)
		assert.NoFileExists(t, out, extra)
	}
}
