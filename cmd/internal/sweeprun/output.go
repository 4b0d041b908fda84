package sweeprun

import (
	"context"
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// ResultColumns are the results file's columns after point and the axis
// columns, RateColumns its last ones (after any extra columns), RawColumns
// the raw file's after point, replicate, seed and the axis columns (replay
// comes last): the header names of package results' Summary, Rates and
// Raw, where each column is defined once with its label, unit and
// interval.
var (
	ResultColumns = results.Names(results.Summary)
	RateColumns   = results.Names(results.Rates)
	RawColumns    = results.Names(results.Raw)
)

// agg accumulates one point's runs, in replicate order.
type agg struct {
	runs, mutexRuns, resourceRuns        int
	mutexViolations, successes, failures int64
	lost, staleAccepted, staleRejected   int64
	overlapNS, unavailableNS, p99NS      float64
	p99Runs                              int
	longestNS                            int64
	// the spreads of the averaged values, for their intervals
	perAcquisition                                     results.CoSpread
	overlap, lostS, staleAccS, staleRejS, succS, failS results.Spread
	p99S, unavailableS                                 results.Spread
}

func (a *agg) add(r *record) {
	a.runs++
	if r.mutex() {
		a.mutexRuns++
	}
	if r.resource() {
		a.resourceRuns++
	}
	a.mutexViolations += r.MutexViolations
	a.successes += r.AcquireSuccesses
	a.failures += r.AcquireFailures
	a.lost += r.LostUpdates
	a.staleAccepted += r.StaleWritesAccepted
	a.staleRejected += r.StaleWritesRejected
	a.overlapNS += float64(r.MutexOverlap)
	a.unavailableNS += float64(r.Unavailable)
	if r.AcquireSuccesses > 0 {
		a.p99NS += float64(r.AcquireP99)
		a.p99Runs++
	}
	a.longestNS = max(a.longestNS, r.LongestOutage)
	a.perAcquisition.Add(float64(r.AcquireSuccesses), float64(r.MutexViolations))
	a.overlap.Add(float64(r.MutexOverlap))
	a.lostS.Add(float64(r.LostUpdates))
	a.staleAccS.Add(float64(r.StaleWritesAccepted))
	a.staleRejS.Add(float64(r.StaleWritesRejected))
	a.succS.Add(float64(r.AcquireSuccesses))
	a.failS.Add(float64(r.AcquireFailures))
	a.unavailableS.Add(float64(r.Unavailable))
	if r.AcquireSuccesses > 0 {
		a.p99S.Add(float64(r.AcquireP99))
	}
}

// meanCells are an averaged column's value and its interval's two cells;
// dividing by unit converts the sums' unit to the column's (1e6: ns to ms).
func meanCells(sum float64, n int, s *results.Spread, unit float64) []string {
	if n == 0 {
		return []string{"", "", ""}
	}
	mean := sum / float64(n) / unit
	lo, hi, ok := s.Interval(mean, unit)
	if !ok {
		return []string{num(mean), "", ""}
	}
	return []string{num(mean), num(lo), num(hi)}
}

// row is the results row after point and the axis cells.
func (a *agg) row() []string {
	n := float64(a.runs)
	mlo, mhi := results.Wilson(a.mutexRuns, a.runs)
	rlo, rhi := results.Wilson(a.resourceRuns, a.runs)
	per1k := []string{"", "", ""}
	if a.successes > 0 {
		r := float64(a.mutexViolations) / float64(a.successes)
		per1k[0] = num(1000 * r)
		if lo, hi, ok := a.perAcquisition.RatioInterval(r, 1000); ok {
			per1k[1], per1k[2] = num(lo), num(hi)
		}
	}
	return slices.Concat(
		[]string{strconv.Itoa(a.runs), strconv.Itoa(a.mutexRuns), num(float64(a.mutexRuns) / n), num(mlo), num(mhi)},
		per1k, meanCells(a.overlapNS, a.runs, &a.overlap, 1e6),
		[]string{strconv.Itoa(a.resourceRuns), num(float64(a.resourceRuns) / n), num(rlo), num(rhi)},
		meanCells(float64(a.lost), a.runs, &a.lostS, 1),
		meanCells(float64(a.staleAccepted), a.runs, &a.staleAccS, 1),
		meanCells(float64(a.staleRejected), a.runs, &a.staleRejS, 1),
		meanCells(float64(a.successes), a.runs, &a.succS, 1),
		meanCells(float64(a.failures), a.runs, &a.failS, 1),
		meanCells(a.p99NS, a.p99Runs, &a.p99S, 1e6),
		meanCells(a.unavailableNS, a.runs, &a.unavailableS, 1e6),
		[]string{num(float64(a.longestNS) / 1e6)},
	)
}

// rateRow is the point's RateColumns' cells; runLength is the duration
// of each of its runs in simulated time (the scenario's duration).
// Resource violations are lost updates plus stale writes accepted.
func (a *agg) rateRow(runLength time.Duration) []string {
	hours := float64(a.runs) * runLength.Hours()
	acq := float64(a.successes)
	resource := a.lost + a.staleAccepted
	return slices.Concat(
		[]string{strconv.FormatInt(a.mutexViolations, 10), strconv.FormatInt(resource, 10),
			strconv.FormatInt(a.successes, 10), results.Sig(hours)},
		results.NewRate(a.mutexViolations, acq).Cells(), results.NewRate(a.mutexViolations, hours).Cells(),
		results.NewRate(resource, acq).Cells(), results.NewRate(resource, hours).Cells(),
	)
}

// runLength is the simulated duration of each run of point p.
func runLength(spec *sweep.Spec, p sweep.Point) (time.Duration, error) {
	sc, err := spec.Scenario(p)
	if err != nil {
		return 0, err
	}
	return sc.Plan.Config().Duration, nil
}

func rawRow(r *record) []string {
	out := make([]string, 0, nFields)
	for k, f := range r.fields() {
		switch k {
		case 1, 9, 10, 11, 12: // durations, in ms
			out = append(out, num(float64(*f)/1e6))
		default:
			out = append(out, strconv.FormatInt(*f, 10))
		}
	}
	return out
}

// num writes a float with six decimals at most, without trailing zeros:
// 0.05, 1, 123.456789. Durations in ms are so exact to the nanosecond.
func num(f float64) string {
	s := strconv.FormatFloat(f, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// shardLine is the first line of a shard's files: a CSV comment (pandas:
// comment="#"; R: comment.char="#") that merge reads. An adaptive sweep's
// says its rule (seeds is then the most a point may take).
func shardLine(hash string, sh sweep.Shard, points int, smp sampling, kind string) string {
	return fmt.Sprintf("# redlocksim sweep spec=%s shard=%s points=%d seeds=%d%s file=%s", hash, sh, points, smp.per, smp.suffix(), kind)
}

// ShardLine is the first line of a results file of one row per point
// that another runner writes for shard sh (sweep --estimate), so that
// Merge joins its shards as it joins a sweep's: hash names everything the
// rows depend on.
func ShardLine(hash string, sh sweep.Shard, points int) string {
	return shardLine(hash, sh, points, sampling{per: 1}, "results")
}

// atomicFile is a CSV output written through package atomicfile: under a
// temporary name renamed over the target (through a symlink), or directly
// into a device or pipe.
type atomicFile struct {
	*atomicfile.File
	csv *csv.Writer
}

func createAtomic(path string) (*atomicFile, error) {
	return createAtomicContext(context.Background(), path)
}

// createAtomicContext is createAtomic for a sweep a signal may stop while
// it waits for a pipe's reader (see atomicfile.CreateContext).
func createAtomicContext(ctx context.Context, path string) (*atomicFile, error) {
	f, err := atomicfile.CreateContext(ctx, path)
	if err != nil {
		return nil, err
	}
	return &atomicFile{File: f, csv: csv.NewWriter(f)}, nil
}

func (a *atomicFile) commit() error {
	a.csv.Flush()
	if err := a.csv.Error(); err != nil {
		a.Abort()
		return err
	}
	return a.Commit()
}

func (a *atomicFile) abort() { a.Abort() }

// Analytic is a set of columns computed per point rather than from its
// runs; Cells gives one value per column ("" where it has none).
type Analytic struct {
	Columns []string
	Cells   func(p sweep.Point) []string
}

// writeOutputs writes the results file (and the raw file) from a complete
// journal, reading its slots in order: one point at a time in memory. An
// adaptive point's runs are read up to where its rule stopped it, which
// is decided again here from the journal, batch by batch. made is the
// number of runs the files hold; direct lists the files written in place
// rather than atomically (see package atomicfile).
//
// A signal (ctx's end) stops it while it waits for a pipe's reader or for
// a stalled one to read: the error is then ErrInterrupted, and the
// journal is kept for --resume.
func writeOutputs(ctx context.Context, spec *sweep.Spec, sh sweep.Shard, hash string, j *journal, smp sampling, out, raw string, an *Analytic) (direct []string, made int, err error) {
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("%w while writing its output: %v", ErrInterrupted, err)
		}
	}()
	res, err := createAtomicContext(ctx, out)
	if err != nil {
		return nil, 0, err
	}
	defer func() {
		if err != nil {
			res.abort()
		}
	}()
	var rw *atomicFile
	if raw != "" {
		if rw, err = createAtomicContext(ctx, raw); err != nil {
			return nil, 0, err
		}
		defer func() {
			if err != nil {
				rw.abort()
			}
		}()
	}
	if !sh.IsZero() {
		fmt.Fprintln(res, shardLine(hash, sh, spec.NumPoints(), smp, "results"))
	}
	var anColumns []string
	if an != nil {
		anColumns = an.Columns
	}
	keys := spec.Keys()
	res.csv.Write(slices.Concat(ResultHeader(keys), anColumns, RateColumns))
	if rw != nil {
		if !sh.IsZero() {
			fmt.Fprintln(rw, shardLine(hash, sh, spec.NumPoints(), smp, "raw"))
		}
		rw.csv.Write(slices.Concat([]string{"point", "replicate", "seed"}, keys.Columns(), RawColumns, []string{"replay"}))
	}
	sr := j.slots()
	for lp := range sh.Count(spec.NumPoints()) {
		p := spec.Point(sh.Point(lp))
		pi, cells := strconv.Itoa(p.Index), keys.Cells(p)
		var a agg
		for rep := 0; rep < smp.per; rep++ {
			i := lp*smp.per + rep
			r, ok, err := sr.read(i)
			if err != nil {
				return nil, 0, err
			}
			if !ok {
				return nil, 0, fmt.Errorf("run %d (point %d, replicate %d) is missing from the journal", i, p.Index, rep)
			}
			if want := spec.RunSeed(p, rep); r.Seed != want {
				return nil, 0, fmt.Errorf("run %d (point %d, replicate %d) has seed %d in the journal, want %d", i, p.Index, rep, r.Seed, want)
			}
			a.add(&r)
			made++
			if rw != nil {
				rw.csv.Write(slices.Concat([]string{pi, strconv.Itoa(rep), strconv.FormatUint(r.Seed, 10)}, cells, rawRow(&r), []string{spec.Replay(p, r.Seed)}))
			}
			if n := rep + 1; n == smp.batchEnd(rep) && smp.stop(a.mutexRuns, n) {
				break
			}
		}
		var anCells []string
		if an != nil {
			anCells = an.Cells(p)
		}
		length, err := runLength(spec, p)
		if err != nil {
			return nil, 0, err
		}
		res.csv.Write(slices.Concat([]string{pi}, cells, a.row(), anCells, a.rateRow(length)))
	}
	for _, f := range []*atomicFile{res, rw} {
		if f == nil {
			continue
		}
		if err = f.commit(); err != nil {
			return nil, 0, err
		}
		if f.Direct() {
			direct = append(direct, f.Name())
		}
	}
	return direct, made, nil
}

// Wilson is results.Wilson, kept for the real harness's tests, which run
// real processes for minutes: they move to package results when they are
// next changed for their own sake.
func Wilson(k, n int) (lo, hi float64) { return results.Wilson(k, n) }
