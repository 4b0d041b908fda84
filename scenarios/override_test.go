package scenarios

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomldoc"
)

// pauseBase is the scenario the override tests edit; line numbers matter.
const pauseBase = `description = "c1 pauses past its validity"
duration = "30s"

[lock]
ttl = "10s"

[workload]
critical_section = "2s"
iterations = 1

[resource]
mode = "unprotected"
tokens = "incr"

[clients]
count = 2

[[clients.client]]
name = "c2"
start = "11s"

[[faults]]
at = "1s"
kind = "pause"
target = "c1"
for = "15s"
`

func mustOverride(t *testing.T, s string) Override {
	t.Helper()
	o, err := ParseOverride(s)
	require.NoError(t, err)
	return o
}

// TestApplyNothingIsParse: a base with no overrides decodes to exactly
// what Parse gives, errors and all.
func TestApplyNothingIsParse(t *testing.T) {
	full, err := os.ReadFile("testdata/full.toml")
	require.NoError(t, err)
	for file, data := range map[string][]byte{"testdata/full.toml": full, "pause.toml": []byte(pauseBase)} {
		want, err := Parse(file, data)
		require.NoError(t, err)
		got, err := ApplyOverrides(file, data, nil)
		require.NoError(t, err)
		require.Equal(t, want, got, file)
	}
	bad := []byte(base + "retires = 1\n[workload]\nthink = 0\n")
	_, want := Parse("bad.toml", bad)
	_, got := ApplyOverrides("bad.toml", bad, nil)
	require.Error(t, want)
	if got == nil || got.Error() != want.Error() {
		t.Errorf("errors:\n%v\nwant\n%v", got, want)
	}
}

func TestApplyOverrides(t *testing.T) {
	data := []byte(pauseBase)
	s, err := ApplyOverrides("pause.toml", data, []Override{
		mustOverride(t, `lock.ttl="2s"`),
		mustOverride(t, `resource.mode=fencing`),
		mustOverride(t, `faults[0].for="5s"`),
		mustOverride(t, `nodes.clock.rate_ppm=150`),
		mustOverride(t, `clients.pauses.every="5s"`),
		mustOverride(t, `clients.pauses.length={kind="exponential", mean="200ms"}`),
		mustOverride(t, `clients.pauses.length.mean="300ms"`), // a later override refines an earlier one
		mustOverride(t, `workload.iterations=3`),
	})
	require.NoError(t, err)
	cfg := s.Config
	if cfg.Lock.TTL != 2*time.Second {
		t.Errorf("ttl = %v, want 2s", cfg.Lock.TTL)
	}
	if cfg.Resource.Mode.String() != "fencing" {
		t.Errorf("mode = %v, want fencing", cfg.Resource.Mode)
	}
	if cfg.Faults[0].For != 5*time.Second {
		t.Errorf("faults[0].for = %v, want 5s", cfg.Faults[0].For)
	}
	for _, n := range cfg.Nodes {
		if n.Clock.RatePPM != 150 {
			t.Errorf("%s rate = %v, want 150", n.Name, n.Clock.RatePPM)
		}
	}
	for _, c := range cfg.Clients {
		if c.Pauses.Every != 5*time.Second || c.Pauses.Length.Mean != 300*ms {
			t.Errorf("%s pauses = %+v, want every 5s, mean 300ms", c.Name, c.Pauses)
		}
	}
	if cfg.Work.Iterations != 3 {
		t.Errorf("iterations = %d, want 3", cfg.Work.Iterations)
	}
	// The base is untouched: applying nothing gives the file again.
	again, err := ApplyOverrides("pause.toml", data, nil)
	require.NoError(t, err)
	if again.Config.Lock.TTL != 10*time.Second {
		t.Errorf("base ttl changed to %v", again.Config.Lock.TTL)
	}
}

// TestOverrideErrors: a problem with an override's value or key names the
// override's origin; a problem that stays in the base names the base.
func TestOverrideErrors(t *testing.T) {
	data := []byte(pauseBase)
	at := func(key string, v any) Override { return Override{Key: key, Value: v, File: "spec.toml", Line: 7} }
	for _, c := range []struct {
		name string
		o    Override
		file string
		line int
		key  string
		msg  string
	}{
		{"unknown key", at("lock.tll", "1s"), "spec.toml", 7, "lock.tll", `unknown key; did you mean "ttl"?`},
		{"unknown table", at("lokc.ttl", "1s"), "spec.toml", 7, "lokc", `did you mean "lock"?`},
		{"wrong case", at("lock.TTL", "1s"), "spec.toml", 7, "lock.TTL", `keys are case-sensitive: write "ttl"`},
		{"wrong type", at("lock.ttl", int64(5)), "spec.toml", 7, "lock.ttl", `a duration is a string with a unit: write "5s"`},
		{"invalid value", at("lock.ttl", "0s"), "spec.toml", 7, "lock.ttl", "must be positive"},
		{"invalid enum", at("resource.mode", "fence"), "spec.toml", 7, "resource.mode", `unknown resource mode "fence"`},
		{"created table incomplete", at("clients.pauses.length.mean", "1s"), "spec.toml", 7, "clients.pauses.length.kind", "required"},
		{"no such element", at("faults[3].for", "1s"), "spec.toml", 7, "faults[3].for", "faults has 1 elements, so there is no faults[3]"},
		{"not a table", at("lock.ttl.x", "1s"), "spec.toml", 7, "lock.ttl.x", `lock.ttl is the string "10s", not a table`},
		{"not an array", at("lock[0]", "1s"), "spec.toml", 7, "lock[0]", "lock is a table, not an array"},
		{"no array", at("nodes.node[0].name", "n1"), "spec.toml", 7, "nodes.node[0].name", "nodes.node is not in the scenario, so there is no nodes.node[0]"},
		{"bad key", at("lock..ttl", "1s"), "spec.toml", 7, "lock..ttl", "is not a key path"},
		// The override is fine; the base's c2 entry now names no client.
		{"problem left in the base", at("clients.count", int64(1)), "pause.toml", 19, "clients.client[0].name", `no client is called "c2"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ApplyOverrides("pause.toml", data, []Override{c.o})
			require.Error(t, err)
			errs := Errors(err)
			require.Len(t, errs, 1, "%v", err)
			e := errs[0]
			if e.File != c.file || e.Line != c.line || e.Key != c.key || !strings.Contains(e.Msg, c.msg) {
				t.Errorf("got %s:%d: %s: %s\nwant %s:%d: %s: ...%s...", e.File, e.Line, e.Key, e.Msg, c.file, c.line, c.key, c.msg)
			}
		})
	}
}

func TestParseOverride(t *testing.T) {
	for _, c := range []struct {
		in   string
		key  string
		want any
	}{
		{`lock.ttl="10s"`, "lock.ttl", "10s"},
		{`lock.ttl=10s`, "lock.ttl", "10s"},
		{`resource.mode=fencing`, "resource.mode", "fencing"},
		{`nodes.count=3`, "nodes.count", int64(3)},
		{`lock.drift_factor=0.02`, "lock.drift_factor", 0.02},
		{`lock.extend=true`, "lock.extend", true},
		{`nodes.clock.offset=-500ms`, "nodes.clock.offset", "-500ms"},
		{`nodes.names=["a", "b"]`, "nodes.names", []any{"a", "b"}},
		{`clients.pauses={every="5s"}`, "clients.pauses", map[string]any{"every": "5s"}},
		{` faults[0].for = "1s" `, "faults[0].for", "1s"},
	} {
		o, err := ParseOverride(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.key, o.Key, c.in)
		require.Equal(t, c.want, o.Value, c.in)
		require.Equal(t, "--set", o.File)
	}
	for _, bad := range []string{"lock.ttl", "=1s", `lock.ttl="1s`, "lock.ttl=1 s", "lock ttl=1s", "faults[x].for=1s", "a.=1", "a[]=1"} {
		if _, err := ParseOverride(bad); err == nil {
			t.Errorf("ParseOverride(%q) accepted", bad)
		}
	}
}

// TestOverrideArg: Arg is short and reads back to the same override.
func TestOverrideArg(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{"10s", "k=10s"}, {"fencing", "k=fencing"}, {"-500ms", "k=-500ms"},
		{"100", `k="100"`}, {"true", `k="true"`}, {"inf", `k="inf"`}, {"two words", `k="two words"`}, {"", `k=""`},
		{int64(100), "k=100"}, {0.5, "k=0.5"}, {true, "k=true"}, {[]any{"a"}, `k=["a"]`},
	} {
		o := Override{Key: "k", Value: c.v}
		if got := o.Arg(); got != c.want {
			t.Errorf("Arg(%#v) = %s, want %s", c.v, got, c.want)
		}
		back, err := ParseOverride(o.Arg())
		require.NoError(t, err)
		require.Equal(t, c.v, back.Value, o.Arg())
	}
}

// TestBaseTOML: the base written out as a file loads, with overrides, to
// the same scenario.
func TestBaseTOML(t *testing.T) {
	sets := []Override{mustOverride(t, `lock.ttl="3s"`), mustOverride(t, `workload.think="1s"`)}
	full, err := os.ReadFile("testdata/full.toml")
	require.NoError(t, err)
	for file, data := range map[string][]byte{"testdata/full.toml": full, "pause.toml": []byte(pauseBase)} {
		b, err := NewBase(file, data)
		require.NoError(t, err)
		want, err := b.Apply(sets...)
		require.NoError(t, err)
		text := b.TOML()
		got, err := ApplyOverrides(file, text, sets)
		require.NoError(t, err, "%s", text)
		require.Equal(t, want, got, "%s", text)
		b2, err := NewBase(file, text)
		require.NoError(t, err)
		require.Equal(t, string(text), string(b2.TOML()), "TOML is not a fixed point")
	}
}

// TestInlineBase: a scenario written as a table of a larger document has
// the larger document's lines in its errors, and the document's name.
func TestInlineBase(t *testing.T) {
	doc := `name = "my-sweep"
seeds = 3

[base]
duration = "30s"

[base.lock]
ttl = "10s"
retires = 2

[base.clients]
count = 2
`
	b, err := NewInlineBase("my-sweep.toml", []byte(doc), "base")
	require.NoError(t, err)
	_, err = b.Apply()
	errs := Errors(err)
	require.Len(t, errs, 1, "%v", err)
	if e := errs[0]; e.File != "my-sweep.toml" || e.Line != 9 || e.Key != "lock.retires" {
		t.Errorf("got %v, want my-sweep.toml:9: lock.retires: ...", e)
	}
	s, err := b.Apply(Override{Key: "lock.retries", Value: int64(2)}, Override{Key: "lock.retires", Value: nil})
	_ = s
	require.Error(t, err) // a nil value is no TOML value; the loader says so
	fixed := strings.Replace(doc, "retires", "retries", 1)
	b, err = NewInlineBase("my-sweep.toml", []byte(fixed), "base")
	require.NoError(t, err)
	s, err = b.Apply()
	require.NoError(t, err)
	if s.Name != "my-sweep" || s.Config.Lock.Retries != 2 || len(s.Config.Clients) != 2 {
		t.Errorf("got name %q, retries %d, %d clients", s.Name, s.Config.Lock.Retries, len(s.Config.Clients))
	}
	if !strings.HasPrefix(string(b.TOML()), "name = \"my-sweep\"\n") {
		t.Errorf("TOML does not start with the name:\n%s", b.TOML())
	}
	_, err = NewInlineBase("my-sweep.toml", []byte("base = 3\n"), "base")
	require.ErrorContains(t, err, "my-sweep.toml:1: base: must be a table")
}

// TestApplyConcurrent: a Base serves many goroutines (run with -race).
func TestApplyConcurrent(t *testing.T) {
	b, err := LoadBase("testdata/full.toml")
	require.NoError(t, err)
	var wg sync.WaitGroup
	cfgs := make([]model.Config, 8)
	for i := range cfgs {
		wg.Go(func() {
			s, err := b.Apply(Override{Key: "lock.retries", Value: int64(i)})
			if err == nil {
				cfgs[i] = s.Config
			}
		})
	}
	wg.Wait()
	for i, c := range cfgs {
		if c.Lock.Retries != i {
			t.Errorf("run %d: retries = %d", i, c.Lock.Retries)
		}
	}
}

// FuzzOverride: any --set argument either fails to parse or applies to a
// base without panicking, and its Arg form reads back to the same value.
func FuzzOverride(f *testing.F) {
	for _, s := range []string{`lock.ttl="2s"`, "resource.mode=fencing", "faults[0].for=1s", "nodes.count=0",
		`clients.pauses={every="1s", length={kind="constant", value="1s"}}`, "a.b[3][1].c=[1, 2]", "lock=3", "x=", "=", "lock.ttl=\"\\u00e9\""} {
		f.Add(s)
	}
	b, err := NewBase("pause.toml", []byte(pauseBase))
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, arg string) {
		o, err := ParseOverride(arg)
		if err != nil {
			return
		}
		back, err := ParseOverride(o.Arg())
		if err != nil {
			t.Fatalf("Arg %q of %q does not parse: %v", o.Arg(), arg, err)
		}
		if tomldoc.Format(back.Value) != tomldoc.Format(o.Value) || back.Key != o.Key {
			t.Fatalf("Arg %q of %q reads back as %s", o.Arg(), arg, back)
		}
		if _, err := b.Apply(o); err != nil && len(Errors(err)) == 0 {
			t.Fatalf("Apply(%s): an error that is not an *Error: %v", o, err)
		}
	})
}

// TestFormatValue: a value written by tomldoc.Format reads back as itself.
func TestFormatValue(t *testing.T) {
	for _, v := range []any{
		"10s", "with \"quotes\" and \\ and\nnewline\tand µ", "", int64(-3), int64(0), 0.5, 100.0, 1e21, -0.25, true,
		[]any{}, []any{"a", int64(1)}, map[string]any{"kind": "constant", "value": "1s", "odd key": int64(1)},
		[]any{map[string]any{"at": "1s"}, map[string]any{"at": "2s"}},
	} {
		lit := tomldoc.Format(v)
		got, err := ParseValue(lit)
		require.NoError(t, err, lit)
		require.Equal(t, v, got, lit)
	}
	if got := tomldoc.Format(map[string]any{"b": int64(1), "a": 2.0}); got != `{a = 2.0, b = 1}` {
		t.Errorf("Format = %s, want {a = 2.0, b = 1}", got)
	}
}

// A --set value nested 30,000 deep in inline tables took the TOML
// decoder 24 GB before anything refused it; it is refused first.
func TestDeeplyNestedSetIsRefusedCheaply(t *testing.T) {
	v := strings.Repeat("{a=", 30000) + "1" + strings.Repeat("}", 30000)
	_, err := ParseOverrides([]string{"lock.ttl=" + v})
	require.Error(t, err)
	require.Contains(t, err.Error(), "arrays and inline tables nest more than 16 deep; no scenario needs more than 3")
}
