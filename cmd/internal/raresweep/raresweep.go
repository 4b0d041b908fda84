package raresweep

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
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
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// Options are an estimating sweep's settings.
type Options struct {
	Out    string // the results CSV; OUT.partial holds the finished rows until the end
	Resume bool   // go on from OUT.partial, if there is one
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

// Header is the CSV's header for spec: point, the keys (sweep.KeyTable:
// each key's value, and KEY_s in seconds beside a duration key, as a
// sweep's results file has them), then the estimate's columns for
// property prop.
func Header(spec *sweep.Spec, prop estimate.Property) []string {
	p := prop.String() + "_violation_probability"
	return slices.Concat([]string{"point"}, spec.Keys().Columns(), []string{
		p, p + "_ci_low", p + "_ci_high", "per_acquisition", "per_acquisition_ci_low", "per_acquisition_ci_high",
		"rel_error", "upper_bound_only", "method", "runs", "violating_runs", "ess", "largest_weight_share", "trustworthy", "seed"})
}

func row(keys *sweep.KeyTable, p sweep.Point, seed uint64, r *estimate.Result) []string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	rel := ""
	if !r.UpperBound {
		rel = g(r.RelError)
	}
	return slices.Concat([]string{strconv.Itoa(p.Index)}, keys.Cells(p), []string{
		g(r.Probability), g(r.CILow), g(r.CIHigh), g(r.PerAcquisition), g(r.PerAcquisitionLow), g(r.PerAcquisitionHigh),
		rel, strconv.FormatBool(r.UpperBound), r.Method, strconv.Itoa(r.EstimateRuns), strconv.Itoa(r.Violations),
		g(r.ESS), g(r.LargestWeightShare), strconv.FormatBool(r.Trustworthy), strconv.FormatUint(seed, 10)})
}

// Hash names everything an estimating sweep's rows depend on: the spec
// (its sweep.Spec.Hash) and the estimate's settings, not its workers.
// A shard's file carries it, so that merge refuses shards of different
// sweeps or settings.
func Hash(spec *sweep.Spec, o estimate.Options) string {
	h := sha256.New()
	fmt.Fprintf(h, "redlocksim sweep --estimate v1\nspec %s\nproperty %v method %s rel %v max-runs %d max-time %v max-events %d pilot %d ce %d chunk %d particles %d\n",
		spec.Hash(), o.Property, o.Method, o.RelError, o.MaxRuns, o.MaxTime, o.MaxEvents, o.Pilot, o.CERuns, o.Chunk, o.Particles)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Run estimates every point of opt.Shard in order and writes the CSV.
func Run(ctx context.Context, spec *sweep.Spec, opt Options) (Summary, error) {
	start := time.Now()
	header := Header(spec, opt.Estimate.Property)
	keys := spec.Keys()
	first := "" // a shard's files start with the line merge reads
	if !opt.Shard.IsZero() {
		first = sweeprun.ShardLine(Hash(spec, opt.Estimate), opt.Shard, spec.NumPoints())
	}
	partial := opt.Out + ".partial"
	done := map[string][]string{} // point key → its finished row
	if opt.Resume {
		var err error
		if done, err = readPartial(partial, first, header, spec, opt.Shard); err != nil {
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
		rows = append(rows, row(keys, p, eo.Seed, res))
		sum.Ran++
		if !res.Trustworthy && !res.UpperBound {
			sum.Untrustworthy++
		}
		if err := writeCSV(partial, first, header, rows); err != nil {
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
	if err := writeCSV(opt.Out, first, header, rows); err != nil {
		return sum, err
	}
	os.Remove(partial)
	return sum, nil
}

// writeCSV writes the file: first (a shard's line, or none), the header
// and the rows.
func writeCSV(path, first string, header []string, rows [][]string) error {
	var b bytes.Buffer
	if first != "" {
		fmt.Fprintln(&b, first)
	}
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
// spec, settings and shard (its first line is first), keyed by point;
// none if there is no such file.
func readPartial(path, first string, header []string, spec *sweep.Spec, shard sweep.Shard) (map[string][]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		// Nothing to go on from: start afresh, as a sweep's --resume does
		// (a Slurm task requeued before its first point).
		return map[string][]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	line0 := 1
	if first != "" {
		got, rest, _ := strings.Cut(string(data), "\n")
		if got != first {
			return nil, fmt.Errorf("--resume: %s is not of this shard of this sweep with these settings: its first line is %q, want %q", path, got, first)
		}
		data, line0 = []byte(rest), 2
	}
	r := csv.NewReader(bytes.NewReader(data))
	got, err := r.Read()
	if err != nil || !slices.Equal(got, header) {
		return nil, fmt.Errorf("--resume: %s is not an estimating sweep of %s with these columns", path, spec.Name)
	}
	byIndex := map[string]sweep.Point{}
	for j := 0; j < shard.Count(spec.NumPoints()); j++ {
		p := spec.Point(shard.Point(j))
		byIndex[strconv.Itoa(p.Index)] = p
	}
	out := map[string][]string{}
	for line := line0 + 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("--resume: %s:%d: %v", path, line, err)
		}
		p, ok := byIndex[rec[0]]
		if !ok {
			return nil, fmt.Errorf("--resume: %s:%d is no point of this sweep's shard", path, line)
		}
		out[p.Key] = rec
	}
}
