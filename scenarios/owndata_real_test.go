package scenarios

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/scenarios/internal/datafile"
)

// The empirical tables' tests read real logs made here: a Go program run
// with GODEBUG=gctrace=1, and a Java program run under Debian's OpenJDK
// with each of its collectors. Hand-written lines would only test what
// their writer believed the formats to be.

// need is the path of binary, or the test skips naming the Debian
// package (and fails under CI=true, where .ci/run installs it).
func need(t *testing.T, binary, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(binary)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s is not installed (Debian package %s)", binary, pkg)
		}
		t.Skipf("skipping: %s is not installed: install the Debian package %s", binary, pkg)
	}
	return p
}

// command is a child that dies with the test: killed on the test's end
// and on the test process's death.
func command(t *testing.T, name string, args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// realGoTrace builds testdata/gctrace and runs it with gctrace on; it
// returns the trace's path and the number of gc lines.
func realGoTrace(t *testing.T, dir string) (string, int) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = need(t, "go", "golang-go")
	}
	bin := filepath.Join(dir, "gctrace")
	build := command(t, goBin, "build", "-o", bin, "./testdata/gctrace")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := command(t, bin, "-cycles", "1200")
	run.Env = append(os.Environ(), "GODEBUG=gctrace=1")
	var stderr strings.Builder
	run.Stderr = &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("gctrace: %v\n%s", err, stderr.String())
	}
	path := filepath.Join(dir, "go.trace")
	if err := os.WriteFile(path, []byte(stderr.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, strings.Count(stderr.String(), "\ngc ") + 1
}

// realJVMLog runs testdata/gcjava/Churn.java under the collector gc
// until it has collected cycles times, logging to a file it returns.
func realJVMLog(t *testing.T, dir, gc string, cycles int) string {
	java := need(t, "java", "openjdk-17-jdk-headless")
	need(t, "javac", "openjdk-17-jdk-headless") // source-file mode compiles in the JVM
	log := filepath.Join(dir, gc+".log")
	src, err := filepath.Abs("testdata/gcjava/Churn.java")
	if err != nil {
		t.Fatal(err)
	}
	cmd := command(t, java, "-XX:+"+gc, "-Xmx64m", "-Xlog:gc,gc+phases:file="+log, src, strconv.Itoa(cycles))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("java %s: %v\n%s", gc, err, out)
	}
	return log
}

// parseLog reads the log at path as format, failing the test on an error.
func parseLog(t *testing.T, format, path string) ([]byte, datafile.Data) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := datafile.Parse(format, data, datafile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return data, d
}

func TestEmpiricalRealGoTrace(t *testing.T) {
	dir := t.TempDir()
	trace, gcs := realGoTrace(t, dir)
	_, d := parseLog(t, datafile.GoGCTrace, trace)
	// Two stop-the-world phases per cycle, each with the cycle's time.
	if len(d.Samples) != 2*gcs || gcs < 1200 {
		t.Fatalf("%d samples from %d gc lines, want two per line and at least 1200 lines", len(d.Samples), gcs)
	}
	for i, s := range d.Samples {
		if s < 0 || s > 10*time.Second || (i > 0 && d.At[i] < d.At[i-1]) {
			t.Fatalf("sample %d: %v at %v (previous at %v): not a pause of a real trace", i, s, d.At[i], d.At[max(i-1, 0)])
		}
	}
	// As a scenario's pause lengths, with the default tail, and as a JVM
	// log by mistake.
	scen := filepath.Join(dir, "s.toml")
	os.WriteFile(scen, []byte(base+"[clients.pauses]\nevery = \"1s\"\nlength = { kind = \"empirical\", file = \"go.trace\", format = \"go-gctrace\" }\n"), 0o644)
	sc := mustLoad(t, scen)
	l := sc.Config.Clients[0].Pauses.Length
	if kind, _ := l.Table.Tail(); kind != network.TailLognormal || l.Table.N() != len(d.Samples) {
		t.Errorf("loaded %v, want the trace's %d samples with a lognormal tail", l, len(d.Samples))
	}
	if _, err := model.RunFast(sc.Config, 1); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(scen, []byte(base+"[clients.pauses]\nevery = \"1s\"\nlength = { kind = \"empirical\", file = \"go.trace\", format = \"jvm-gc\" }\n"), 0o644)
	if _, err := Load(scen); err == nil || !strings.Contains(err.Error(), `this looks like a go-gctrace file, not jvm-gc`) {
		t.Errorf("a Go trace read as a JVM log: got %v", err)
	}
}

func TestEmpiricalRealJVMLogs(t *testing.T) {
	dir := t.TempDir()
	g1 := realJVMLog(t, dir, "UseG1GC", 1200)
	data, d := parseLog(t, datafile.JVMGC, g1)
	pauses := strings.Count(string(data), ") Pause ")
	if len(d.Samples) != pauses || pauses < 1000 || len(d.At) != pauses {
		t.Fatalf("%d samples (%d timed) from a G1 log with %d pause lines, want one each and at least 1000", len(d.Samples), len(d.At), pauses)
	}
	// The practitioner's use: pause lengths from their G1 log, with the
	// tail fitted above the 90th percentile.
	scen := filepath.Join(dir, "s.toml")
	os.WriteFile(scen, []byte(base+"[clients.pauses]\nevery = \"1s\"\nlength = { kind = \"empirical\", file = \"UseG1GC.log\", format = \"jvm-gc\", tail = \"pareto\" }\n"), 0o644)
	sc := mustLoad(t, scen)
	if tab := sc.Config.Clients[0].Pauses.Length.Table; tab.N() != pauses || tab.TailShare() < 0.09 {
		t.Errorf("loaded %v, want %d pauses and a tail above the p90", tab, pauses)
	}
	if _, err := model.RunFast(sc.Config, 1); err != nil {
		t.Fatal(err)
	}
	// Its pause times, as the arrivals.
	os.WriteFile(scen, []byte(base+"[clients.pauses]\nevery = \"from-log\"\nlength = { kind = \"empirical\", file = \"UseG1GC.log\", format = \"jvm-gc\" }\n"), 0o644)
	sc = mustLoad(t, scen)
	if a := sc.Config.Clients[0].Pauses.Arrivals; len(a) < pauses/2 || a[len(a)-1] != d.At[len(d.At)-1]-d.At[0] {
		t.Errorf("%d arrivals ending at %v, want the log's %d pause times ending at %v", len(a), a[len(a)-1], pauses, d.At[len(d.At)-1]-d.At[0])
	}
	if _, err := model.RunFast(sc.Config, 1); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(scen, []byte(base+"[clients.pauses]\nevery = \"1s\"\nlength = { kind = \"empirical\", file = \"UseG1GC.log\", format = \"go-gctrace\" }\n"), 0o644)
	if _, err := Load(scen); err == nil || !strings.Contains(err.Error(), `this looks like a jvm-gc file, not go-gctrace`) {
		t.Errorf("a JVM log read as a Go trace: got %v", err)
	}
	// The other collectors write their pauses in their own words.
	for _, gc := range []string{"UseParallelGC", "UseZGC", "UseShenandoahGC"} {
		t.Run(gc, func(t *testing.T) {
			data, d := parseLog(t, datafile.JVMGC, realJVMLog(t, dir, gc, 40))
			if pauses := strings.Count(string(data), " Pause "); len(d.Samples) != pauses || pauses == 0 {
				t.Errorf("%d samples from %d pause lines", len(d.Samples), pauses)
			}
		})
	}
}
