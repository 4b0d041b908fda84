package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	"github.com/redlocksim/redlocksim/scenarios"
)

// The flag groups that several commands take. Each registers its flag on
// a command's FlagSet in one place, with one help text where the flag
// means the same everywhere (--set, --workers, --max-events), and checks
// its value in one place, with the message every command gives.

// flagSetMade, if set, is given every command's FlagSet as it is made:
// the tests walk the commands' flags with it.
var flagSetMade func(*flag.FlagSet)

// newFlagSet is a command's FlagSet: its errors and its usage go to
// stderr, and the usage is text followed by the flags (with no text, the
// flag package's "Usage of NAME:").
func newFlagSet(name, text string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if text != "" {
		fs.Usage = func() {
			fmt.Fprint(stderr, text)
			fs.PrintDefaults()
		}
	}
	if flagSetMade != nil {
		flagSetMade(fs)
	}
	return fs
}

// parseArgs parses args with fs, flags before or after the positional
// arguments, which it returns. -h gives flag.ErrHelp (exit 0, the usage
// printed); a bad flag is bad input, its message printed by the flag
// package.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parseInterleaved(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, err
	case err != nil:
		return nil, badInput(nil)
	}
	return pos, nil
}

// parseScenario is parseArgs for a command that takes one scenario, a
// built-in name or a .toml file, which it returns; anything else is bad
// input that says so.
func parseScenario(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := parseArgs(fs, args)
	switch {
	case err != nil:
		return "", err
	case len(pos) != 1:
		return "", badInputf("redlocksim %s: name one scenario (a built-in name or a .toml file)", fs.Name())
	}
	return pos[0], nil
}

// parseInterleaved parses flags that may come before or after the
// positional arguments (sweep NAME --out x as well as sweep --out x NAME).
// A lone "--" ends the flags.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// repeated is a flag that may be given again and again (--set, --over,
// --where, --label, --bound): its values, in order.
type repeated []string

func (r *repeated) String() string { return strings.Join(*r, " ") }

func (r *repeated) Set(v string) error {
	*r = append(*r, v)
	return nil
}

// setFlags is --set, repeatable: scenario keys overridden on the command
// line, in order.
type setFlags []string

func (s *setFlags) register(fs *flag.FlagSet) {
	fs.Var((*repeated)(s), "set", "override a scenario key, `key=value` with a TOML value (repeatable)")
}

// overrides checks the --set values: each a key=value with a TOML value.
func (s setFlags) overrides() ([]scenarios.Override, error) {
	return scenarios.ParseOverrides(s)
}

// workersFlag is --workers: the runs a command makes at once. What it
// finds does not depend on it.
type workersFlag int

func (w *workersFlag) register(fs *flag.FlagSet) {
	// Registered with 0 and set after, so that the help names no
	// machine's core count: it reads the same everywhere, as
	// docs/reference/cli.md, generated from it, must.
	fs.IntVar((*int)(w), "workers", 0, "runs made at once (default: one per core)")
	*w = workersFlag(runtime.NumCPU())
}

// maxWorkers bounds --workers: each worker holds one run's world, which
// its budget allows up to about 1 GB, and starts its goroutine at once;
// 100,000,000 workers died of the Go runtime's "out of memory" (hunt) or
// left a sweep deaf to its signals while it started them.
const maxWorkers = 1024

func (w workersFlag) check() error {
	if w < 1 || w > maxWorkers {
		return fmt.Errorf("--workers must be between 1 and %d (each worker holds a run's world; the default is one per core), got %d", maxWorkers, w)
	}
	return nil
}

// seedFlag is --seed: a non-negative integer, refused otherwise with one
// message (parseSeed's). Its help text says what the seed seeds, which
// differs by command.
type seedFlag struct {
	value uint64
	set   bool // given on the command line
}

func (s *seedFlag) register(fs *flag.FlagSet, usage string) {
	fs.Func("seed", usage, func(v string) error {
		n, err := parseSeed(v)
		s.value, s.set = n, true
		return err
	})
}

// or is the seed given, or def.
func (s seedFlag) or(def uint64) uint64 {
	if s.set {
		return s.value
	}
	return def
}

// parseSeed is a seed's one check.
func parseSeed(s string) (uint64, error) {
	var v uint64
	if _, err := fmt.Sscan(s, &v); err != nil || fmt.Sprint(v) != s {
		return 0, fmt.Errorf("a seed is a non-negative integer, got %q", s)
	}
	return v, nil
}

// outFlag is --out: where a command writes. What it names (a file, a
// directory) and its default differ by command, and so does its help text.
type outFlag string

func (o *outFlag) register(fs *flag.FlagSet, def, usage string) {
	fs.StringVar((*string)(o), "out", def, usage)
}

// required is the message of a command whose --out is missing.
func (o outFlag) required(cmd string) error {
	if o == "" {
		return badInputf("redlocksim %s: --out is required", cmd)
	}
	return nil
}

// dominantName is the name of the scenario a dominant failure path of
// scenario name is written as: the --out file's own name, or
// NAME-dominant when none is given.
func (o outFlag) dominantName(name string) string {
	if o == "" {
		return name + "-dominant"
	}
	return strings.TrimSuffix(filepath.Base(string(o)), ".toml")
}

// jsonFlag is --json: print one JSON document instead of text.
type jsonFlag bool

func (j *jsonFlag) register(fs *flag.FlagSet, usage string) {
	fs.BoolVar((*bool)(j), "json", false, usage)
}

// printJSON prints v as every command prints its --json: one document,
// indented by two spaces.
var printJSON = runjson.Print
