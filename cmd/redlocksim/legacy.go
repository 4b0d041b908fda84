package main

import (
	"context"
	"errors"
	"io"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
)

// exitCode is the status of a command not yet returning an error.
type exitCode int

func (e exitCode) Error() string { return "" }

func registerLegacy(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	register(name, command{summary: summary, run: func(_ context.Context, args []string, stdout, stderr io.Writer) error {
		if n := run(args, stdout, stderr); n != exitOK {
			return exitCode(n)
		}
		return nil
	}})
}

// internalStatus returns exitInternal, after reporting it, if err is an
// internal error; otherwise other.
func internalStatus(w io.Writer, err error, other int) int {
	var ie *sweeprun.InternalError
	if errors.As(err, &ie) {
		return reportInternal(w, ie)
	}
	return other
}
