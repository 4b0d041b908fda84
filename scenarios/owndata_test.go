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

// mustLoad loads the scenario file at path, failing the test on an error.
func mustLoad(t *testing.T, path string) *Scenario {
	t.Helper()
	sc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return sc
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
	sc := mustLoad(t, filepath.Join(dir, "s.toml"))
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

// trackingLog writes a tracking.log as chronyd does ("log tracking" in
// chrony.conf): a banner, then a line per clock update. The offset at
// 00:00:20 is a 2.5 s error chronyd stepped away.
const trackingLog = `===========================================================================================================================================
   Date (UTC) Time     IP Address   St   Freq ppm   Skew ppm     Offset L Co  Offset sd Rem. corr. Root delay Root disp. Max. error
===========================================================================================================================================
2026-12-03 10:00:00 203.0.113.15     2     -3.541      0.075 -8.621e-06 N  2  2.940e-03 -2.084e-04  1.234e-02  3.234e-03  2.344e-02
2026-12-03 10:00:10 203.0.113.15     2     -3.602      0.081  4.100e-05 N  2  2.810e-03 -1.004e-04  1.234e-02  3.100e-03  2.300e-02
2026-12-03 10:00:20 203.0.113.15     2     -3.480      0.090  2.500e+00 N  2  2.810e-03 -1.004e-04  1.234e-02  3.100e-03  2.300e-02
2026-12-03 10:00:30 203.0.113.15     2     -2.941      0.120 -1.200e-05 N  2  2.700e-03  3.000e-05  1.234e-02  3.000e-03  2.200e-02
2026-12-03 10:05:00 203.0.113.15     2     -3.100      0.070 -1.500e+00 N  2  2.700e-03  3.000e-05  1.234e-02  3.000e-03  2.200e-02
`

func TestClockFromChrony(t *testing.T) {
	dir := writeFiles(t, map[string]string{"tracking.log": trackingLog, "s.toml": base + `[clients.clock]
chrony = "tracking.log"
`})
	sc := mustLoad(t, filepath.Join(dir, "s.toml"))
	for _, c := range sc.Config.Clients {
		// Frequency from -3.602 to -2.941: centre -3.2715, half range
		// 0.3305, plus the largest skew 0.120.
		if math.Abs(c.Clock.RatePPM+3.2715) > 1e-9 || math.Abs(c.RateSpread-0.4505) > 1e-9 {
			t.Errorf("%s: rate %v ± %v ppm, want -3.2715 ± 0.4505", c.Name, c.Clock.RatePPM, c.RateSpread)
		}
		// The 2.5 s offset at 20 s is a step back; the one at 5 min is
		// after the 30 s run.
		if len(c.Clock.Steps) != 1 || c.Clock.Steps[0].At != 20*time.Second || c.Clock.Steps[0].By != -2500*time.Millisecond {
			t.Errorf("%s: steps %+v, want one of -2.5s at 20s", c.Name, c.Clock.Steps)
		}
	}
	if len(sc.DataFiles) != 1 || sc.DataFiles[0].Format != "chrony-tracking" || sc.DataFiles[0].Samples != 5 {
		t.Errorf("data files %v, want the tracking.log's 5 lines", sc.DataFiles)
	}
	if _, err := model.RunFast(sc.Config, 1); err != nil {
		t.Fatal(err)
	}
}

func TestClockFromChronyErrors(t *testing.T) {
	gotrace := "gc 1 @0.005s 1%: 0.15+0.34+0.005 ms clock, 0.30+0.016/0.085/0.081+0.010 ms cpu, 3->4->0 MB, 4 MB goal, 2 P\n"
	files := map[string]string{"tracking.log": trackingLog, "go.trace": gotrace, "bad.log": trackingLog + "2026-12-03 10:06:00 203.0.113.15 2 fast 0.1 0.0 N\n"}
	for _, c := range []struct{ name, table, key, msg string }{
		{"rate and chrony", `{ chrony = "tracking.log", rate_ppm = 5 }`, "clients.clock.rate_ppm", "chrony sets rate_ppm from the log: drop one of them"},
		{"a Go trace", `{ chrony = "go.trace" }`, "clients.clock.chrony", `this looks like a go-gctrace file, not a chrony tracking.log (line 1:`},
		{"a bad line", `{ chrony = "bad.log" }`, "clients.clock.chrony", `bad.log: line 9: "2026-12-03 10:06:00 203.0.113.15 2 fast 0.1 0.0 N": column 5 (Freq ppm) is "fast", not a number`},
		{"missing", `{ chrony = "nope.log" }`, "clients.clock.chrony", "nope.log: no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, files)
			path := filepath.Join(dir, "s.toml")
			os.WriteFile(path, []byte(base+"[clients]\nclock = "+c.table+"\n"), 0o644)
			_, err := Load(path)
			errs := Errors(err)
			if len(errs) != 1 || errs[0].Line != 5 || errs[0].Key != c.key || !strings.Contains(errs[0].Msg, c.msg) {
				t.Errorf("got %v\nwant line 5, %s: ...%s...", err, c.key, c.msg)
			}
		})
	}
	// A tracking.log given to an empirical table says what it is.
	dir := writeFiles(t, files)
	path := filepath.Join(dir, "s.toml")
	os.WriteFile(path, []byte(base+"[network]\nlatency = { kind = \"empirical\", file = \"tracking.log\", format = \"durations\" }\n"), 0o644)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "this looks like a chrony tracking.log, not durations") {
		t.Errorf("a tracking.log as durations: got %v", err)
	}
}

// A rendered scenario (explore's counterexamples, the lab's downloads) is
// written elsewhere than its base, and still finds the base's data files.
func TestRenderKeepsDataFilesReachable(t *testing.T) {
	dir := writeFiles(t, map[string]string{"d.txt": lognormalDurations(2000, time.Millisecond, 0.5), "tracking.log": trackingLog,
		"s.toml": base + "[clients]\nclock = { chrony = \"tracking.log\" }\npauses = { every = \"1s\", length = { kind = \"empirical\", file = \"d.txt\", format = \"durations\" } }\n"})
	data, err := os.ReadFile(filepath.Join(dir, "s.toml"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBase(filepath.Join(dir, "s.toml"), data)
	if err != nil {
		t.Fatal(err)
	}
	o, err := ParseOverrides([]string{"seed=7"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Render(o...)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "found.toml")
	if err := os.WriteFile(elsewhere, out, 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := Load(elsewhere)
	if err != nil {
		t.Fatalf("the rendered file does not load where it was written: %v\n%s", err, out)
	}
	if len(sc.DataFiles) != 2 || sc.Seed != 7 {
		t.Errorf("rendered scenario read %v with seed %d, want both data files and seed 7", sc.DataFiles, sc.Seed)
	}
	// The base itself is untouched.
	if again, _ := b.Render(); !strings.Contains(string(again), dir) || strings.Contains(string(b.TOML()), dir) {
		t.Errorf("Render wrote into the base:\n%s", b.TOML())
	}
}

// jvmBursts is a G1 log whose pauses come in bursts: five pauses 100 ms
// apart, then 20 s of quiet, repeated.
func jvmBursts(bursts int) string {
	var b strings.Builder
	n := 0
	for k := range bursts {
		for i := range 5 {
			at := time.Duration(k)*20*time.Second + time.Duration(i)*100*time.Millisecond
			fmt.Fprintf(&b, "[%.3fs][info][gc] GC(%d) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(256M) %d.%03dms\n", at.Seconds(), n, 3+n%40, n%1000)
			n++
		}
	}
	return b.String()
}

// every = "from-log" plays the log's pause times: its bursts stay bursts.
func TestPausesFromLog(t *testing.T) {
	dir := writeFiles(t, map[string]string{"gc.log": jvmBursts(60), "d.txt": "1ms\n2ms\n", "s.toml": `duration = "10m"
[lock]
ttl = "10s"
[clients.pauses]
every = "from-log"
length = { kind = "empirical", file = "gc.log", format = "jvm-gc", tail = "none" }
`})
	sc := mustLoad(t, filepath.Join(dir, "s.toml"))
	p := sc.Config.Clients[0].Pauses
	if len(p.Arrivals) != 300 || p.Arrivals[0] != 0 || p.Arrivals[5] != 20*time.Second {
		t.Fatalf("arrivals %v..., want the log's 300 pause times from 0", p.Arrivals[:6])
	}
	ps := model.RandomPauses(&sc.Config, 1)
	var close, far int
	for i := 1; i < len(ps); i++ {
		if ps[i].Client != ps[i-1].Client {
			continue
		}
		switch gap := ps[i].At - ps[i-1].At; {
		case gap == 100*time.Millisecond:
			close++
		case gap > 19*time.Second:
			far++
		case gap == p.Every: // around again after the log's end
		default:
			t.Fatalf("gap %v between pauses: not one of the log's", gap)
		}
	}
	// 10 minutes hold about 30 bursts per client: 4 close gaps each.
	if close < 3*80 || far < 3*20 || close < 3*far {
		t.Errorf("%d gaps of 100ms and %d of ~20s, want the log's bursts", close, far)
	}
	// Each client starts at its own point of the log.
	if ps[0].At == ps[len(ps)-1].At {
		t.Error("the clients' pauses coincide")
	}
	if _, err := model.RunFast(sc.Config, 1); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "s.toml"), []byte(base+"[clients.pauses]\nevery = \"from-log\"\nlength = { kind = \"empirical\", file = \"d.txt\", format = \"durations\", tail = \"none\" }\n"), 0o644)
	if _, err := Load(filepath.Join(dir, "s.toml")); err == nil || !strings.Contains(err.Error(), "clients.pauses.every: every = \"from-log\" needs a log with the times of at least two pauses") {
		t.Errorf("from-log with a durations file: got %v", err)
	}
}
