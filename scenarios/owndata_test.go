package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

// writeFiles writes name -> contents into a new directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// lognormalDurations is n lognormal durations, one per line, from a fixed
// stream.
func lognormalDurations(n int, median time.Duration, sigma float64) string {
	r := sim.NewStream(5, "data")
	var b strings.Builder
	for range n {
		fmt.Fprintf(&b, "%v\n", time.Duration(float64(median)*math.Exp(sigma*r.NormFloat64())))
	}
	return b.String()
}

// TestEmpiricalWhereverALatencyGoes: one data file serves as pause
// lengths, critical sections, and network and link latency; the run
// uses it, and the scenario names the file with its hash.
func TestEmpiricalWhereverALatencyGoes(t *testing.T) {
	data := lognormalDurations(3000, 2*time.Millisecond, 0.6)
	dir := writeFiles(t, map[string]string{"d.txt": data, "s.toml": base + `[workload]
critical_section = { kind = "empirical", file = "d.txt", format = "durations", tail = "pareto", tail_above = "p90" }
[clients.pauses]
every = "2s"
length = { kind = "empirical", file = "d.txt", format = "durations" }
[network]
latency = { kind = "empirical", file = "d.txt", format = "durations", tail = "none" }
[[network.link]]
from = "c1"
to = "n1"
latency = { kind = "empirical", file = "d.txt", format = "durations", tail_above = "3ms" }
`})
	sc, err := Load(filepath.Join(dir, "s.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config
	for what, l := range map[string]network.Latency{
		"critical section": cfg.Work.CriticalSectionDist, "pause length": cfg.Clients[0].Pauses.Length,
		"network": cfg.Network.Latency, "link": cfg.Network.Links[0].Latency,
	} {
		if l.Kind != network.LatencyEmpirical || l.Table.N() != 3000 {
			t.Errorf("%s: %v, want the empirical table of 3000 samples", what, l)
		}
	}
	if k, above := cfg.Work.CriticalSectionDist.Table.Tail(); k != network.TailPareto || above <= 2*time.Millisecond {
		t.Errorf("critical section tail %v above %v, want pareto above the p90", k, above)
	}
	if k, _ := cfg.Clients[0].Pauses.Length.Table.Tail(); k != network.DefaultTail {
		t.Errorf("pause length tail %v, want the default %v", k, network.DefaultTail)
	}
	if _, above := cfg.Network.Links[0].Latency.Table.Tail(); above != 3*time.Millisecond {
		t.Errorf("link tail above %v, want 3ms", above)
	}
	sum := sha256.Sum256([]byte(data))
	if len(sc.DataFiles) != 4 {
		t.Fatalf("DataFiles = %v, want 4", sc.DataFiles)
	}
	for _, f := range sc.DataFiles {
		if f.SHA256 != hex.EncodeToString(sum[:]) || f.Path != "d.txt" || f.Samples != 3000 {
			t.Errorf("data file %+v, want d.txt with sha256 %x", f, sum)
		}
	}
	res, err := model.RunFast(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.AcquireSuccesses == 0 {
		t.Error("no acquisition succeeded")
	}
	// The run is deterministic with data as without.
	again, _ := model.RunFast(cfg, 1)
	if again.Events != res.Events || again.Report.AcquireSuccesses != res.Report.AcquireSuccesses {
		t.Errorf("two runs differ: %d/%d events", res.Events, again.Events)
	}
}

// TestEmpiricalErrors: every problem with a data file names the
// scenario's file, line and key, and what the data file's line should
// have been.
func TestEmpiricalErrors(t *testing.T) {
	gotrace := "gc 1 @0.005s 1%: 0.15+0.34+0.005 ms clock, 0.30+0.016/0.085/0.081+0.010 ms cpu, 3->4->0 MB, 4 MB goal, 2 P\n"
	files := map[string]string{
		"empty.txt": "", "bad.txt": "1ms\n2ms\nlots\n", "go.trace": gotrace, "few.txt": lognormalDurations(500, time.Millisecond, 1),
		"many.txt": lognormalDurations(2000, time.Millisecond, 1), "d.csv": "a,b\n1,2\n",
	}
	for _, c := range []struct {
		name, table, key, msg string
	}{
		{"missing file", `{ kind = "empirical", file = "nope.log", format = "jvm-gc" }`, "network.latency.file",
			"nope.log: no such file (a relative path is relative to the scenario file's directory)"},
		{"empty file", `{ kind = "empirical", file = "empty.txt", format = "durations" }`, "network.latency.file",
			"empty.txt: the file is empty; want one duration per line"},
		{"unparseable line", `{ kind = "empirical", file = "bad.txt", format = "durations" }`, "network.latency.file",
			`bad.txt: line 3: "lots": want a duration like "12ms"`},
		{"wrong format", `{ kind = "empirical", file = "go.trace", format = "jvm-gc" }`, "network.latency.file",
			`go.trace: this looks like a go-gctrace file, not jvm-gc (line 1: "gc 1 @0.005s`},
		{"too few for a tail", `{ kind = "empirical", file = "few.txt", format = "durations" }`, "network.latency.file",
			"a lognormal tail is fitted to the samples above the threshold"},
		{"too few above tail_above", `{ kind = "empirical", file = "many.txt", format = "durations", tail = "pareto", tail_above = "p99" }`, "network.latency.tail_above",
			"20 of the 2000 samples are above it; a fit needs at least 100"},
		{"unknown format", `{ kind = "empirical", file = "bad.txt", format = "gc" }`, "network.latency.format",
			`unknown format "gc" (valid: durations, jvm-gc, go-gctrace, redis-latency)`},
		{"file missing", `{ kind = "empirical", format = "durations" }`, "network.latency.file", "an empirical latency needs file and format"},
		{"unknown tail", `{ kind = "empirical", file = "many.txt", format = "durations", tail = "weibull" }`, "network.latency.tail",
			`unknown tail "weibull"; want one of none, lognormal, pareto`},
		{"tail_above without a tail", `{ kind = "empirical", file = "many.txt", format = "durations", tail = "none", tail_above = "5ms" }`, "network.latency.tail_above",
			`tail = "none" fits no tail`},
		{"column on a log", `{ kind = "empirical", file = "go.trace", format = "go-gctrace", column = "x" }`, "network.latency.column",
			`only format = "durations" takes column`},
		{"bad quantile", `{ kind = "empirical", file = "many.txt", format = "durations", tail_above = "p95" }`, "network.latency.tail_above",
			`unknown quantile "p95"`},
		{"csv without a unit", `{ kind = "empirical", file = "d.csv", format = "durations", column = "b", tail = "none" }`, "network.latency.file",
			`line 2: "2": a bare number: write a unit`},
		{"empirical key on a uniform", `{ kind = "uniform", min = "1ms", max = "2ms", file = "d.csv" }`, "network.latency.file",
			"a uniform latency does not take file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, files)
			path := filepath.Join(dir, "s.toml")
			if err := os.WriteFile(path, []byte(base+"[network]\nlatency = "+c.table+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			errs := Errors(err)
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1: %v", len(errs), err)
			}
			e := errs[0]
			if e.File != path || e.Line != 5 || e.Key != c.key || !strings.Contains(e.Msg, c.msg) {
				t.Errorf("got %v\nwant %s:5: %s: ...%s...", e, path, c.key, c.msg)
			}
		})
	}
}
