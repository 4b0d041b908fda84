package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
)

func init() {
	registerLegacy("merge", "join the shard files of a sweep into the file one machine would write", cmdMerge)
}

func cmdMerge(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("merge", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprint(stderr, `usage: redlocksim merge OUT SHARD...

Joins the files that 'redlocksim sweep --shard K/N' wrote for every shard of
one sweep (all results files, or all raw files) into OUT, byte for byte the
file that one machine running the whole sweep writes. It refuses files of
different sweeps (their spec hashes differ), shards given twice or missing,
and incomplete shard files.
`)
		flags.PrintDefaults()
	}
	pos, err := parseInterleaved(flags, args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	if len(pos) < 2 {
		flags.Usage()
		return 2
	}
	err = sweeprun.Merge(pos[0], pos[1:])
	var me *sweeprun.MergeError
	switch {
	case errors.As(err, &me) || errors.Is(err, fs.ErrNotExist):
		fmt.Fprintln(stderr, "redlocksim merge:", err)
		return 2
	case err != nil:
		// An output that cannot be written, an input that cannot be read:
		// not a finding (1), an input the command cannot use.
		fmt.Fprintln(stderr, "redlocksim merge:", err)
		return exitBadInput
	}
	fmt.Fprintf(stderr, "merged %d shards into %s\n", len(pos)-1, pos[0])
	return 0
}
