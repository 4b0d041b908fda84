package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand: it gets its arguments (after the subcommand
// name) and returns the exit status: 0 for a completed job, 1 for a
// finding the user asked to fail on, 2 for bad input.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	commands[name] = command{summary: summary, run: run}
}

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		// The newcomer's first command: the debate's best-known picture.
		return commands["run"].run(nil, stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "--help", "-help":
		usage(stdout)
		return 0
	}
	if len(args[0]) > 1 && args[0][0] == '-' {
		// Flags without a command are run's flags: `redlocksim --trace`.
		return commands["run"].run(args, stdout, stderr)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "redlocksim: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: redlocksim COMMAND [arguments]\n\ncommands:")
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nWith no command, redlocksim runs the gc-pause scenario.\nRun 'redlocksim COMMAND -h' for a command's flags.")
}
