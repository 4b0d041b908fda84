package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
)

func init() {
	register("hunt", "run one scenario over many seeds and report the ones that violate", cmdHunt)
}

// cmdHunt answers "does this ever go wrong, and how often?": it runs a
// scenario over a range of seeds in parallel and prints the violation rates
// with their 95% intervals and the first violating seeds with a command to
// replay each. The output does not depend on the number of workers.
func cmdHunt(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hunt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: redlocksim hunt NAME|FILE [flags]

Runs one scenario over seeds from --from to --from+--seeds-1 and reports how
many runs violated mutual exclusion or the resource, with 95% Wilson
intervals, and the first violating seeds with commands that replay them.

flags:
`)
		fs.PrintDefaults()
	}
	seeds := fs.Int("seeds", 1000, "how many seeds to run")
	var from uint64 = 1
	fs.Func("from", "the first seed (default 1)", func(s string) error {
		v, err := parseSeed(s)
		from = v
		return err
	})
	workers := fs.Int("workers", runtime.NumCPU(), "runs made at once")
	show := fs.Int("show", 5, "how many violating seeds to list")
	var sets []string
	fs.Func("set", "override a scenario key, `key=value` with a TOML value (repeatable)", func(s string) error {
		sets = append(sets, s)
		return nil
	})
	tuneGCForManyRuns()
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(rest) != 1 {
		fmt.Fprintln(stderr, "redlocksim hunt: name one scenario (a built-in name or a .toml file)")
		return 2
	}
	if *seeds <= 0 || *workers <= 0 || *show < 0 {
		fmt.Fprintln(stderr, "redlocksim hunt: --seeds and --workers must be positive, --show not negative")
		return 2
	}
	sc, err := loadScenario(rest[0], sets)
	if err != nil {
		fmt.Fprintf(stderr, "redlocksim hunt: %v\n", err)
		return 2
	}

	type outcome struct {
		seed            uint64
		mutex, resource bool
	}
	var (
		mu     sync.Mutex
		bad    []outcome
		mutexN int
		resN   int
		runErr error
	)
	next := make(chan uint64)
	var wg sync.WaitGroup
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range next {
				r, err := model.RunFast(sc.Config, seed)
				mu.Lock()
				switch {
				case err != nil:
					runErr = err
				case !r.MutexSafe() || !r.ResourceSafe():
					o := outcome{seed, !r.MutexSafe(), !r.ResourceSafe()}
					bad = append(bad, o)
					if o.mutex {
						mutexN++
					}
					if o.resource {
						resN++
					}
				}
				mu.Unlock()
			}
		}()
	}
	for i := range *seeds {
		next <- from + uint64(i)
	}
	close(next)
	wg.Wait()
	if runErr != nil {
		fmt.Fprintf(stderr, "redlocksim hunt: %v\n", runErr)
		return 2
	}
	slices.SortFunc(bad, func(a, b outcome) int { return cmp.Compare(a.seed, b.seed) })

	n := *seeds
	rate := func(what string, k int) {
		lo, hi := sweeprun.Wilson(k, n)
		fmt.Fprintf(stdout, "  %-17s %d of %d runs (%.4g; 95%% interval %.4g–%.4g)\n", what, k, n, float64(k)/float64(n), lo, hi)
	}
	fmt.Fprintf(stdout, "%s: seeds %d to %d\n", sc.Name, from, from+uint64(n)-1)
	rate("mutual exclusion", mutexN)
	rate("resource", resN)
	if len(bad) == 0 {
		return 0
	}
	fmt.Fprintf(stdout, "\nfirst violating seeds:\n")
	for _, o := range bad[:min(*show, len(bad))] {
		var what []string
		if o.mutex {
			what = append(what, "mutex")
		}
		if o.resource {
			what = append(what, "resource")
		}
		fmt.Fprintf(stdout, "  seed %-8d %-15s %s\n", o.seed, strings.Join(what, "+"), replayCommand(rest[0], o.seed, sets))
	}
	return 0
}
