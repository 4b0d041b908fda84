package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
)

// Exit statuses, the same for every command; exitStatus gives them.
const (
	exitOK       = 0 // the job is done
	exitFinding  = 1 // a finding the user asked to fail on (--fail-on-violation, --fail-on-unexpected), or a real run that failed
	exitBadInput = 2 // bad input, or an output the command cannot write
	exitInternal = 3 // a bug in redlocksim: a panic, reported with what reproduces it
	// exitEnvironment is the machine's fault, not the input's: a program
	// a real run needs is not installed, a resource limit (ulimit -n) is
	// too low, a port is in use.
	exitEnvironment = 4
	// exitSignaled + N is the status of a command signal N stopped, as a
	// shell reports one it killed; exitInterrupted is SIGINT's, the status
	// of a command that does not report which signal stopped it.
	exitSignaled    = 128
	exitInterrupted = exitSignaled + int(syscall.SIGINT)
)

// exitTable is the exit statuses as help prints them, every command's.
const exitTable = `Exit status, the same for every command:
  0    done
  1    a finding: a violation where none was expected (--fail-on-violation,
       --fail-on-unexpected), a disagreement, a real run that failed
  2    bad input: a file, flag or value that cannot be used, an output that
       cannot be written (the message names the file, line and key)
  3    an internal error: a bug, please report it (a Go runtime crash ends
       with SIGABRT instead, 134 in a shell)
  4    the environment: a program that is not installed, a resource limit
       (ulimit -n), a port in use
  130  stopped by SIGINT (Ctrl-C); 143 by SIGTERM; what was finished is kept`

// exitStatus is the one place a command's error becomes an exit status,
// and where what it says goes to stderr:
//
//   - nil, or -h's flag.ErrHelp (the usage is printed): exitOK;
//   - a *sweeprun.InternalError, even wrapped in another kind: a bug,
//     reported with the seed and the command that replay it: exitInternal;
//   - an interruption: 128 + the signal's number, or exitInterrupted;
//   - a finding: exitFinding;
//   - the environment: exitEnvironment;
//   - bad input: exitBadInput;
//   - any other error: no command returns one on purpose (os.Executable
//     failing, say), so it is redlocksim's failure: exitInternal.
//
// The kinds print their message as it is (each names its command), or
// nothing when it is already on stderr (the flag package's, a usage).
func exitStatus(stderr io.Writer, err error) int {
	var (
		internal *sweeprun.InternalError
		stopped  *interruptedError
		found    *findingError
		env      *environmentError
		bad      *badInputError
	)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &internal):
		return reportInternal(stderr, internal)
	case errors.As(err, &stopped):
		say(stderr, stopped.msg)
		return stopped.status()
	case errors.As(err, &found):
		say(stderr, found.err)
		return exitFinding
	case errors.As(err, &env):
		say(stderr, env.err)
		return exitEnvironment
	case errors.As(err, &bad):
		say(stderr, bad.err)
		return exitBadInput
	}
	fmt.Fprintln(stderr, err)
	return exitInternal
}

// say prints err's message on its own line, if there is one.
func say(w io.Writer, err error) {
	if err != nil {
		fmt.Fprintln(w, err)
	}
}

// badInputError is input the command cannot use, or an output it cannot
// write: exitBadInput.
type badInputError struct{ err error } // nil: the message is on stderr already

func (e *badInputError) Error() string { return message(e.err, "bad input") }
func (e *badInputError) Unwrap() error { return e.err }

// badInput is err as bad input; nil when the message is printed already.
func badInput(err error) error { return &badInputError{err} }

// badInputf is badInput of a formatted message (%w keeps an internal
// error an internal error).
func badInputf(format string, a ...any) error { return badInput(fmt.Errorf(format, a...)) }

// environmentError is what the machine lacks: a program a real run needs,
// a resource (file descriptors, a port): exitEnvironment.
type environmentError struct{ err error }

func (e *environmentError) Error() string { return message(e.err, "the environment") }
func (e *environmentError) Unwrap() error { return e.err }

// environment is err as the environment's fault.
func environment(err error) error { return &environmentError{err} }

// findingError is a finding the user asked to fail on, or a real run that
// failed: exitFinding.
type findingError struct{ err error } // nil: the finding is in the output

func (e *findingError) Error() string { return message(e.err, "a finding") }
func (e *findingError) Unwrap() error { return e.err }

// finding is err as a finding; nil when the output shows it.
func finding(err error) error { return &findingError{err} }

// interruptedError is a command a signal (or a test) stopped; what it
// finished is kept (the journal, the findings so far). The signal
// context's cause is one, with the signal.
type interruptedError struct {
	sig os.Signal // the signal, for a status as a shell reports it (128 + its number); nil: exitInterrupted
	msg error     // what was kept and how to continue, if anything
}

func (e *interruptedError) Error() string {
	if e.msg != nil {
		return e.msg.Error()
	}
	if e.sig != nil {
		return e.sig.String()
	}
	return "interrupted"
}

func (e *interruptedError) status() int {
	if n, ok := e.sig.(syscall.Signal); ok {
		return exitSignaled + int(n)
	}
	return exitInterrupted
}

// interrupted is the interruption of a command that ctx's signal
// stopped: 128 + its number, as every command reports it (explore and
// compare said 130 for SIGTERM too).
func interrupted(ctx context.Context) error { return &interruptedError{sig: caughtSignal(ctx)} }

func message(err error, none string) string {
	if err == nil {
		return none
	}
	return err.Error()
}

// reportInternal prints an internal error as a bug report asks for it:
// what went wrong, the seed and the command that replays it (when a run
// panicked), the version and the stack. It returns exitInternal.
func reportInternal(w io.Writer, ie *sweeprun.InternalError) int {
	fmt.Fprintf(w, "redlocksim: internal error: %v\n", ie.Value)
	fmt.Fprintln(w, "This is a bug in redlocksim, not a problem with your input. Please report it,")
	fmt.Fprintln(w, "with this whole message, at the project's issue tracker.")
	if ie.Replay != "" {
		fmt.Fprintf(w, "  seed %d; replay with:\n    %s\n", ie.Seed, ie.Replay)
	}
	fmt.Fprintf(w, "  version: %s\n\n%s", versionLine(), ie.Stack)
	return exitInternal
}
