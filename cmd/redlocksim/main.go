package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
)

// command is one subcommand, in the style of cmd/go's base.Command. Its
// run gets the arguments after the subcommand name, parses them with the
// shared flag groups (flags.go), runs and prints, and returns an error
// whose kind is the exit status (exitStatus, the one place that maps
// them). ctx is the one signal context (signals.go) for a command that
// sets signals: it is cancelled at the first SIGINT or SIGTERM, and the
// command stops there keeping what it finished. For the other commands
// ctx is never cancelled and a signal kills them at once, as by default.
type command struct {
	summary string
	signals bool
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

// hidden commands run but are not listed: the real harness's client
// process, which the binary runs as a child of itself.
var hidden = map[string]bool{}

func register(name string, c command) {
	commands[name] = c
}

func main() {
	dieByAbort()
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

// dieByAbort makes the Go runtime, when it dies of a fatal error (out of
// memory, a deadlock, a stack overflow) that no recover reaches, end the
// process with SIGABRT after its stacks, instead of exit status 2, which
// is bad input's. A shell reports such a death as 134 (128 + SIGABRT): a
// bug, like exit 3, never confused with bad input.
func dieByAbort() { debug.SetTraceback("crash") }

// realMain runs the command args name and returns its exit status. A
// panic that escapes a command is a bug: it is reported as one (exit 3),
// never as bad input.
func realMain(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if v := recover(); v != nil {
			status = exitStatus(stderr, &sweeprun.InternalError{Value: v, Stack: debug.Stack()})
		}
	}()
	return exitStatus(stderr, dispatch(args, stdout, stderr))
}

// dispatch picks the command args name and runs it, with the signal
// context if it takes one.
func dispatch(args []string, stdout, stderr io.Writer) error {
	name, rest := "run", args // the newcomer's first command: the debate's best-known picture
	switch {
	case len(args) == 0:
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help":
		if len(args) > 1 && args[0] == "help" {
			// help COMMAND: that command's usage, on stdout; help TOPIC: a
			// format's documentation, after the usage of the command of
			// the same name (help sweep) if there is one.
			c, ok := commands[args[1]]
			if ok {
				_ = c.run(context.Background(), []string{"-h"}, stdout, stdout)
			}
			if topic, isTopic := findHelpTopic(args[1]); isTopic {
				if ok {
					fmt.Fprintln(stdout)
				}
				fmt.Fprint(stdout, topic.text())
				return nil
			}
			if !ok {
				fmt.Fprintf(stderr, "redlocksim help: unknown command %q\n\n", args[1])
				usage(stderr)
				return badInput(nil)
			}
			return nil
		}
		usage(stdout)
		return nil
	case args[0] == "version" || args[0] == "--version" || args[0] == "-version":
		fmt.Fprintln(stdout, "redlocksim", versionLine())
		return nil
	case len(args[0]) > 1 && args[0][0] == '-':
		// Flags without a command are run's flags: `redlocksim --trace`.
	default:
		name, rest = args[0], args[1:]
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "redlocksim: unknown command %q\n\n", name)
		usage(stderr)
		return badInput(nil)
	}
	ctx := context.Background()
	if c.signals {
		var stop func()
		ctx, stop = signalContext(interruptSignals)
		defer stop()
	}
	return c.run(ctx, rest, stdout, stderr)
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
	helpTopicsUsage(w)
	fmt.Fprintln(w, "\nWith no command, redlocksim runs the gc-pause scenario.\nRun 'redlocksim help COMMAND' for a command's flags, 'redlocksim --version' for the version.\n\n"+exitTable)
}
