package scenarios

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomlpos"
)

// FuzzParse: no input makes Parse panic (its recover would report an
// internal error), every error is an *Error on the file at a line of it,
// and whatever Parse accepts passes Validate and builds a world.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("library/*.toml")
	more, _ := filepath.Glob("testdata/*.toml")
	for _, name := range append(files, more...) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		base,
		base + "[[faults]]\nat = \"1s\"\nkind = \"partition\"\npartition = \"isolate\"\ntarget = \"n1\"\n",
		base + "[[faults]]\nat = \"1s\"\nkind = \"clock-slew\"\ntarget = \"c1\"\nby = \"-1s\"\nmax_ppm = 200\n",
		"duration = \"30s\"\n[lock]\nalgorithm = \"failover\"\nttl = \"1s\"\nwait_replicas = 2\n[nodes]\ncount = 3\n",
		"duration = \"30s\"\n[lock]\nalgorithm = \"lease\"\nttl = \"2s\"\n[resource]\nmode = \"fencing\"\ntokens = \"revision\"\n[clients]\ncount = 5\npauses = { every = \"5s\", length = { kind = \"lognormal\", median = \"1s\", sigma = 1.0 } }\n",
		base + "[nodes.clock]\nslews = [{ at = \"1s\", by = \"5ms\" }]\nrate_changes = [{ at = \"2s\", rate_ppm = -40 }]\n",
		"duration = 30\nTTL = 1\n[lock]\nttl = \"x\"\n[[faults]]\n",
		base + "[clients]\npauses = " + strings.Repeat("{ every = ", tomlpos.MaxDepth) + "\"1s\"" + strings.Repeat(" }", tomlpos.MaxDepth) + "\n",
		base + "[clients]\npauses = " + strings.Repeat("[", tomlpos.MaxDepth+1) + strings.Repeat("]", tomlpos.MaxDepth+1) + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Nesting deeper than a scenario needs is refused, with its line,
		// before anything decodes it.
		if tomlpos.CheckDepth(string(data)) != nil {
			_, err := Parse("fuzz.toml", data)
			errs := Errors(err)
			if len(errs) != 1 || !strings.Contains(errs[0].Msg, "nest more than") || errs[0].Line < 1 {
				t.Fatalf("deep input: got %v, want one error about the nesting, with its line\ninput:\n%q", err, data)
			}
			return
		}
		// Where the decoder accepts the document, the positions follow it.
		if md, ok := decodes(data); ok {
			pos, err := tomlpos.Scan(string(data))
			if err == nil {
				err = pos.Agrees(md.Keys())
			}
			if err != nil {
				t.Fatalf("positions: %v\ninput:\n%q", err, data)
			}
		}
		s, err := Parse("fuzz.toml", data)
		if err != nil {
			if s != nil {
				t.Fatalf("Parse returned a scenario and an error")
			}
			lines := bytes.Count(data, []byte("\n")) + 1
			errs := Errors(err)
			if len(errs) == 0 {
				t.Fatalf("error is not an *Error: %v", err)
			}
			for _, e := range errs {
				if strings.Contains(e.Msg, "internal error") {
					t.Fatalf("Parse panicked: %v\ninput:\n%q", e, data)
				}
				if e.File != "fuzz.toml" || e.Line < 0 || e.Line > lines {
					t.Fatalf("error %v names file %q line %d of %d", e, e.File, e.Line, lines)
				}
			}
			return
		}
		if err := s.Config.Validate(); err != nil {
			t.Fatalf("accepted a Config that does not validate: %v", err)
		}
		// NewWorld checks nothing: a Plan the loader accepted must build.
		model.NewWorld(s.Plan, s.Seed, false)
	})
}

// decodes reports whether toml.Decode accepts data, and its metadata; a
// panic in the decoder counts as a rejection (Parse recovers from it too).
func decodes(data []byte) (md toml.MetaData, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	var raw map[string]any
	md, err := toml.Decode(string(data), &raw)
	return md, err == nil
}

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/full.toml")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("full.toml", data); err != nil {
			b.Fatal(err)
		}
	}
}
