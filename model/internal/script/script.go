package script

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata scripts with the actual output")

// Separator is the line between a command and its expected output.
const Separator = "----"

// Arg is one argument of a command line: Key=Val, or a bare word (Val "").
type Arg struct {
	Key, Val string
}

// Case is one command of a script.
type Case struct {
	File string
	Line int // line of the command, 1-based
	Cmd  string
	Args []Arg

	t      testing.TB
	lead   []string // comments and blank lines before the command, verbatim
	raw    string   // the command line as written
	want   []string
	closed bool // the output block was ended by a blank line
}

// Pos is the case's file:line.
func (c *Case) Pos() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

// Fatalf fails the test at the case's file:line: for bad input in the script.
func (c *Case) Fatalf(format string, a ...any) {
	c.t.Helper()
	c.t.Fatalf("%s: %s: %s", c.Pos(), c.raw, fmt.Sprintf(format, a...))
}

// Has reports whether the bare word or key is among the arguments.
func (c *Case) Has(key string) bool {
	for _, a := range c.Args {
		if a.Key == key {
			return true
		}
	}
	return false
}

// Get returns the value of key=value, and whether it was given.
func (c *Case) Get(key string) (string, bool) {
	for _, a := range c.Args {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// Word returns the i-th bare word, failing the test when there is none.
func (c *Case) Word(i int, what string) string {
	c.t.Helper()
	n := 0
	for _, a := range c.Args {
		if a.Val == "" && !strings.Contains(a.Key, "=") {
			if n == i {
				return a.Key
			}
			n++
		}
	}
	c.Fatalf("missing argument %d (%s)", i+1, what)
	return ""
}

// Files lists dir/*.txt in name order, failing the test when there is none.
func Files(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no scripts in %s", dir)
	}
	sort.Strings(files)
	return files
}

// Commands are a package's script commands, by name, bound to one
// script's state. The command First builds the world the others run on:
// every script opens with it, and gives it once.
type Commands struct {
	First string
	Run   map[string]func(c *Case) string
}

// Walk runs each script in dir (dir/*.txt) as a subtest named after the
// file. newState is called once per file and returns the commands bound to
// that file's state, so each script starts from a fresh world.
func Walk(t *testing.T, dir string, newState func(t *testing.T) Commands) {
	for _, f := range Files(t, dir) {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			Run(t, f, newState(t).dispatch())
		})
	}
}

// dispatch is the callback for Run that looks each case's command up and
// holds the script to First: an unknown command, a command before First
// or First given again fails at the case's line.
func (cs Commands) dispatch() func(c *Case) string {
	built := false
	return func(c *Case) string {
		c.t.Helper()
		run, ok := cs.Run[c.Cmd]
		switch {
		case !ok:
			names := make([]string, 0, len(cs.Run))
			for n := range cs.Run {
				names = append(names, n)
			}
			sort.Strings(names)
			c.Fatalf("unknown command %q (valid: %s)", c.Cmd, strings.Join(names, " "))
		case c.Cmd != cs.First && !built:
			c.Fatalf("the first command must be %s", cs.First)
		case c.Cmd == cs.First && built:
			c.Fatalf("%s given twice", cs.First)
		}
		built = true
		return run(c)
	}
}

// Run runs every case of the script at path through do, in order, and
// compares each output with the expected one; with -rewrite it writes the
// file back with the actual outputs instead.
func Run(t testing.TB, path string, do func(c *Case) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases, tail, err := Parse(path, string(b))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, c := range cases {
		c.t = t
		got := normalize(do(c))
		for i, l := range got {
			if l == "" {
				t.Fatalf("%s: %s: output line %d is blank (a blank line ends a case's output)", c.Pos(), c.raw, i+1)
			}
		}
		if *rewrite {
			for _, l := range c.lead {
				out.WriteString(l + "\n")
			}
			out.WriteString(c.raw + "\n" + Separator + "\n")
			for _, l := range got {
				out.WriteString(l + "\n")
			}
			if c.closed {
				out.WriteString("\n")
			}
			continue
		}
		if d := diff(got, c.want); d != "" {
			t.Errorf("%s: %s: output differs (run with -rewrite to accept the new output)\n%s\ngot:\n%s\nwant:\n%s",
				c.Pos(), c.raw, d, indent(got), indent(c.want))
		}
	}
	if *rewrite {
		for _, l := range tail {
			out.WriteString(l + "\n")
		}
		s := strings.TrimRight(out.String(), "\n") + "\n"
		if s != string(b) {
			if err := writeFile(path, s); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// writeFile replaces path atomically: a crashed rewrite leaves the old script.
func writeFile(path, s string) error {
	tmp := path + ".rewrite"
	if err := os.WriteFile(tmp, []byte(s), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Parse splits a script into cases. tail is what follows the last case
// (comments, blank lines). A command with no "----" line after it is an
// error naming its line.
func Parse(file, text string) (cases []*Case, tail []string, err error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var lead []string
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t\r")
		if l == "" || strings.HasPrefix(l, "#") {
			lead = append(lead, lines[i])
			continue
		}
		if l == Separator {
			return nil, nil, fmt.Errorf("%s:%d: %q with no command before it", file, i+1, Separator)
		}
		c := &Case{File: file, Line: i + 1, raw: l, lead: lead}
		lead = nil
		f := strings.Fields(l)
		c.Cmd = f[0]
		for _, a := range f[1:] {
			k, v, _ := strings.Cut(a, "=")
			c.Args = append(c.Args, Arg{Key: k, Val: v})
		}
		if i+1 >= len(lines) || strings.TrimRight(lines[i+1], " \t\r") != Separator {
			return nil, nil, fmt.Errorf("%s:%d: command %q is not followed by a %q line", file, i+1, l, Separator)
		}
		i += 2
		for ; i < len(lines); i++ {
			o := strings.TrimRight(lines[i], " \t\r")
			if o == "" {
				c.closed = true
				break
			}
			c.want = append(c.want, o)
		}
		cases = append(cases, c)
	}
	return cases, lead, nil
}

func normalize(s string) []string {
	s = strings.TrimRight(s, " \t\r\n")
	if s == "" {
		return nil
	}
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t\r")
	}
	return ls
}

// diff names the first line where got and want differ, or "" when equal.
func diff(got, want []string) string {
	for i := 0; i < len(got) || i < len(want); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("output line %d: missing, want %q", i+1, want[i])
		case i >= len(want):
			return fmt.Sprintf("output line %d: got %q, want nothing more", i+1, got[i])
		case got[i] != want[i]:
			return fmt.Sprintf("output line %d: got %q, want %q", i+1, got[i], want[i])
		}
	}
	return ""
}

func indent(ls []string) string {
	if len(ls) == 0 {
		return "\t(nothing)"
	}
	return "\t" + strings.Join(ls, "\n\t")
}

// Dur parses a duration argument (10s, 1m30s, 0), failing the test at the
// case's line when it is not one or is negative.
func (c *Case) Dur(s string) time.Duration {
	c.t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		c.Fatalf("%q: want a duration such as 10s", s)
	}
	return d
}

// LockValue parses a lock value as the narration prints it: cN#S is
// client N's S-th value (the inverse of check.ElementName), and a plain
// number is itself.
func (c *Case) LockValue(s string) uint64 {
	c.t.Helper()
	if v, err := strconv.ParseUint(s, 10, 64); err == nil {
		return v
	}
	var cl, serial uint64
	if _, err := fmt.Sscanf(s, "c%d#%d", &cl, &serial); err != nil || cl == 0 || cl >= 1<<24 || serial >= 1<<40 {
		c.Fatalf("value %q: want a number or a lock value such as c1#1", s)
	}
	return cl<<40 | serial
}

// AtBy parses AT:BY (2s:+4s, 1s:-500ms): a true time and a signed
// duration, as a clock step is given.
func (c *Case) AtBy(s string) (at, by time.Duration) {
	c.t.Helper()
	a, b, ok := strings.Cut(s, ":")
	at, err1 := time.ParseDuration(a)
	by, err2 := time.ParseDuration(b)
	if !ok || err1 != nil || err2 != nil || at < 0 {
		c.Fatalf("%q: want AT:BY, such as 2s:+4s", s)
	}
	return at, by
}
