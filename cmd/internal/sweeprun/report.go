package sweeprun

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// EstimateLine is what a sweep says (on stderr) before its runs: how many, and how
// long they should take.
func EstimateLine(spec *sweep.Spec, shard sweep.Shard, e Estimate, ciWidth float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sweep %s", spec.Name)
	if !shard.IsZero() {
		fmt.Fprintf(&b, " shard %s", shard)
	}
	if e.Adaptive {
		fmt.Fprintf(&b, ": at most %d runs to make (each point until its interval is narrower than %v)", e.Runs, ciWidth)
	} else {
		fmt.Fprintf(&b, ": %d runs to make", e.Runs)
	}
	est := e.Wall.Round(time.Second)
	switch {
	case e.Wall < time.Second:
		est = e.Wall.Round(time.Millisecond)
	case e.Wall < 10*time.Second:
		est = e.Wall.Round(100 * time.Millisecond)
	}
	if e.Calibrated == 0 {
		fmt.Fprintf(&b, " on %d workers: at least %v (no calibration run finished within %v)", e.Workers, est, CalibrationTime)
	} else {
		fmt.Fprintf(&b, " on %d workers: about %v (%v a run, timed over %d runs)", e.Workers, est, e.PerRun.Round(100*time.Microsecond), e.Calibrated)
	}
	return b.String()
}

// Meta is a sweep's sidecar OUT.meta.json: where the CSV came from. The CSV
// itself stays the same bytes on every machine (so pandas and R read it as
// before); what differs from run to run (the version, the command line,
// the workers, the wall time) is here.
type Meta struct {
	Version     string   `json:"version"`
	Spec        string   `json:"spec"`
	SpecHash    string   `json:"spec_hash"`
	Command     []string `json:"command"`
	Shard       string   `json:"shard,omitempty"`
	Points      int      `json:"points"`
	Seeds       int      `json:"seeds"` // runs per point
	Runs        int      `json:"runs"`
	Resumed     int      `json:"resumed"` // runs taken from the journal of an interrupted sweep
	Workers     int      `json:"workers"`
	WallSeconds float64  `json:"wall_seconds"`
	// CIWidth is an adaptive sweep's --ci-width (Seeds is then the most
	// a point takes, and Runs what the points took).
	CIWidth float64 `json:"ci_width,omitempty"`
	// DataFiles are the measurement files the points read, each once,
	// with its hash: where the CSV's numbers came from (absent with none).
	DataFiles []runjson.DataFile `json:"data_files,omitempty"`
}

// SpecDataFiles are the data files of every point of spec, each (key,
// path, hash) once, in the order of the points.
func SpecDataFiles(spec *sweep.Spec) ([]runjson.DataFile, error) {
	var files []scenarios.DataFile
	seen := map[scenarios.DataFile]bool{}
	for i := range spec.NumPoints() {
		sc, err := spec.Scenario(spec.Point(i))
		if err != nil {
			return nil, err
		}
		for _, f := range sc.DataFiles {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	return runjson.DataFiles(files), nil
}

// MetaPath is the sidecar of the results file out.
func MetaPath(out string) string { return out + ".meta.json" }

// WriteMeta writes the sidecar atomically; beside a device such as
// /dev/null there is no sidecar.
func WriteMeta(out string, m Meta) error {
	if fi, err := os.Stat(out); err == nil && !fi.Mode().IsRegular() {
		return nil
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	_, err = atomicfile.Write(MetaPath(out), append(b, '\n'))
	return err
}

// SummaryLine is the one line a sweep prints when it is done.
func SummaryLine(spec *sweep.Spec, shard sweep.Shard, sum Summary, out, raw string, ciWidth float64, maxSeeds int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sweep %s", spec.Name)
	if !shard.IsZero() {
		fmt.Fprintf(&b, " shard %s", shard)
	}
	if ciWidth > 0 {
		fmt.Fprintf(&b, ": %d points, %d runs (%d fewer than %d seeds each, stopping at a 95%% interval narrower than %v)",
			sum.Points, sum.Runs, sum.Points*maxSeeds-sum.Runs, maxSeeds, ciWidth)
	} else {
		fmt.Fprintf(&b, ": %d points × %d seeds = %d runs", sum.Points, spec.Seeds, sum.Runs)
	}
	if sum.Resumed > 0 {
		fmt.Fprintf(&b, " (%d from the journal)", sum.Resumed)
	}
	wall := sum.Wall.Round(time.Millisecond)
	rate := 0.0
	if s := sum.Wall.Seconds(); s > 0 {
		rate = float64(sum.Ran) / s
	}
	fmt.Fprintf(&b, " in %v, %.1f runs/s; wrote %s", wall, rate, out)
	if raw != "" {
		fmt.Fprintf(&b, " and %s", raw)
	}
	return b.String()
}
