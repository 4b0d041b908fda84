package raresweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// Options are an estimating sweep's settings.
type Options struct {
	Out    string // the results CSV; OUT.partial holds the finished rows until the end
	Resume bool   // go on from OUT.partial
	Shard  sweep.Shard
	// Estimate is every point's estimate settings; Plan and Seed are set
	// per point.
	Estimate estimate.Options
	// Progress is told of each point as it finishes (nil: nothing).
	Progress func(done, todo int, p sweep.Point, r *estimate.Result)
}

// Summary is what a sweep did.
type Summary struct {
	Points, Resumed, Ran int
	Untrustworthy        int // points whose estimate's diagnostics failed
	Wall                 time.Duration
}

// ErrInterrupted: the sweep stopped early; its finished rows are in
// OUT.partial.
var ErrInterrupted = errors.New("interrupted")

// Header is the CSV's header for spec: its keys, then the estimate's
// columns for property prop.
func Header(spec *sweep.Spec, prop estimate.Property) []string {
	p := prop.String() + "_violation_probability"
	return append(append([]string(nil), spec.Columns...),
		p, p+"_ci_low", p+"_ci_high", "per_acquisition", "per_acquisition_ci_low", "per_acquisition_ci_high",
		"rel_error", "upper_bound_only", "method", "runs", "violating_runs", "ess", "largest_weight_share", "trustworthy", "seed")
}

func row(p sweep.Point, seed uint64, r *estimate.Result) []string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	rel := ""
	if !r.UpperBound {
		rel = g(r.RelError)
	}
	return append(append([]string(nil), p.Cells...),
		g(r.Probability), g(r.CILow), g(r.CIHigh), g(r.PerAcquisition), g(r.PerAcquisitionLow), g(r.PerAcquisitionHigh),
		rel, strconv.FormatBool(r.UpperBound), r.Method, strconv.Itoa(r.EstimateRuns), strconv.Itoa(r.Violations),
		g(r.ESS), g(r.LargestWeightShare), strconv.FormatBool(r.Trustworthy), strconv.FormatUint(seed, 10))
}

// Run estimates every point of opt.Shard in order and writes the CSV.
func Run(ctx context.Context, spec *sweep.Spec, opt Options) (Summary, error) {
	start := time.Now()
	header := Header(spec, opt.Estimate.Property)
	partial := opt.Out + ".partial"
	done := map[string][]string{} // point key → its finished row
	if opt.Resume {
		var err error
		if done, err = readPartial(partial, header, spec, opt.Shard); err != nil {
			return Summary{}, err
		}
	} else if _, err := os.Stat(partial); err == nil {
		return Summary{}, fmt.Errorf("%s holds an interrupted estimating sweep: run with --resume to go on from it, or remove it", partial)
	}
	n := opt.Shard.Count(spec.NumPoints())
	sum := Summary{Points: n}
	var rows [][]string
	for j := 0; j < n; j++ {
		p := spec.Point(opt.Shard.Point(j))
		if r, ok := done[p.Key]; ok {
			rows = append(rows, r)
			sum.Resumed++
			continue
		}
		if ctx.Err() != nil {
			break
		}
		sc, err := spec.Scenario(p)
		if err != nil {
			return sum, fmt.Errorf("point %d: %w", p.Index, err)
		}
		eo := opt.Estimate
		eo.Plan, eo.Seed, eo.Log = sc.Plan, spec.RunSeed(p, 0), nil
		res, err := estimate.Estimate(ctx, eo)
		if err != nil {
			return sum, fmt.Errorf("point %d (%s): %w", p.Index, sc.Name, err)
		}
		if strings.HasPrefix(res.Stopped, "interrupted") {
			break // a point cut short is not a finished row
		}
		rows = append(rows, row(p, eo.Seed, res))
		sum.Ran++
		if !res.Trustworthy && !res.UpperBound {
			sum.Untrustworthy++
		}
		if err := writeCSV(partial, header, rows); err != nil {
			return sum, err
		}
		if opt.Progress != nil {
			opt.Progress(sum.Ran+sum.Resumed, n, p, res)
		}
	}
	sum.Wall = time.Since(start)
	if len(rows) < n {
		return sum, ErrInterrupted
	}
	if err := writeCSV(opt.Out, header, rows); err != nil {
		return sum, err
	}
	os.Remove(partial)
	return sum, nil
}

func writeCSV(path string, header []string, rows [][]string) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(header)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		return err
	}
	_, err := atomicfile.Write(path, b.Bytes())
	return err
}

// readPartial reads the finished rows of an interrupted sweep of the same
// spec and shard, keyed by point.
func readPartial(path string, header []string, spec *sweep.Spec, shard sweep.Shard) (map[string][]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--resume: no interrupted sweep at %s", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	got, err := r.Read()
	if err != nil || !slices.Equal(got, header) {
		return nil, fmt.Errorf("--resume: %s is not an estimating sweep of %s with these columns", path, spec.Name)
	}
	byCells := map[string]sweep.Point{}
	for j := 0; j < shard.Count(spec.NumPoints()); j++ {
		p := spec.Point(shard.Point(j))
		byCells[fmt.Sprint(p.Cells)] = p
	}
	out := map[string][]string{}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("--resume: %s:%d: %v", path, line, err)
		}
		p, ok := byCells[fmt.Sprint(rec[:len(spec.Columns)])]
		if !ok {
			return nil, fmt.Errorf("--resume: %s:%d is no point of this sweep's shard", path, line)
		}
		out[p.Key] = rec
	}
}
