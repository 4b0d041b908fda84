package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/scenarios"
)

// base is an inline base for the tests; line numbers of the specs below
// count from the spec's first line.
const base = `
[base]
duration = "20s"
[base.lock]
ttl = "10s"
[base.clients]
count = 2
`

// grid is a spec with explicit points crossed with two axes.
const grid = `name = "grid"
seeds = 3
seed = 42

[[points]]
resource.mode = "unprotected"

[[points]]
resource.mode = "fencing"
resource.tokens = "incr"

[axes]
lock.ttl = ["1s", "2s", "5s"]
"nodes.clock.rate_ppm" = [0, 20000]
` + base

func mustParse(t *testing.T, src string) *Spec {
	t.Helper()
	s, err := Parse("spec.toml", []byte(src))
	require.NoError(t, err)
	return s
}

func TestExpansion(t *testing.T) {
	s := mustParse(t, grid)
	require.Equal(t, []string{"resource.mode", "resource.tokens", "lock.ttl", "nodes.clock.rate_ppm"}, s.Columns)
	require.Equal(t, 12, s.NumPoints())
	require.Equal(t, 36, s.Runs())
	var got []string
	for i := range s.NumPoints() {
		p := s.Point(i)
		require.Equal(t, i, p.Index)
		got = append(got, strings.Join(p.Cells, " "))
	}
	want := []string{
		"unprotected  1s 0", "unprotected  1s 20000", "unprotected  2s 0", "unprotected  2s 20000", "unprotected  5s 0", "unprotected  5s 20000",
		"fencing incr 1s 0", "fencing incr 1s 20000", "fencing incr 2s 0", "fencing incr 2s 20000", "fencing incr 5s 0", "fencing incr 5s 20000",
	}
	require.Equal(t, want, got)
	sc, err := s.Scenario(s.Point(9))
	require.NoError(t, err)
	if sc.Config.Lock.TTL != 2*time.Second || sc.Config.Resource.Mode.String() != "fencing" || sc.Config.Nodes[0].Clock.RatePPM != 20000 {
		t.Errorf("point 9: ttl %v, mode %v, rate %v; want 2s, fencing, 20000", sc.Config.Lock.TTL, sc.Config.Resource.Mode, sc.Config.Nodes[0].Clock.RatePPM)
	}
	if s.Point(9).Key != "lock.ttl=\"2s\"\nnodes.clock.rate_ppm=20000\nresource.mode=\"fencing\"\nresource.tokens=\"incr\"" {
		t.Errorf("key = %q", s.Point(9).Key)
	}
}

// TestWrittenOrder: keys keep the order in which they are written, in
// points as in axes.
func TestWrittenOrder(t *testing.T) {
	s := mustParse(t, `[[points]]
workload.think = "1s"
lock.ttl = "1s"
[[points]]
workload.think = "2s"
clients.start = "1s"
lock.ttl = "2s"
[axes]
nodes.count = [3, 5]
clients.stagger = ["0s", "1s"]
`+base)
	require.Equal(t, []string{"workload.think", "lock.ttl", "clients.start", "nodes.count", "clients.stagger"}, s.Columns)
	var keys []string
	for _, o := range s.Point(5).Overrides {
		keys = append(keys, o.Key)
	}
	require.Equal(t, []string{"workload.think", "clients.start", "lock.ttl", "nodes.count", "clients.stagger"}, keys)
	require.Equal(t, []string{"2s", "2s", "1s", "3", "1s"}, s.Point(5).Cells)
}

// TestNoAxes: a spec without axes or points is one point, the base.
func TestNoAxes(t *testing.T) {
	s := mustParse(t, "seeds = 4\n"+base)
	require.Equal(t, 1, s.NumPoints())
	require.Empty(t, s.Columns)
	require.Empty(t, s.Point(0).Overrides)
	require.Equal(t, uint64(1), s.Seed, "the base scenario's default seed")
}

// TestRunSeedPinned pins the seed derivation: a change here changes every
// published sweep.
func TestRunSeedPinned(t *testing.T) {
	s := mustParse(t, grid)
	pinned := map[[2]int]uint64{}
	for _, pr := range [][2]int{{0, 0}, {0, 1}, {0, 2}, {7, 0}, {11, 2}} {
		pinned[pr] = s.RunSeed(s.Point(pr[0]), pr[1])
	}
	require.Equal(t, pinnedSeeds, pinned)
	// By hand, for point 0 replicate 1.
	h := uint64(14695981039346656037)
	for _, c := range []byte("redlocksim-sweep\x00" + "lock.ttl=\"1s\"\nnodes.clock.rate_ppm=0\nresource.mode=\"unprotected\"" + "\x00" + "1") {
		h ^= uint64(c)
		h *= 1099511628211
	}
	x := 42 ^ h
	z := x + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	require.Equal(t, z>>1, s.RunSeed(s.Point(0), 1))

	// Seeds depend on a point's overrides, not its index: reordering the
	// axes and adding values keeps every seed.
	other := strings.Replace(grid, `lock.ttl = ["1s", "2s", "5s"]`, `lock.ttl = ["30s", "5s", "2s", "1s"]`, 1)
	other = strings.Replace(other, `"nodes.clock.rate_ppm" = [0, 20000]`, `"nodes.clock.rate_ppm" = [20000, 0]`, 1)
	s2 := mustParse(t, other)
	bykey := map[string]Point{}
	for i := range s2.NumPoints() {
		bykey[s2.Point(i).Key] = s2.Point(i)
	}
	for i := range s.NumPoints() {
		p := s.Point(i)
		q, ok := bykey[p.Key]
		require.True(t, ok)
		for rep := range 3 {
			require.Equal(t, s.RunSeed(p, rep), s2.RunSeed(q, rep))
		}
	}
	// Distinct runs have distinct seeds; common seeding shares them
	// across points.
	seen := map[uint64]bool{}
	for i := range s.NumPoints() {
		for rep := range s.Seeds {
			seed := s.RunSeed(s.Point(i), rep)
			require.False(t, seen[seed], "seed %d repeats", seed)
			require.Less(t, seed, uint64(1)<<63)
			seen[seed] = true
		}
	}
	c := mustParse(t, strings.Replace(grid, "seed = 42", "seed = 42\nseeding = \"common\"", 1))
	require.Equal(t, c.RunSeed(c.Point(0), 2), c.RunSeed(c.Point(11), 2))
	require.NotEqual(t, c.RunSeed(c.Point(0), 1), c.RunSeed(c.Point(0), 2))
}

// pinnedSeeds are the run seeds of grid's (point, replicate) pairs.
var pinnedSeeds = map[[2]int]uint64{
	{0, 0}: 3771359979493446364, {0, 1}: 4899534946661418680, {0, 2}: 4717553116979307916,
	{7, 0}: 2217670561791073793, {11, 2}: 5527423761449736521,
}

// TestHash: the hash follows what decides the results and ignores the
// rest.
func TestHash(t *testing.T) {
	h := mustParse(t, grid).Hash()
	require.Len(t, h, 32)
	same := []string{
		strings.Replace(grid, `name = "grid"`, `name = "other"`+"\ndescription = \"x\"", 1),
		"# a comment\n" + strings.ReplaceAll(grid, " = ", "   =   "),
		strings.Replace(grid, "[base.clients]\ncount = 2", "[base.clients]\ncount = 2 # two", 1),
	}
	for _, src := range same {
		require.Equal(t, h, mustParse(t, src).Hash(), src)
	}
	differ := []string{
		strings.Replace(grid, "seeds = 3", "seeds = 4", 1),
		strings.Replace(grid, "seed = 42", "seed = 43", 1),
		strings.Replace(grid, "seed = 42", "seed = 42\nseeding = \"common\"", 1),
		strings.Replace(grid, `["1s", "2s", "5s"]`, `["1s", "5s", "2s"]`, 1),
		strings.Replace(grid, "count = 2", "count = 3", 1),
		strings.Replace(grid, "[[points]]", "[set]\nworkload.think = \"1s\"\n[[points]]", 1),
	}
	for _, src := range differ {
		require.NotEqual(t, h, mustParse(t, src).Hash(), src)
	}
	s := mustParse(t, grid)
	s.Seeds = 5 // as --seeds does
	require.NotEqual(t, h, s.Hash())
}

// TestSpecErrors: each mistake is one error at its line, with the key.
func TestSpecErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		src  string
		line int
		key  string
		msg  string
	}{
		{"unknown axis key", "[axes]\nlock.tll = [\"1s\"]\n" + base, 2, "lock.tll", `unknown key; did you mean "ttl"?`},
		{"unknown axis table", "[axes]\nlokc.ttl = [\"1s\"]\n" + base, 2, "lokc", `did you mean "lock"?`},
		{"wrong-typed axis value", "[axes]\nlock.ttl = [\"1s\", 5]\n" + base, 2, "lock.ttl", `a duration is a string with a unit: write "5s"`},
		{"wrong-typed value on its own line", "[axes]\nlock.ttl = [\n  \"1s\",\n  5,\n]\n" + base, 4, "lock.ttl", `not the bare number 5`},
		{"invalid axis value", "[axes]\nresource.mode = [\"fence\"]\n" + base, 2, "resource.mode", `unknown resource mode "fence"`},
		{"empty axis", "[axes]\nlock.ttl = []\n" + base, 2, "axes.lock.ttl", "an axis needs at least one value"},
		{"axis not a list", "[axes]\nlock.ttl = \"1s\"\n" + base, 2, "axes.lock.ttl", "an axis is a list of values"},
		{"value twice in an axis", "[axes]\nlock.ttl = [\"1s\", \"1s\"]\n" + base, 2, "axes.lock.ttl[1]", `"1s" appears twice in the axis`},
		{"axis given twice", "[axes]\nlock.ttl = [\"1s\"]\n\"lock.ttl\" = [\"2s\"]\n" + base, 3, `axes."lock.ttl"`, "lock.ttl is already given on line 2"},
		{"overlapping axes", "[axes]\nclients.pauses = [{every = \"0s\"}]\n\"clients.pauses.every\" = [\"2s\"]\n" + base, 3, `axes."clients.pauses.every"`, "overlaps clients.pauses, which another axis already sets"},
		{"axis overlaps a point", "[[points]]\nlock.ttl = \"1s\"\n[axes]\nlock.ttl = [\"2s\"]\n" + base, 4, "axes.lock.ttl", "overlaps lock.ttl, which [[points]] already sets"},
		{"bad key path", "[axes]\n\"lock..ttl\" = [\"1s\"]\n" + base, 2, `axes."lock..ttl"`, "is not a key path"},
		{"no such element", "[axes]\n\"faults[0].for\" = [\"1s\"]\n" + base, 2, "faults[0].for", "faults is not in the scenario"},
		{"seed axis", "[axes]\nseed = [1, 2]\n" + base, 2, "axes.seed", "the sweep derives each run's seed"},
		{"unknown spec key", "seedz = 3\n" + base, 1, "seedz", "unknown key (valid at the top level of a sweep:"},
		{"wrong case", "Seeds = 3\n" + base, 1, "Seeds", `keys are case-sensitive: write "seeds"`},
		{"scenario key at the top", "base = \"baseline\"\n[lock]\nttl = \"1s\"\n", 2, "lock", "lock is a scenario key: put it in [base], or vary it under [set], [axes] or [[points]] as lock.KEY"},
		{"seeds not an integer", "seeds = \"3\"\n" + base, 1, "seeds", "must be an integer"},
		{"seeds zero", "seeds = 0\n" + base, 1, "seeds", "must be between 1 and"},
		{"seed negative", "seed = -1\n" + base, 1, "seed", "must not be negative"},
		{"seeding", "seeding = \"paired\"\n" + base, 1, "seeding", `must be "independent" or "common"`},
		{"no base", "seeds = 3\n", 0, "base", "required"},
		{"unknown base", "base = \"no-such-scenario\"\n", 1, "base", `no built-in scenario is called "no-such-scenario"`},
		{"base file missing", "base = \"missing.toml\"\n", 1, "base", "no such file"},
		{"base problem", "[axes]\nlock.ttl = [\"1s\"]\n" + base + "retires = 3\n", 10, "clients.retires", `unknown key (valid in clients:`},
		{"set problem", "[set]\nlock.ttl = \"0s\"\n" + base, 2, "lock.ttl", "must be positive"},
		{"empty point", "[[points]]\n" + base, 1, "points[0]", "a point sets at least one key"},
		{"same point twice", "[[points]]\nlock.ttl = \"1s\"\n[[points]]\nlock.ttl = \"1s\"\n" + base, 3, "points[1]", "the same point as points[0]"},
		{"point problem", "[[points]]\nlock.algorithm = \"paxos\"\n" + base, 2, "lock.algorithm", `unknown lock algorithm "paxos"`},
		{"combination problem", "[[points]]\nclients.count = 1\n" + base + "[[base.faults]]\nat = \"1s\"\nkind = \"pause\"\ntarget = \"c2\"\nfor = \"1s\"\n", 13, "faults[0].target", `is called "c2"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "spec.toml")
			_, err := Parse(file, []byte(c.src))
			require.Error(t, err)
			errs := scenarios.Errors(err)
			require.Len(t, errs, 1, "%v", err)
			e := errs[0]
			if e.File != file || e.Line != c.line || e.Key != c.key || !strings.Contains(e.Msg, c.msg) {
				t.Errorf("got  %s:%d: %s: %s\nwant %s:%d: %s: ...%s...", e.File, e.Line, e.Key, e.Msg, file, c.line, c.key, c.msg)
			}
		})
	}
}

// TestCombinationNamesPoint: a problem that only a point's combination
// makes says which point.
func TestCombinationNamesPoint(t *testing.T) {
	src := "[[points]]\nclients.count = 1\n" + base + "[[base.faults]]\nat = \"1s\"\nkind = \"pause\"\ntarget = \"c2\"\nfor = \"1s\"\n"
	_, err := Parse("spec.toml", []byte(src))
	require.ErrorContains(t, err, "(at point 0: clients.count=1)")
}

func TestFileBase(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.toml"), []byte("duration = \"10s\"\n[lock]\nttl = \"5s\"\n"), 0o644))
	spec := filepath.Join(dir, "s.toml")
	require.NoError(t, os.WriteFile(spec, []byte("base = \"b.toml\"\n[axes]\nlock.ttl = [\"1s\", \"2s\"]\n"), 0o644))
	s, err := Load(spec)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "b.toml"), s.BaseRef)
	require.Equal(t, "s", s.Name)
	require.Equal(t, 2, s.NumPoints())
}

// TestReplay: the replay command, split as a shell would, loads to the
// same Config as the sweep's point, for an inline base (via --print-base)
// and a built-in one.
func TestReplay(t *testing.T) {
	s := mustParse(t, strings.Replace(grid, "[[points]]", "[set]\nworkload.think = \"50ms\"\n[[points]]", 1))
	p := s.Point(7)
	seed := s.RunSeed(p, 2)
	cmd := s.Replay(p, seed)
	printBase, run, ok := strings.Cut(cmd, " && ")
	require.True(t, ok, cmd)
	require.Equal(t, "redlocksim sweep spec.toml --print-base > grid.base.toml", printBase)
	args := shellSplit(t, run)
	require.Equal(t, []string{"redlocksim", "run", "grid.base.toml", "--seed", fmt.Sprint(seed)}, args[:5])
	var sets []string
	for i := 5; i < len(args); i += 2 {
		require.Equal(t, "--set", args[i])
		sets = append(sets, args[i+1])
	}
	require.Equal(t, []string{"workload.think=50ms", "resource.mode=fencing", "resource.tokens=incr", "lock.ttl=1s", "nodes.clock.rate_ppm=20000"}, sets)
	overrides, err := scenarios.ParseOverrides(sets)
	require.NoError(t, err)
	got, err := scenarios.ApplyOverrides("grid.base.toml", s.BaseTOML(), overrides)
	require.NoError(t, err)
	want, err := s.Scenario(p)
	require.NoError(t, err)
	if !reflect.DeepEqual(got.Config, want.Config) {
		t.Errorf("replayed config differs:\n%+v\nwant\n%+v", got.Config, want.Config)
	}

	for _, name := range scenarios.LibraryNames()[:1] {
		s := mustParse(t, fmt.Sprintf("base = %q\n[axes]\nworkload.think = [\"1s\"]\n", name))
		p := s.Point(0)
		args := shellSplit(t, s.Replay(p, 7))
		require.Equal(t, []string{"redlocksim", "run", name, "--seed", "7", "--set", "workload.think=1s"}, args)
		overrides, err := scenarios.ParseOverrides(args[6:])
		require.NoError(t, err)
		got, err := scenarios.LoadNamedWith(name, overrides)
		require.NoError(t, err)
		want, err := s.Scenario(p)
		require.NoError(t, err)
		require.Equal(t, want.Config, got.Config)
	}
}

// shellSplit splits a command as a POSIX shell would, for the quoting
// ShellQuote produces.
func shellSplit(t *testing.T, cmd string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	in, started := false, false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case in && c == '\'':
			in = false
		case in:
			cur.WriteByte(c)
		case c == '\'':
			in, started = true, true
		case c == ' ':
			if started {
				out = append(out, cur.String())
				cur.Reset()
				started = false
			}
		case c == '\\' && i+1 < len(cmd):
			i++
			cur.WriteByte(cmd[i])
			started = true
		default:
			cur.WriteByte(c)
			started = true
		}
	}
	require.False(t, in, "unterminated quote in %s", cmd)
	if started {
		out = append(out, cur.String())
	}
	return out
}

func TestShellQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"lock.ttl=1s", "lock.ttl=1s"},
		{`resource.mode="x y"`, `'resource.mode="x y"'`},
		{"it's", `'it'\''s'`},
		{"", "''"},
	} {
		require.Equal(t, c.want, ShellQuote(c.in))
		if c.in != "" {
			require.Equal(t, []string{c.in}, shellSplit(t, ShellQuote(c.in)))
		}
	}
}

func TestShard(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		arg  string
		env  func(string) string
		want Shard
		err  string
	}{
		{"2/4", env(), Shard{2, 4}, ""},
		{"1/1", env(), Shard{1, 1}, ""},
		{"0/4", env(), Shard{}, "K counts from 1"},
		{"5/4", env(), Shard{}, "want 1 ≤ K ≤ N"},
		{"2-4", env(), Shard{}, "want K/N"},
		{"auto", env("SLURM_ARRAY_TASK_ID", "0", "SLURM_ARRAY_TASK_COUNT", "10"), Shard{1, 10}, ""},
		{"auto", env("SLURM_ARRAY_TASK_ID", "10", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_COUNT", "10"), Shard{10, 10}, ""},
		{"auto", env("SLURM_ARRAY_TASK_ID", "6", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_STEP", "2", "SLURM_ARRAY_TASK_COUNT", "10"), Shard{4, 10}, ""},
		{"auto", env("SLURM_ARRAY_TASK_ID", "3"), Shard{}, "SLURM_ARRAY_TASK_COUNT is not set"},
		{"auto", env("JOB_COMPLETION_INDEX", "0", "REDLOCKSIM_SHARDS", "3"), Shard{1, 3}, ""},
		{"auto", env("JOB_COMPLETION_INDEX", "2", "REDLOCKSIM_SHARDS", "3"), Shard{3, 3}, ""},
		{"auto", env("JOB_COMPLETION_INDEX", "3", "REDLOCKSIM_SHARDS", "3"), Shard{}, "want 1 ≤ K ≤ N"},
		{"auto", env("JOB_COMPLETION_INDEX", "1"), Shard{}, "REDLOCKSIM_SHARDS is not set: set it to the Job's completions"},
		{"auto", env(), Shard{}, "neither SLURM_ARRAY_TASK_ID"},
	} {
		got, err := ParseShard(c.arg, c.env)
		if c.err != "" {
			require.ErrorContains(t, err, c.err, c.arg)
			continue
		}
		require.NoError(t, err, c.arg)
		require.Equal(t, c.want, got, c.arg)
	}
	// The shards of a sweep partition its points, in order within each.
	for _, points := range []int{0, 1, 7, 12} {
		for n := 1; n <= 5; n++ {
			seen := make([]int, points)
			for k := 1; k <= n; k++ {
				sh := Shard{k, n}
				prev := -1
				for j := range sh.Count(points) {
					i := sh.Point(j)
					require.Greater(t, i, prev)
					require.Equal(t, k, Of(i, n))
					seen[i]++
					prev = i
				}
			}
			for i, c := range seen {
				require.Equal(t, 1, c, "point %d of %d with %d shards", i, points, n)
			}
		}
	}
	require.Equal(t, "1/1", Shard{}.String())
	require.Equal(t, 7, Shard{}.Count(7))
}

// TestLibrarySweeps: every built-in sweep loads, and is self-contained or
// names a built-in scenario.
func TestLibrarySweeps(t *testing.T) {
	names := scenarios.SweepNames()
	require.Subset(t, names, []string{"ttl-vs-drift", "fencing", "persistence", "consensus"})
	for _, name := range names {
		s, err := Load(name)
		require.NoError(t, err, name)
		require.Equal(t, name, s.Name)
		require.NotEmpty(t, s.Description, name)
		require.Greater(t, s.NumPoints(), 1, name)
		require.NotEmpty(t, s.Columns, name)
		require.Equal(t, name, s.Arg)
	}
	_, err := Load("no-such-sweep")
	require.ErrorContains(t, err, "no built-in sweep is called")
}
