package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/schollz/progressbar/v3"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

func init() {
	register("hunt", "run one scenario over many seeds and report the ones that violate", cmdHunt)
}

// cmdHunt answers "does this ever go wrong, and how often?": it runs a
// scenario over a range of seeds in parallel and prints the violation rates
// with their 95% intervals and the first violating seeds with a command to
// replay each. The output does not depend on the number of workers, nor on
// interruptions followed by --resume: every finished seed is kept in a
// journal (the sweep's format) and the report is read back from it.
func cmdHunt(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hunt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `usage: redlocksim hunt NAME|FILE [flags]

Runs one scenario over seeds from --from to --from+--seeds-1 and reports how
many runs violated mutual exclusion or the resource, with 95%% Wilson
intervals, and the first violating seeds with commands that replay them.

Finished seeds are kept in a journal (--journal; by default in the user's
cache directory). Ctrl-C or SIGTERM prints what the finished seeds show and
exits 130 or 143; the same command with --resume continues the hunt and
ends with the report an uninterrupted hunt prints. At most %d seeds.

flags:
`, sweep.MaxSeeds)
		fs.PrintDefaults()
	}
	seeds := fs.Int("seeds", 1000, fmt.Sprintf("how many seeds to run, 1 to %d", sweep.MaxSeeds))
	var from uint64 = 1
	fs.Func("from", "the first seed (default 1)", func(s string) error {
		v, err := parseSeed(s)
		from = v
		return err
	})
	workers := fs.Int("workers", runtime.NumCPU(), "runs made at once")
	show := fs.Int("show", 5, "how many violating seeds to list")
	journal := fs.String("journal", "", "keep finished seeds in `FILE` (default: a file named after the scenario and the seeds, in the cache directory)")
	maxEvents := maxEventsFlag(fs)
	resume := fs.Bool("resume", false, "continue the interrupted hunt whose journal this command would use")
	var sets []string
	fs.Func("set", "override a scenario key, `key=value` with a TOML value (repeatable)", func(s string) error {
		sets = append(sets, s)
		return nil
	})
	tuneGCForManyRuns()
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadInput
	}
	if len(rest) != 1 {
		fmt.Fprintln(stderr, "redlocksim hunt: name one scenario (a built-in name or a .toml file)")
		return exitBadInput
	}
	if *seeds <= 0 || *workers <= 0 || *show < 0 {
		fmt.Fprintln(stderr, "redlocksim hunt: --seeds and --workers must be positive, --show not negative")
		return exitBadInput
	}
	if err := sweeprun.CheckHuntRange(from, *seeds); err != nil {
		fmt.Fprintln(stderr, "redlocksim hunt:", err)
		return exitBadInput
	}
	sc, hash, err := loadScenarioHash(rest[0], sets)
	if err != nil {
		fmt.Fprintf(stderr, "redlocksim hunt: %v\n", err)
		return exitBadInput
	}
	if *journal == "" {
		if *journal, err = defaultHuntJournal(hash, from, *seeds); err != nil {
			fmt.Fprintln(stderr, "redlocksim hunt:", err)
			return exitBadInput
		}
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, sweepSignals...)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got os.Signal
	stopped := make(chan struct{})
	go func() {
		select {
		case got = <-sigs:
			signal.Stop(sigs) // a second signal takes the default action: exit at once
			cancel()
		case <-stopped:
		}
	}()

	opt := sweeprun.HuntOptions{
		Plan: sc.Plan, MaxEvents: *maxEvents, Hash: hash, From: from, Seeds: *seeds, Workers: *workers,
		Journal: *journal, Resume: *resume, Run: modelRunFast,
		ReplayOf: func(seed uint64) string { return replayCommand(rest[0], seed, sets) },
	}
	var bar *progressbar.ProgressBar
	opt.Progress = func(done, todo int) {
		if huntProgress != nil {
			huntProgress(done, todo, cancel)
		}
		if isTerminal(stderr) {
			if bar == nil {
				bar = newBar(stderr, todo, "hunt "+sc.Name)
			}
			bar.Set(done)
		}
	}
	res, err := sweeprun.Hunt(ctx, opt)
	close(stopped)
	if bar != nil {
		if err == nil {
			bar.Finish()
		}
		fmt.Fprintln(stderr)
	}
	interrupted := errors.Is(err, sweeprun.ErrInterrupted)
	if err != nil && !interrupted {
		if st := internalStatus(stderr, err, exitBadInput); st != exitBadInput {
			return st
		}
		fmt.Fprintln(stderr, "redlocksim hunt:", err)
		return exitBadInput
	}

	n := res.Done
	rate := func(what string, k int) {
		lo, hi := sweeprun.Wilson(k, n)
		r := 0.0
		if n > 0 {
			r = float64(k) / float64(n)
		}
		fmt.Fprintf(stdout, "  %-17s %d of %d runs (%.4g; 95%% interval %.4g–%.4g)\n", what, k, n, r, lo, hi)
	}
	last := from + uint64(*seeds) - 1
	if interrupted {
		fmt.Fprintf(stdout, "%s: seeds %d to %d, interrupted with %d of %d done\n", sc.Name, from, last, n, *seeds)
	} else {
		fmt.Fprintf(stdout, "%s: seeds %d to %d\n", sc.Name, from, last)
	}
	rate("mutual exclusion", res.MutexN)
	rate("resource", res.ResN)
	if len(res.Bad) > 0 {
		fmt.Fprintf(stdout, "\nfirst violating seeds:\n")
		for _, o := range res.Bad[:min(*show, len(res.Bad))] {
			var what []string
			if o.Mutex {
				what = append(what, "mutex")
			}
			if o.Resource {
				what = append(what, "resource")
			}
			fmt.Fprintf(stdout, "  seed %-8d %-15s %s\n", o.Seed, strings.Join(what, "+"), replayCommand(rest[0], o.Seed, sets))
		}
	}
	if interrupted {
		fmt.Fprintf(stderr, "hunt %s interrupted: %d of %d seeds done, kept in %s; run the same command with --resume to continue\n",
			sc.Name, n, *seeds, res.Journal)
		if s, ok := got.(syscall.Signal); ok {
			return 128 + int(s) // as a shell reports it: 130 for SIGINT, 143 for SIGTERM
		}
		return exitInterrupted
	}
	return exitOK
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
