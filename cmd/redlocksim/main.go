package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
)

// Exit statuses, the same for every command.
const (
	exitOK       = 0 // the job is done
	exitFinding  = 1 // a finding the user asked to fail on (--fail-on-violation, --fail-on-unexpected)
	exitBadInput = 2 // bad input, or an output the command cannot write
	exitInternal = 3 // a bug in redlocksim: a panic, reported with what reproduces it
)

// command is one subcommand: it gets its arguments (after the subcommand
// name) and returns the exit status (exitOK ... exitInternal).
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

// hidden commands run but are not listed: the real harness's client
// process, which the binary runs as a child of itself.
var hidden = map[string]bool{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	commands[name] = command{summary: summary, run: run}
}

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

// realMain runs the command args name. A panic that escapes a command is
// a bug: it is reported as one (exit 3), never as bad input.
func realMain(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if v := recover(); v != nil {
			status = reportInternal(stderr, &sweeprun.InternalError{Value: v, Stack: debug.Stack()})
		}
	}()
	if len(args) == 0 {
		// The newcomer's first command: the debate's best-known picture.
		return commands["run"].run(nil, stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "--help", "-help":
		if len(args) > 1 && args[0] == "help" {
			// help COMMAND: that command's usage, on stdout.
			c, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(stderr, "redlocksim help: unknown command %q\n\n", args[1])
				usage(stderr)
				return exitBadInput
			}
			c.run([]string{"-h"}, stdout, stdout)
			return exitOK
		}
		usage(stdout)
		return exitOK
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "redlocksim", versionLine())
		return exitOK
	}
	if len(args[0]) > 1 && args[0][0] == '-' {
		// Flags without a command are run's flags: `redlocksim --trace`.
		return commands["run"].run(args, stdout, stderr)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "redlocksim: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitBadInput
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: redlocksim COMMAND [arguments]\n\ncommands:")
	var names []string
	for n := range commands {
		if !hidden[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nWith no command, redlocksim runs the gc-pause scenario.\nRun 'redlocksim help COMMAND' for a command's flags, 'redlocksim --version' for the version.\n\nExit status: 0 done; 1 a finding asked for with --fail-on-violation or\n--fail-on-unexpected; 2 bad input; 3 an internal error (a bug: please report it).")
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

// internalStatus returns exitInternal, after reporting it, if err is an
// internal error; otherwise other.
func internalStatus(w io.Writer, err error, other int) int {
	var ie *sweeprun.InternalError
	if errors.As(err, &ie) {
		return reportInternal(w, ie)
	}
	return other
}
