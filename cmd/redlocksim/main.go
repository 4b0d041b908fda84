package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
)

// command is one subcommand, in the style of cmd/go's base.Command. Its
// run gets the arguments after the subcommand name, parses them with the
// shared flag groups (flags.go), runs and prints, and returns an error
// whose kind is the exit status (exitStatus, the one place that maps
// them). ctx is the one signal context (signals.go): it is cancelled at
// the first SIGINT or SIGTERM, and a command that sets signals stops there
// keeping what it finished (or, blocked where no signal reaches, is ended
// after signalGrace). The other commands end at once, with the signal's
// status (130, 143) as for every command.
type command struct {
	name    string
	summary string
	signals bool
	hidden  bool // runs but is not listed: the real harness's client process, which the binary runs as a child of itself
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	// subcommands are the command's own (compare runs|sweep|explore),
	// which its run dispatches to; 'help COMMAND SUBCOMMAND' prints one's
	// usage.
	subcommands []*command
}

// commands is every command, in the order the usage lists them: the one
// place a command is declared, as cmd/go's main.go declares its own.
var commands = []*command{
	{name: "assess", summary: "answer 'is our lock safe enough?': P(violation) per acquisition and per year, the failure path, the breaking pause, the remedies", signals: true, run: cmdAssess},
	{name: "boundary", summary: "bisect one scenario key to the value where the verdict flips", run: cmdBoundary},
	compareCommand(realPoint(os.Executable)),
	{name: "estimate", summary: "estimate how rare a violation is, down to 1e-9, with a 95% interval", signals: true, run: cmdEstimate},
	{name: "explore", summary: "search random fault schedules for counterexamples and shrink them to minimal scenario files", signals: true, run: cmdExplore},
	{name: "hunt", summary: "run one scenario over many seeds and report the ones that violate", signals: true, run: cmdHunt},
	{name: "lab", summary: "serve the lecture lab: the debate as an interactive page", signals: true, run: cmdLab},
	{name: "league", summary: "run every lock in its recommended configuration under the same faults, and tabulate them", run: cmdLeague},
	{name: "list", summary: "list the built-in scenarios", run: cmdList},
	{name: "merge", summary: "join the shard files of a sweep into the file one machine would write", run: cmdMerge},
	{name: "plot", summary: "draw a sweep's results", run: cmdPlot},
	{name: "real", summary: "run one scenario against real redis-server processes and lock clients", signals: true, run: cmdReal},
	{name: "real-client", hidden: true, run: cmdRealClient},
	{name: "report", summary: "write the debate as one self-contained HTML page", run: cmdReport},
	{name: "run", summary: "run one scenario and judge it", run: cmdRun},
	{name: "sweep", summary: "run a scenario over a grid of settings and seeds; write violation rates as CSV", signals: true, run: cmdSweep},
}

// lookup is the command of cmds called name, or nil.
func lookup(cmds []*command, name string) *command {
	for _, c := range cmds {
		if c.name == name {
			return c
		}
	}
	return nil
}

func main() {
	dieByAbort()
	exitStuck = os.Exit
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
func realMain(args []string, stdout, stderr io.Writer) int {
	return realMainOf(commands, args, stdout, stderr)
}

// realMainOf is realMain over the commands cmds: a test gives it a
// command of its own.
func realMainOf(cmds []*command, args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if v := recover(); v != nil {
			status = exitStatus(stderr, &sweeprun.InternalError{Value: v, Stack: debug.Stack()})
		}
	}()
	return exitStatus(stderr, dispatch(cmds, args, stdout, stderr))
}

// dispatch picks the command of cmds args name and runs it, with the
// signal context if it takes one.
func dispatch(cmds []*command, args []string, stdout, stderr io.Writer) error {
	name, rest := "run", args // the newcomer's first command: the debate's best-known picture
	switch {
	case len(args) == 0:
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help":
		if len(args) > 1 && args[0] == "help" {
			// help COMMAND: that command's usage, on stdout; help TOPIC: a
			// format's documentation, after the usage of the command of
			// the same name (help sweep) if there is one.
			c := lookup(cmds, args[1])
			ok := c != nil
			if ok && len(args) > 2 && c.subcommands != nil {
				// help COMMAND SUBCOMMAND: the subcommand's usage.
				if sub := lookup(c.subcommands, args[2]); sub != nil {
					_ = sub.run(context.Background(), []string{"-h"}, stdout, stdout)
					return nil
				}
				fmt.Fprintf(stderr, "redlocksim help: %s has no subcommand %q\n", args[1], args[2])
				return badInput(nil)
			}
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
	c := lookup(cmds, name)
	if c == nil {
		fmt.Fprintf(stderr, "redlocksim: unknown command %q\n\n", name)
		usage(stderr)
		return badInput(nil)
	}
	grace := time.Duration(0) // a command that does not watch ctx ends at the signal
	if c.signals {
		grace = signalGrace
	}
	ctx, stop := signalContext(interruptSignals, grace, stopStuck(c.name, c.signals, stderr))
	defer stop()
	return refusedAsBadInput(c.name, c.run(ctx, rest, stdout, stderr))
}

// refusedAsBadInput makes a run refused over its budget, that command name
// returned as it came, bad input (2) with the command's name: estimate and
// assess of gc-pause with 1000 nodes and 1000 clients exited 3, as a bug,
// with the budget's message alone.
func refusedAsBadInput(name string, err error) error {
	var (
		budget *model.BudgetError
		bad    *badInputError
	)
	if errors.As(err, &budget) && !errors.As(err, &bad) {
		return badInputf("redlocksim %s: %w", name, err)
	}
	return err
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: redlocksim COMMAND [arguments]\n\ncommands:")
	for _, c := range commands {
		if !c.hidden {
			fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
		}
	}
	helpTopicsUsage(w)
	fmt.Fprintln(w, "\nWith no command, redlocksim runs the gc-pause scenario.\nRun 'redlocksim help COMMAND' for a command's flags, 'redlocksim --version' for the version.\n\n"+exitTable)
}
