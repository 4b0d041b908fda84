package tomlpos

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

const doc = `# a comment
name = "x" # trailing
lesson = """
multi "" line
[not.a.table]
"""
lit = '''
a = 1
'''
dotted.key = 1

[lock]
ttl = "10s"
"quoted.key" = 2

[[faults]]
at = "1s"

[[faults]]
at = "2s"
groups = [
  ["n1", "n2"],  # first
  ["n3"],
]

[nodes]
clock = { offset = "1s", steps = [{ at = "1s", by = "2s" },
   { at = "3s", by = "1s" }] }

[[nodes.node]]
name = "n1"
[nodes.node.clock]
rate_ppm = 5

[[nodes.node]]
name = "n2"
when = 1979-05-27 07:32:00Z
tricky = "a \" ] } # b"
lit2 = 'c:\path'
ml = """x\
  y"""""
`

func TestScan(t *testing.T) {
	var m map[string]any
	md, err := toml.Decode(doc, &m)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Scan(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Agrees(md.Keys()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		line int
	}{
		{"name", 2},
		{"lesson", 3},
		{"lit", 7},
		{"dotted", 10},
		{"dotted.key", 10},
		{"lock", 12},
		{"lock.ttl", 13},
		{`lock."quoted.key"`, 14},
		{"faults", 16},
		{"faults[0]", 16},
		{"faults[0].at", 17},
		{"faults[1]", 19},
		{"faults[1].at", 20},
		{"faults[1].groups", 21},
		{"faults[1].groups[0]", 22},
		{"faults[1].groups[0][1]", 22},
		{"faults[1].groups[1]", 23},
		{"nodes", 26},
		{"nodes.clock.offset", 27},
		{"nodes.clock.steps[0].at", 27},
		{"nodes.clock.steps[1]", 28},
		{"nodes.clock.steps[1].by", 28},
		{"nodes.node[0]", 30},
		{"nodes.node[0].name", 31},
		{"nodes.node[0].clock", 32},
		{"nodes.node[0].clock.rate_ppm", 33},
		{"nodes.node[1]", 35},
		{"nodes.node[1].when", 37},
		{"nodes.node[1].tricky", 38},
		{"nodes.node[1].lit2", 39},
		{"nodes.node[1].ml", 40},
		{"nodes.node[2]", 0},
		{"faults[2]", 0},
	} {
		if got := p.Line(c.path); got != c.line {
			t.Errorf("Line(%q) = %d, want %d", c.path, got, c.line)
		}
	}
	if l, at := p.Nearest("nodes.node[0].clock.steps[3].by"); l != 32 || at != "nodes.node[0].clock" {
		t.Errorf("Nearest = %d %q, want 32 nodes.node[0].clock", l, at)
	}
	if l, at := p.Nearest("nothing.here"); l != 0 || at != "" {
		t.Errorf("Nearest of a missing table = %d %q, want 0", l, at)
	}
}

func TestNestedArrayTables(t *testing.T) {
	const d = "[[a]]\n[[a.b]]\nx = 1\n[[a]]\n[[a.b]]\n[[a.b]]\ny = 2\n[a.c]\nz = 3\n"
	p, err := Scan(d)
	if err != nil {
		t.Fatal(err)
	}
	for path, line := range map[string]int{
		"a[0]": 1, "a[0].b[0]": 2, "a[0].b[0].x": 3, "a[1]": 4, "a[1].b[0]": 5,
		"a[1].b[1]": 6, "a[1].b[1].y": 7, "a[1].c": 8, "a[1].c.z": 9,
	} {
		if got := p.Line(path); got != line {
			t.Errorf("Line(%q) = %d, want %d", path, got, line)
		}
	}
}

// FuzzScan: wherever the decoder accepts a document, the scan follows it and
// sees the same keys in the same order.
func FuzzScan(f *testing.F) {
	f.Add(doc)
	f.Add("[[a]]\n[[a.b]]\nx = 1\n[[a]]\n[[a.b]]\n")
	f.Add("a = [[{b = 1}], []]\nc = {d.e = {f = 1},}\n")
	f.Add("'q k'.\"r\\u0041\" = 1979-05-27\nt = 07:32\n")
	files, _ := filepath.Glob("../../library/*.toml")
	more, _ := filepath.Glob("../../testdata/*.toml")
	for _, name := range append(files, more...) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("a = " + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + "\n")
	f.Add("a = " + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + "\n")
	f.Add("a = [{b = [{c = '''[[[['''}]}]\nd = \"\"\"]]\"\"\"\n")
	f.Fuzz(func(t *testing.T, src string) {
		deep := CheckDepth(src) // on any input: never panics
		var m map[string]any
		md, err := decode(src, &m)
		if err != nil {
			return
		}
		p, err := Scan(src)
		var de *DepthError
		if errors.As(err, &de) {
			// Only a document that really nests that deep is refused:
			// each bracket level is one level of the decoded value.
			if d := valueDepth(m); d <= MaxDepth {
				t.Fatalf("refused at line %d as deeper than %d, but the value nests %d deep\n%s", de.Line, MaxDepth, d, src)
			}
			return
		}
		if deep != nil {
			t.Fatalf("CheckDepth refuses (%v), Scan does not\n%s", deep, src)
		}
		if err != nil {
			t.Fatalf("decoder accepts, scan fails: %v\n%s", err, src)
		}
		if err := p.Agrees(md.Keys()); err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
	})
}

// decode is toml.Decode without its panics (a decoder bug is not ours).
func decode(src string, v any) (md toml.MetaData, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = os.ErrInvalid
		}
	}()
	return toml.Decode(src, v)
}

// valueDepth is how deeply a decoded value nests maps and arrays.
func valueDepth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, valueDepth(e))
		}
	case []map[string]any:
		for _, e := range x {
			d = max(d, valueDepth(e))
		}
	case []any:
		for _, e := range x {
			d = max(d, valueDepth(e))
		}
	default:
		return 0
	}
	return d + 1
}

func TestDepthLimit(t *testing.T) {
	nested := func(n int) string {
		return "a = " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + "\n"
	}
	_, err := Scan("x = 1\n" + nested(MaxDepth))
	if err != nil {
		t.Fatalf("nesting %d deep: %v", MaxDepth, err)
	}
	_, err = Scan("x = 1\n" + nested(MaxDepth+1))
	var de *DepthError
	if !errors.As(err, &de) || de.Line != 2 {
		t.Fatalf("nesting %d deep: got %v, want a DepthError at line 2", MaxDepth+1, err)
	}
	// Brackets in strings and comments do not count; lines in multi-line
	// strings do.
	quiet := "s = \"" + strings.Repeat("[", 40) + "\"\n# " + strings.Repeat("{", 40) +
		"\nm = \"\"\"\n" + strings.Repeat("[", 40) + "\n\"\"\"\nl = '''x\ny'''\n"
	if err := CheckDepth(quiet); err != nil {
		t.Fatalf("brackets in strings and comments counted: %v", err)
	}
	err = CheckDepth(quiet + nested(MaxDepth+1))
	if !errors.As(err, &de) || de.Line != 8 {
		t.Fatalf("got %v, want a DepthError at line 8", err)
	}
}
