package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
)

// list and 'sweep --list': the built-in scenarios and sweeps, one a line.

func cmdList(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if err := newFlagSet("list", `usage: redlocksim list

Lists the built-in scenarios, one a line: its name, the outcome it expects
(mutual exclusion and the resource) and what happens in it. Run one with
'redlocksim run NAME'; 'redlocksim help scenario' is the file format.
`, stderr).Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return badInput(nil) // the flag package said what
	}
	names := scenarios.LibraryNames()
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		sc, err := scenarios.LoadLibrary(n)
		if err != nil {
			return badInputf("redlocksim list: %v", err)
		}
		exp := fmt.Sprintf("mutex %s, resource %s", orDash(sc.Expect.Mutex), orDash(sc.Expect.Resource))
		fmt.Fprintf(stdout, "%-*s  %-38s  %s\n", width, n, exp, sc.Description)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// listSweeps prints each built-in sweep's name, size and description.
func listSweeps(stdout io.Writer) error {
	for _, name := range scenarios.SweepNames() {
		spec, err := sweep.Load(name)
		if err != nil {
			// A broken built-in sweep is a bug, not bad input.
			return &sweeprun.InternalError{Value: err, Stack: debug.Stack()}
		}
		fmt.Fprintf(stdout, "%-14s %3d points × %3d seeds  %s\n", name, spec.NumPoints(), spec.Seeds, spec.Description)
	}
	return nil
}
