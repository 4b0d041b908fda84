package clockshim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

// need skips the test when err says a real component is missing, and
// fails it instead in CI.
func need(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var missing *proc.MissingError
	if errors.As(err, &missing) && os.Getenv("CI") != "true" {
		t.Skipf("skipping: %v", err)
	}
	t.Fatal(err)
}

func monoNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

// driver compiles testdata/evaldriver.c (the library and a main that
// answers questions about it) once per test binary.
var driver struct {
	once sync.Once
	path string
	err  error
}

func evalDriver(t *testing.T) string {
	t.Helper()
	_, err := Compiler()
	need(t, err)
	driver.once.Do(func() {
		cc, _ := Compiler()
		dir, err := os.MkdirTemp("", "clockshim-driver-*")
		if err != nil {
			driver.err = err
			return
		}
		driver.path = filepath.Join(dir, "evaldriver")
		if out, err := exec.Command(cc, "-O2", "-Wall", "-o", driver.path, "testdata/evaldriver.c").CombinedOutput(); err != nil {
			driver.err = fmt.Errorf("compile the driver: %v\n%s", err, out)
		}
	})
	require.NoError(t, driver.err)
	return driver.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if driver.path != "" {
		os.RemoveAll(filepath.Dir(driver.path))
	}
	os.Exit(code)
}

// ask runs the driver on the clock file at path with the given commands
// and returns its output lines.
func ask(t *testing.T, path string, cmds []string) []string {
	t.Helper()
	cmd := exec.Command(evalDriver(t))
	cmd.Env = append(os.Environ(), EnvVar+"="+path)
	cmd.Stdin = strings.NewReader(strings.Join(cmds, "\n") + "\n")
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("driver: %v: %s", err, ee.Stderr)
	}
	require.NoError(t, err)
	return strings.Fields(string(out))
}

func writeClock(t *testing.T, spec clocks.Spec) (*clocks.Clock, string) {
	t.Helper()
	c, err := clocks.New(spec)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "clock")
	require.NoError(t, Write(path, c))
	return c, path
}

var specs = map[string]clocks.Spec{
	"ideal":     {},
	"offset":    {Offset: -1500 * time.Millisecond},
	"fast":      {RatePPM: 50_000},
	"slow-odd":  {RatePPM: -99_999.999},
	"step-fwd":  {Steps: []clocks.Step{{At: 3 * time.Second, By: 4 * time.Second}}},
	"step-back": {RatePPM: 77, Steps: []clocks.Step{{At: time.Second, By: -15 * time.Second}}},
	"everything": {
		Offset: 7 * time.Millisecond, RatePPM: 123.456,
		RateChanges: []clocks.RateChange{{At: 2 * time.Second, RatePPM: -250}, {At: 11 * time.Second, RatePPM: 999}},
		Steps:       []clocks.Step{{At: 1500 * time.Millisecond, By: 9 * time.Second}, {At: 20 * time.Second, By: -2 * time.Second}},
		Slews: []clocks.Slew{{At: 3 * time.Second, By: 1234567 * time.Nanosecond, MaxPPM: 500},
			{At: 25 * time.Second, By: -3 * time.Millisecond, MaxPPM: 777.7}},
	},
}

// The library evaluates the segments exactly as clocks.Clock.Local does:
// at every segment boundary and its neighbours, and at many random points
// out to a day.
func TestLibraryReadsWhatLocalReads(t *testing.T) {
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			c, path := writeClock(t, spec)
			rng := rand.New(rand.NewPCG(1, uint64(len(name))))
			var at []time.Duration
			for _, g := range c.Segments() {
				for _, d := range []time.Duration{-1, 0, 1, 999_999_999, 1_000_000_001} {
					if g.At+d >= 0 {
						at = append(at, g.At+d)
					}
				}
			}
			for range 2000 {
				at = append(at, time.Duration(rng.Int64N(int64(40*time.Second))))
			}
			for range 200 {
				at = append(at, time.Duration(rng.Int64N(int64(24*time.Hour))))
			}
			cmds := make([]string, len(at))
			for i, a := range at {
				cmds[i] = "L " + strconv.FormatInt(int64(a), 10)
			}
			got := ask(t, path, cmds)
			require.Len(t, got, len(at))
			bad := 0
			for i, a := range at {
				if want := strconv.FormatInt(int64(c.Local(a)), 10); got[i] != want && bad < 5 {
					t.Errorf("at true %v: library reads %s, clocks.Local %s", a, got[i], want)
					bad++
				}
			}
		})
	}
}

// Through clock_gettime, gettimeofday and time, a process reads the
// machine's wall clock until T0 and epoch + Local(CLOCK_MONOTONIC - T0)
// after.
func TestWallFollowsTheFileFromT0(t *testing.T) {
	c, path := writeClock(t, specs["everything"])
	before := ask(t, path, []string{"N"})
	require.Len(t, before, 5)
	real := time.Now().UnixNano()
	w, _ := strconv.ParseInt(before[1], 10, 64)
	assert.InDelta(t, real, w, float64(time.Second), "before T0 the wall clock is the machine's")

	// T0 two seconds ago: the clock has stepped +9 s at 1.5 s.
	t0, epoch := monoNow()-int64(2*time.Second), time.Now().Add(-2*time.Second)
	require.NoError(t, Start(path, t0, epoch))
	for range 20 {
		out := ask(t, path, []string{"N"})
		n := func(i int) int64 { v, _ := strconv.ParseInt(out[i], 10, 64); return v }
		m1, w, m2, us, s := n(0), n(1), n(2), n(3), n(4)
		lo := epoch.UnixNano() + int64(c.Local(time.Duration(m1-t0)))
		hi := epoch.UnixNano() + int64(c.Local(time.Duration(m2-t0)))
		require.LessOrEqual(t, lo, w, "clock_gettime before the node's clock at the first monotonic reading")
		require.LessOrEqual(t, w, hi, "clock_gettime after the node's clock at the second monotonic reading")
		require.LessOrEqual(t, w/1000, us, "gettimeofday")
		require.LessOrEqual(t, us, hi/1000, "gettimeofday")
		require.LessOrEqual(t, w/1e9, s, "time")
		require.LessOrEqual(t, s, hi/1e9, "time")
		assert.Greater(t, w-time.Now().UnixNano(), int64(8*time.Second), "the +9 s step is in force")
	}
}

// A clock file that is named but not a clock file stops the process at its
// first clock reading, saying why, rather than letting it read some clock.
func TestMalformedFileStopsTheProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clock")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("x", 64)), 0o644))
	cmd := exec.Command(evalDriver(t))
	cmd.Env = append(os.Environ(), EnvVar+"="+path)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 70, ee.ExitCode())
	assert.Contains(t, string(out), "redlocksim clockshim: the clock file does not start with the magic RLSCLK01")

	cmd = exec.Command(evalDriver(t))
	cmd.Env = append(os.Environ(), EnvVar+"="+filepath.Join(t.TempDir(), "absent"))
	out, err = cmd.CombinedOutput()
	require.ErrorAs(t, err, &ee)
	assert.Contains(t, string(out), "cannot open the clock file")
}

func TestMissingCompilerNamesGCC(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := build(t.TempDir())
	var missing *proc.MissingError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, "gcc", missing.Package)
	assert.Contains(t, err.Error(), "install the Debian package gcc")
}

// Runs that compile the library at once all end with the same whole
// library, and a second call reuses it.
func TestConcurrentBuildsAgree(t *testing.T) {
	_, err := Compiler()
	need(t, err)
	dir := t.TempDir()
	paths := make([]string, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range paths {
		wg.Go(func() { paths[i], errs[i] = build(dir) })
	}
	wg.Wait()
	for i := range paths {
		require.NoError(t, errs[i])
		assert.Equal(t, paths[0], paths[i])
	}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 1, "no temporary file is left behind")
	assert.Equal(t, libName(), ents[0].Name())
	st, err := os.Stat(paths[0])
	require.NoError(t, err)
	again, err := build(dir)
	require.NoError(t, err)
	st2, err := os.Stat(again)
	require.NoError(t, err)
	assert.Equal(t, st.ModTime(), st2.ModTime(), "the second build reuses the library")
}

func TestChangesListsWhatMovesTheWallClock(t *testing.T) {
	got := Changes(clocks.Spec{
		Offset: 500 * time.Microsecond, RatePPM: 5,
		Steps: []clocks.Step{{At: time.Second, By: 2 * time.Millisecond}, {At: 2 * time.Second, By: -999 * time.Microsecond}},
		Slews: []clocks.Slew{{At: 3 * time.Second, By: 10 * time.Microsecond}},
	})
	assert.Equal(t, []Change{{"offset", 500 * time.Microsecond}, {"steps[0].by", 2 * time.Millisecond},
		{"steps[1].by", -999 * time.Microsecond}, {"slews[0].by", 10 * time.Microsecond}}, got)
	assert.Empty(t, Changes(clocks.Spec{RatePPM: 50_000}))
}
