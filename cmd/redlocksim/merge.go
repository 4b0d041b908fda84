package main

import (
	"context"
	"fmt"
	"io"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
)

func cmdMerge(_ context.Context, args []string, _, stderr io.Writer) error {
	flags := newFlagSet("merge", `usage: redlocksim merge OUT SHARD...

Joins the files that 'redlocksim sweep --shard K/N' wrote for every shard of
one sweep (all results files, or all raw files; with --estimate too) into
OUT, byte for byte the file that one machine running the whole sweep
writes. It refuses files of different sweeps (their spec hashes differ; an
estimating sweep's hash covers its estimate flags too), shards given twice
or missing, and incomplete shard files.
`, stderr)
	pos, err := parseArgs(flags, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		flags.Usage()
		return badInput(nil)
	}
	if err := sweeprun.Merge(pos[0], pos[1:]); err != nil {
		// Files of different sweeps, a missing shard, an output that
		// cannot be written, an input that cannot be read: not a finding
		// (1), an input the command cannot use.
		return badInputf("redlocksim merge: %v", err)
	}
	fmt.Fprintf(stderr, "merged %d shards into %s\n", len(pos)-1, pos[0])
	return nil
}
