package compare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// SweepColumns follow the sweep's columns in compare sweep's file (RunPoints' rows):
// the mode (always real, so that a file mixed with a sweep's rows says
// which are which) and the scale the point's runs were made at.
var SweepColumns = []string{"mode", "scale"}

// Point is a selected point of a sweep and the scenario it makes.
type Point struct {
	sweep.Point
	Config model.Config
}

// Refusal is why a real run cannot take cfg, or "": what the harness
// refuses, or a scale at which its times fall below what a real run
// resolves.
func Refusal(cfg *model.Config) string {
	if refused, _ := harness.Refusals(cfg); len(refused) > 0 {
		msgs := make([]string, len(refused))
		for i, r := range refused {
			msgs[i] = r.Error()
		}
		return strings.Join(msgs, "; ")
	}
	if err := harness.CheckScale(cfg, harness.DefaultScale(cfg)); err != nil {
		return strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	return ""
}

// PointLabel names a point by its cells: lock.ttl=1s, nodes.clock.rate_ppm=0.
func PointLabel(spec *sweep.Spec, p sweep.Point) string {
	var parts []string
	for i, c := range spec.Columns {
		if p.Cells[i] != "" {
			parts = append(parts, c+"="+p.Cells[i])
		}
	}
	return strings.Join(parts, ", ")
}

// RunPoints makes runs real runs of each point by run, one at a time
// (real seeds 1..runs), progress called after each. A refusal at run time skips the
// point (with the reason on stderr); an interrupt or another error stops,
// and the points' finished runs are returned.
func RunPoints(ctx context.Context, spec *sweep.Spec, todo []Point, runs int, run RealRun, progress func(), stderr io.Writer) (rows []sweeprun.PointRow, interrupted bool, err error) {
	for _, rp := range todo {
		agg := &sweeprun.Aggregate{}
		scale := 0.0
		var runErr error
		for i := range runs {
			seed := uint64(i + 1)
			res, err := run(ctx, rp.Config, seed)
			if ctx.Err() != nil {
				interrupted = true
				break
			}
			if err != nil {
				runErr = fmt.Errorf("point %d (%s), real seed %d: %w", rp.Index, PointLabel(spec, rp.Point), seed, err)
				break
			}
			rep := ScenarioTime(res.Report, res.Scale)
			agg.Add(seed, &rep)
			scale = res.Scale
			if progress != nil {
				progress()
			}
		}
		if agg.Runs() > 0 {
			rows = append(rows, sweeprun.PointRow{Point: rp.Point, Runs: agg, Extra: []string{"real", strconv.FormatFloat(scale, 'g', -1, 64)}})
		}
		var refused *harness.RefusedError
		switch {
		case interrupted:
			return rows, true, nil
		case errors.As(runErr, &refused):
			fmt.Fprintf(stderr, "skipped point %d (%s): %v\n", rp.Index, PointLabel(spec, rp.Point), runErr)
		case runErr != nil:
			return rows, false, runErr
		}
	}
	return rows, false, nil
}

// ScenarioTime is a real run's report with its times multiplied back by
// the run's scale, so that its columns read as the simulator's do.
func ScenarioTime(r check.Report, scale float64) check.Report {
	up := func(d time.Duration) time.Duration { return time.Duration(float64(d) * scale) }
	r.MutexOverlapTotal, r.MutexOverlapMax = up(r.MutexOverlapTotal), up(r.MutexOverlapMax)
	r.AcquireP50, r.AcquireP99 = up(r.AcquireP50), up(r.AcquireP99)
	r.Unavailable, r.LongestOutage = up(r.Unavailable), up(r.LongestOutage)
	return r
}
