package model_test

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// simpyPython is a python3 that imports SimPy 2 (Debian's python3-simpy
// installs it for the system python, which may not be first on PATH), or
// "" when there is none.
func simpyPython() string {
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import SimPy.Simulation").Run() == nil {
			return py
		}
	}
	return ""
}

// TestSimPyBaselineSendsTheSameMessages checks that the SimPy model in
// testdata/simpy is the baseline world, so that the speed ratio of
// docs/results/benchmarks.md compares like with like: over the same
// number of runs, its mean messages per run is within 2% of redlocksim's.
// (The two draw different random numbers, so only the means can agree;
// over 8 runs of about 19,500 messages their spread is well under 1%.)
func TestSimPyBaselineSendsTheSameMessages(t *testing.T) {
	py := simpyPython()
	if py == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no python3 with SimPy 2; install the Debian package python3-simpy")
		}
		t.Skip("no python3 with SimPy 2; install the Debian package python3-simpy")
	}
	const runs = 8
	out, err := exec.Command(py, "testdata/simpy/baseline.py", "1", strconv.Itoa(runs)).Output()
	if err != nil {
		t.Fatalf("baseline.py: %v", err)
	}
	var simpy struct {
		Runs           int     `json:"runs"`
		MessagesPerRun float64 `json:"messages_per_run"`
	}
	if err := json.Unmarshal(out, &simpy); err != nil {
		t.Fatalf("baseline.py printed %q: %v", out, err)
	}
	if simpy.Runs != runs {
		t.Fatalf("baseline.py made %d runs, want %d", simpy.Runs, runs)
	}

	sc, err := scenarios.LoadLibrary("baseline")
	if err != nil {
		t.Fatal(err)
	}
	var sent uint64
	for seed := uint64(1); seed <= runs; seed++ {
		r, err := model.RunFast(sc.Config, seed)
		if err != nil {
			t.Fatal(err)
		}
		sent += r.Net.Sent
	}
	ours := float64(sent) / runs
	if d := math.Abs(simpy.MessagesPerRun-ours) / ours; d > 0.02 {
		t.Errorf("SimPy's baseline sends %.0f messages per run, redlocksim's %.0f: %.1f%% apart, want at most 2%%", simpy.MessagesPerRun, ours, 100*d)
	}
	t.Logf("messages per run: SimPy %.0f, redlocksim %.0f", simpy.MessagesPerRun, ours)
}
