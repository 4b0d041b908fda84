package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/estimate"
	"github.com/redlocksim/redlocksim/cmd/internal/league"
	"github.com/redlocksim/redlocksim/plots"
)

type leagueFlags struct {
	seeds        int
	estimateRuns int
	workers      workersFlag
	out          string
}

func parseLeagueFlags(args []string, stderr io.Writer) (*leagueFlags, error) {
	fs := newFlagSet("league", `usage: redlocksim league [flags]

Runs every lock in its recommended configuration (Redlock, Redisson with
and without WAIT 1, etcd, ZooKeeper, Kubernetes leases, DynamoDB, Consul),
with and without fencing where the lock has a token, under the same fault
sets, judged by one checker, and writes league.md (the table), league.csv
(every cell) and league.png (the violation rates) to --out. The results
do not depend on --workers.

--estimate-runs N also asks the rare-event estimator (estimate's auto
method, seed 1, at most N runs each) about every unfenced cell with fewer
than 10 counted violations, and adds the probability that a run violates,
with its interval, to the table and the CSV. It is off by default: some
36 cells qualify, and at 2000 runs a cell took about 6 s on this shared
2-core machine (12 cells in 76 s), some 4 minutes more than the league.

flags:
`, stderr)
	f := &leagueFlags{}
	fs.IntVar(&f.seeds, "seeds", 200, "seeds per lock, fault set and fencing, 1 to 10000")
	fs.IntVar(&f.estimateRuns, "estimate-runs", 0, "the rare-event estimator's budget per cell with few violations: 0 (off) or at least 1000 runs")
	f.workers.register(fs)
	fs.StringVar(&f.out, "out", "league", "the `directory` the table, CSV and figure are written to")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil, err
		}
		return nil, badInput(err)
	}
	switch {
	case fs.NArg() > 0:
		return nil, badInputf("redlocksim league: unexpected argument %q", fs.Arg(0))
	case f.seeds < 1 || f.seeds > 10000:
		return nil, badInputf("redlocksim league: --seeds must be 1 to 10000, got %d", f.seeds)
	case f.estimateRuns != 0 && f.estimateRuns < estimate.MinRuns:
		return nil, badInputf("redlocksim league: --estimate-runs must be 0 (off) or at least %d (the estimator's pilot), got %d", estimate.MinRuns, f.estimateRuns)
	}
	if err := f.workers.check(); err != nil {
		return nil, badInputf("redlocksim league: %v", err)
	}
	return f, nil
}

func cmdLeague(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseLeagueFlags(args, stderr)
	if err != nil {
		return err
	}
	l, err := league.Play(ctx, f.seeds, int(f.workers), f.estimateRuns)
	if err != nil {
		return err
	}
	md := l.Markdown()
	if err := writeLeague(f.out, l, md); err != nil {
		return err
	}
	fmt.Fprint(stdout, md)
	fmt.Fprintf(stdout, "\nwrote %s, %s and %s\n", filepath.Join(f.out, "league.md"), filepath.Join(f.out, "league.csv"), filepath.Join(f.out, "league.png"))
	return nil
}

// writeLeague writes the table, the CSV and the figure into dir.
func writeLeague(dir string, l *league.League, md string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return badInputf("redlocksim league: %v", err)
	}
	if _, err := atomicfile.Write(filepath.Join(dir, "league.md"), []byte(md)); err != nil {
		return err
	}
	if _, err := atomicfile.Write(filepath.Join(dir, "league.csv"), l.CSV()); err != nil {
		return err
	}
	fig, err := l.Figure()
	if err != nil {
		return err
	}
	return saveFigure(fig, filepath.Join(dir, "league.png"), plots.HeatmapWidth, plots.HeatmapHeight)
}
