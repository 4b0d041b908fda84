package script

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model/check"
)

// recorder is a testing.TB that keeps its failures instead of failing.
type recorder struct {
	testing.TB
	errs  []string
	fatal bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
	r.fatal = true
	panic(r)
}
func (r *recorder) Fatal(a ...any) { r.Fatalf("%s", fmt.Sprint(a...)) }

// run runs the script text through do with failures kept, and returns them.
func run(t *testing.T, text string, do func(c *Case) string) (path string, errs []string) {
	path = filepath.Join(t.TempDir(), "s.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		Run(r, path, do)
	}()
	return path, r.errs
}

// echo prints its arguments, one per line, as key:val.
func echo(c *Case) string {
	var b strings.Builder
	for _, a := range c.Args {
		fmt.Fprintf(&b, "%s:%s\n", a.Key, a.Val)
	}
	return b.String()
}

const good = `# a comment
echo a b=1
----
a:
b:1

# another
echo x
----
x:
`

func TestMatchingScriptPasses(t *testing.T) {
	var cmds []string
	_, errs := run(t, good, func(c *Case) string { cmds = append(cmds, c.Pos()+" "+c.Cmd); return echo(c) })
	if len(errs) != 0 {
		t.Fatalf("errors: %q", errs)
	}
	if len(cmds) != 2 || !strings.HasSuffix(cmds[0], "s.txt:2 echo") || !strings.HasSuffix(cmds[1], "s.txt:8 echo") {
		t.Fatalf("cases run: %q", cmds)
	}
}

// An edited expected output fails, naming file:line, the command, the
// first differing line, got and want.
func TestEditedOutputFailsWithDiff(t *testing.T) {
	edited := strings.Replace(good, "b:1", "b:2", 1)
	path, errs := run(t, edited, echo)
	if len(errs) != 1 {
		t.Fatalf("want 1 error, got %q", errs)
	}
	e := errs[0]
	for _, want := range []string{
		path + ":2: echo a b=1: output differs",
		`output line 2: got "b:1", want "b:2"`,
		"got:\n\ta:\n\tb:1\n",
		"want:\n\ta:\n\tb:2",
	} {
		if !strings.Contains(e, want) {
			t.Errorf("error lacks %q:\n%s", want, e)
		}
	}
}

func TestMissingAndExtraLinesFail(t *testing.T) {
	_, errs := run(t, "echo a b\n----\na:\n", echo)
	if len(errs) != 1 || !strings.Contains(errs[0], `output line 2: got "b:", want nothing more`) {
		t.Fatalf("extra line: %q", errs)
	}
	_, errs = run(t, "echo a\n----\na:\nb:\n", echo)
	if len(errs) != 1 || !strings.Contains(errs[0], `output line 2: missing, want "b:"`) {
		t.Fatalf("missing line: %q", errs)
	}
}

func TestBadScripts(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"echo a\nx\n", `s.txt:1: command "echo a" is not followed by a "----" line`},
		{"----\n", `s.txt:1: "----" with no command before it`},
		{"blank\n----\n", `s.txt:1: blank: output line 2 is blank`},
	} {
		_, errs := run(t, tc.text, func(c *Case) string { return "x\n\ny" })
		if len(errs) != 1 || !strings.Contains(errs[0], tc.want) {
			t.Errorf("%q: got %q, want %q", tc.text, errs, tc.want)
		}
	}
}

func TestFatalfNamesTheLine(t *testing.T) {
	_, errs := run(t, "\n\nfrob\n----\n", func(c *Case) string { c.Fatalf("unknown command %q", c.Cmd); return "" })
	if len(errs) != 1 || !strings.Contains(errs[0], `s.txt:3: frob: unknown command "frob"`) {
		t.Fatalf("got %q", errs)
	}
}

// Commands holds a script to its first command and names the valid ones.
func TestCommandsDispatch(t *testing.T) {
	cs := Commands{First: "world", Run: map[string]func(c *Case) string{"world": echo, "echo": echo}}
	for _, tc := range []struct{ text, want string }{
		{"world a\n----\na:\n\necho b\n----\nb:\n", ""},
		{"echo b\n----\n", `s.txt:1: echo b: the first command must be world`},
		{"world\n----\n\nworld\n----\n", `s.txt:4: world: world given twice`},
		{"world\n----\n\nfrob\n----\n", `s.txt:4: frob: unknown command "frob" (valid: echo world)`},
	} {
		_, errs := run(t, tc.text, cs.dispatch())
		if tc.want == "" && len(errs) != 0 || tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], tc.want)) {
			t.Errorf("%q: got %q, want %q", tc.text, errs, tc.want)
		}
	}
}

// -rewrite replaces each output block with the actual output and keeps
// comments and commands byte for byte; the rewritten file then passes.
func TestRewrite(t *testing.T) {
	stale := "# a comment\necho a b=1\n----\nold\n\n# another\necho x\n----\n"
	*rewrite = true
	path, errs := run(t, stale, echo)
	*rewrite = false
	if len(errs) != 0 {
		t.Fatalf("errors: %q", errs)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != good {
		t.Fatalf("rewritten:\n%s\nwant:\n%s", b, good)
	}
	if _, errs := run(t, string(b), echo); len(errs) != 0 {
		t.Fatalf("rewritten script fails: %q", errs)
	}
}

func TestArgs(t *testing.T) {
	cs, _, err := Parse("f", "set c1 k v nx px=10s\n----\n")
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	c.t = t
	if c.Cmd != "set" || c.Word(0, "client") != "c1" || c.Word(2, "value") != "v" || !c.Has("nx") || c.Has("xx") {
		t.Fatalf("parsed %+v", c)
	}
	if v, ok := c.Get("px"); !ok || v != "10s" {
		t.Fatalf("px = %q, %v", v, ok)
	}
	if d := c.Dur("1m30s"); d != 90*time.Second {
		t.Fatalf("Dur(1m30s) = %v", d)
	}
	if v := c.LockValue("c2#3"); v != 2<<40|3 || check.ElementName(v) != "c2#3" {
		t.Fatalf("LockValue(c2#3) = %#x", v)
	}
	if v := c.LockValue("42"); v != 42 {
		t.Fatalf("LockValue(42) = %d", v)
	}
	if at, by := c.AtBy("2s:-500ms"); at != 2*time.Second || by != -500*time.Millisecond {
		t.Fatalf("AtBy(2s:-500ms) = %v, %v", at, by)
	}
}

func TestBadArgumentsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		call func(c *Case)
		want string
	}{
		{"px=ten", func(c *Case) { v, _ := c.Get("px"); c.Dur(v) }, `s.txt:1: set px=ten: "ten": want a duration such as 10s`},
		{"v=c1-1", func(c *Case) { v, _ := c.Get("v"); c.LockValue(v) }, `s.txt:1: set v=c1-1: value "c1-1": want a number or a lock value such as c1#1`},
		{"s=2s+4s", func(c *Case) { v, _ := c.Get("s"); c.AtBy(v) }, `s.txt:1: set s=2s+4s: "2s+4s": want AT:BY, such as 2s:+4s`},
		{"", func(c *Case) { c.Word(0, "client") }, `s.txt:1: set: missing argument 1 (client)`},
	} {
		_, errs := run(t, strings.TrimSpace("set "+tc.arg)+"\n----\n", func(c *Case) string { tc.call(c); return "" })
		if len(errs) != 1 || !strings.Contains(errs[0], tc.want) {
			t.Errorf("%s: got %q, want %q", tc.arg, errs, tc.want)
		}
	}
}
