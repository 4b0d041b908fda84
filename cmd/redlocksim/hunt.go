package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// huntFlags are hunt's options.
type huntFlags struct {
	seeds, show int
	from        uint64
	workers     workersFlag
	journal     string
	maxEvents   *uint64
	resume      bool
	sets        setFlags
}

func parseHuntFlags(args []string, stderr io.Writer) (*huntFlags, string, error) {
	fs := newFlagSet("hunt", fmt.Sprintf(`usage: redlocksim hunt NAME|FILE [flags]

Runs one scenario over seeds from --from to --from+--seeds-1 and reports how
many runs violated mutual exclusion or the resource, with 95%% Wilson
intervals; the violations per acquisition and per hour of simulated time
(the scenario's duration times the seeds), with exact 95%% Poisson
(Garwood) intervals, whose upper bound is about 3.7/n when none was seen;
and the first violating seeds with commands that replay them.

Finished seeds are kept in a journal (--journal; by default in the user's
cache directory). Ctrl-C or SIGTERM prints what the finished seeds show and
exits 130 or 143; the same command with --resume continues the hunt and
ends with the report an uninterrupted hunt prints. At most %d seeds.

flags:
`, sweep.MaxSeeds), stderr)
	f := &huntFlags{from: 1}
	fs.IntVar(&f.seeds, "seeds", 1000, fmt.Sprintf("how many seeds to run, 1 to %d", sweep.MaxSeeds))
	fs.Func("from", "the first seed (default 1)", func(s string) error {
		v, err := parseSeed(s)
		f.from = v
		return err
	})
	f.workers.register(fs)
	fs.IntVar(&f.show, "show", 5, "how many violating seeds to list")
	fs.StringVar(&f.journal, "journal", "", "keep finished seeds in `FILE` (default: a file named after the scenario and the seeds, in the cache directory)")
	f.maxEvents = maxEventsFlag(fs)
	fs.BoolVar(&f.resume, "resume", false, "continue the interrupted hunt whose journal this command would use")
	f.sets.register(fs)
	tuneGCForManyRuns()
	arg, err := parseScenario(fs, args)
	switch {
	case err != nil:
		return nil, "", err
	case f.seeds <= 0 || f.show < 0:
		return nil, "", badInputf("redlocksim hunt: --seeds must be positive, --show not negative")
	}
	if err := f.workers.check(); err != nil {
		return nil, "", badInputf("redlocksim hunt: %v", err)
	}
	if err := sweeprun.CheckHuntRange(f.from, f.seeds); err != nil {
		return nil, "", badInputf("redlocksim hunt: %v", err)
	}
	return f, arg, nil
}

// cmdHunt answers "does this ever go wrong, and how often?": it runs a
// scenario over a range of seeds in parallel and prints the violation rates
// with their 95% intervals and the first violating seeds with a command to
// replay each. The output does not depend on the number of workers, nor on
// interruptions followed by --resume: every finished seed is kept in a
// journal (the sweep's format) and the report is read back from it.
func cmdHunt(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, arg, err := parseHuntFlags(args, stderr)
	if err != nil {
		return err
	}
	sc, hash, err := f.sets.load("hunt", arg)
	if err != nil {
		return err
	}
	if f.journal == "" {
		if f.journal, err = defaultHuntJournal(hash, f.from, f.seeds); err != nil {
			return badInputf("redlocksim hunt: %v", err)
		}
	}
	replay := func(seed uint64) string { return replayCommand(arg, seed, f.sets) }
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res, err := runHunt(ctx, cancel, sc.Plan, sc.Name, hash, f, replay, stderr)
	interrupted := errors.Is(err, sweeprun.ErrInterrupted)
	if err != nil && !interrupted {
		return badInputf("redlocksim hunt: %w", err)
	}
	writeHunt(stdout, sc.Name, f, res, interrupted, replay)
	if interrupted {
		return &interruptedError{sig: caughtSignal(ctx), msg: fmt.Errorf("hunt %s interrupted: %d of %d seeds done, kept in %s; run the same command with --resume to continue",
			sc.Name, res.Done, f.seeds, res.Journal)}
	}
	return nil
}

// runHunt runs the hunt, with a progress bar on a terminal.
func runHunt(ctx context.Context, cancel func(), plan *model.Plan, name, hash string, f *huntFlags, replay func(uint64) string, stderr io.Writer) (sweeprun.HuntResult, error) {
	opt := sweeprun.HuntOptions{
		Plan: plan, MaxEvents: *f.maxEvents, Hash: hash, From: f.from, Seeds: f.seeds, Workers: int(f.workers),
		Journal: f.journal, Resume: f.resume, Run: modelRunFast, ReplayOf: replay,
	}
	var bar *progressbar.ProgressBar
	opt.Progress = func(done, todo int) {
		if huntProgress != nil {
			huntProgress(done, todo, cancel)
		}
		if isTerminal(stderr) {
			if bar == nil {
				bar = newBar(stderr, todo, "hunt "+name)
			}
			bar.Set(done)
		}
	}
	res, err := sweeprun.Hunt(ctx, opt)
	if bar != nil {
		if err == nil {
			bar.Finish()
		}
		fmt.Fprintln(stderr)
	}
	return res, err
}

// writeHunt prints the rates of the finished seeds and the first
// violating ones.
func writeHunt(w io.Writer, name string, f *huntFlags, res sweeprun.HuntResult, interrupted bool, replay func(uint64) string) {
	n := res.Done
	rate := func(what string, k int) {
		lo, hi := results.Wilson(k, n)
		r := 0.0
		if n > 0 {
			r = float64(k) / float64(n)
		}
		fmt.Fprintf(w, "  %-17s %d of %d runs (%.4g; 95%% interval %.4g–%.4g)\n", what, k, n, r, lo, hi)
	}
	last := f.from + uint64(f.seeds) - 1
	if interrupted {
		fmt.Fprintf(w, "%s: seeds %d to %d, interrupted with %d of %d done\n", name, f.from, last, n, f.seeds)
	} else {
		fmt.Fprintf(w, "%s: seeds %d to %d\n", name, f.from, last)
	}
	rate("mutual exclusion", res.MutexN)
	rate("resource", res.ResN)
	perUnit := func(what string, r results.Rate, exposure string) {
		fmt.Fprintf(w, "  %-25s %d in %s: %v\n", what, r.Count, exposure, r)
	}
	acq := fmt.Sprintf("%.0f acquisitions", res.PerAcquisition.Mutex.Exposure)
	hours := fmt.Sprintf("%.4g simulated hours", res.PerHour.Mutex.Exposure)
	perUnit("mutex per acquisition", res.PerAcquisition.Mutex, acq)
	perUnit("mutex per hour", res.PerHour.Mutex, hours)
	perUnit("resource per acquisition", res.PerAcquisition.Resource, acq)
	perUnit("resource per hour", res.PerHour.Resource, hours)
	if len(res.Bad) > 0 {
		fmt.Fprintf(w, "\nfirst violating seeds:\n")
		for _, o := range res.Bad[:min(f.show, len(res.Bad))] {
			var what []string
			if o.Mutex {
				what = append(what, "mutex")
			}
			if o.Resource {
				what = append(what, "resource")
			}
			fmt.Fprintf(w, "  seed %-8d %-15s %s\n", o.Seed, strings.Join(what, "+"), replay(o.Seed))
		}
	}
}

// huntProgress, if set, sees the hunt's progress with a function that
// interrupts it as a signal does: tests stop a hunt part way with it.
var huntProgress func(done, todo int, interrupt func())

// defaultHuntJournal is the journal of a hunt when --journal is not given:
// in the user's cache directory (the working directory if there is none),
// named after what decides the hunt's result, so that the same command
// finds it again with --resume and another hunt does not.
func defaultHuntJournal(hash string, from uint64, seeds int) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = "."
	} else {
		dir = filepath.Join(dir, "redlocksim")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("cannot make the journal's directory (give --journal FILE): %w", err)
		}
	}
	h := sha256.Sum256([]byte(hash + " " + strconv.FormatUint(from, 10) + " " + strconv.Itoa(seeds)))
	return filepath.Join(dir, "hunt-"+hex.EncodeToString(h[:8])+".partial"), nil
}
