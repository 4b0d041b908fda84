package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/explore"
	"github.com/redlocksim/redlocksim/scenarios"
)

// injectSets asks api/inject and returns the overrides it answers.
func injectSets(t *testing.T, s *Server, q url.Values) []string {
	t.Helper()
	var out struct {
		Sets  []string `json:"sets"`
		Error string   `json:"error"`
	}
	w := get(t, s, "/api/inject?"+q.Encode(), &out)
	require.Equal(t, http.StatusOK, w.Code, out.Error)
	return out.Sets
}

// runView runs s=gc-pause with the overrides.
func runView(t *testing.T, s *Server, sets []string) *viewJSON {
	t.Helper()
	q := url.Values{"s": {"gc-pause"}, "seed": {"1"}, "set": sets}
	var out runJSON
	w := get(t, s, "/api/run?"+q.Encode(), &out)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	return out.A
}

// A message clicked on the diagram is held, delivered at the cursor or
// dropped: one fault keyed by its sender, receiver and send time, which
// a later click on the same message replaces. A frozen process wakes
// where the second click says.
func TestInjectHoldDropAndWake(t *testing.T) {
	s := newServer(t, Options{})
	v := runView(t, s, nil)
	var m messageJSON
	for _, x := range v.Messages {
		if x.From == "c2" && x.To == "n3" && !x.Reply {
			m = x
			break
		}
	}
	require.NotEmpty(t, m.Kind)
	find := func(v *viewJSON) (messageJSON, bool) {
		for _, x := range v.Messages {
			if x.From == m.From && x.To == m.To && x.Sent == m.Sent {
				return x, true
			}
		}
		return messageJSON{}, false
	}
	q := func(kind string, kv ...string) url.Values {
		out := url.Values{"s": {"gc-pause"}, "seed": {"1"}, "kind": {kind}}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	sent := fmt.Sprint(m.Sent)
	sets := injectSets(t, s, q("hold-message", "target", "c2", "to", "n3", "at", sent, "for", "10s"))
	held, ok := find(runView(t, s, sets))
	require.True(t, ok)
	assert.Equal(t, m.Sent+10e9, held.At)

	hq := q("hold-message", "target", "c2", "to", "n3", "at", sent, "for", "2000000000ns")
	hq["set"] = sets
	sets = injectSets(t, s, hq)
	early := runView(t, s, sets)
	got, ok := find(early)
	require.True(t, ok)
	assert.Equal(t, m.Sent+2e9, got.At)
	assert.Equal(t, 2, early.Faults, "the pause, and one hold: the second click replaced the first")

	dq := q("drop-message", "target", "c2", "to", "n3", "at", sent)
	dq["set"] = sets
	sets = injectSets(t, s, dq)
	_, ok = find(runView(t, s, sets))
	assert.False(t, ok, "dropped")

	// An invalid hold is the loader's message.
	bad := q("hold-message", "target", "c2", "to", "c2", "at", sent, "for", "1s")
	w := get(t, s, "/api/inject?"+bad.Encode(), nil)
	assert.Equal(t, http.StatusUnprocessableEntity, w.Code)
	assert.Contains(t, w.Body.String(), `target and to are both \"c2\"`)

	// Freeze c2 at 20 s to the end, then wake it at 25 s.
	sets = injectSets(t, s, q("pause", "target", "c2", "at", "20000000000ns", "for", "11s"))
	frozen := runView(t, s, sets)
	var since int64 = -1
	for _, sp := range frozen.Spans {
		if sp.Lane == "c2" && sp.Kind == "pause" {
			since = sp.Start
		}
	}
	require.Equal(t, int64(20e9), since)
	wq := q("wake", "target", "c2", "since", fmt.Sprint(since), "at", "25000000000")
	wq["set"] = sets
	woken := runView(t, s, injectSets(t, s, wq))
	var spans [][2]int64
	for _, sp := range woken.Spans {
		if sp.Lane == "c2" && sp.Kind == "pause" {
			spans = append(spans, [2]int64{sp.Start, sp.End})
		}
	}
	assert.Equal(t, [][2]int64{{20e9, 25e9}}, spans)
	wq.Set("at", "19000000000")
	w = get(t, s, "/api/inject?"+wq.Encode(), nil)
	assert.Equal(t, http.StatusUnprocessableEntity, w.Code)
	assert.Contains(t, w.Body.String(), "move the cursor later")
}

// A challenge's par and minimal counterexample are the explorer's, found
// by the command the challenge records; its start keeps mutual
// exclusion, so that the student's actions are what break it.
func TestChallengesParIsTheExplorers(t *testing.T) {
	for name, c := range challenges {
		b, err := scenarios.LoadBase(name)
		require.NoError(t, err)
		var sets []scenarios.Override
		for _, s := range c.Sets {
			o, err := scenarios.ParseOverride(s)
			require.NoError(t, err)
			sets = append(sets, o)
		}
		args := strings.Fields(strings.ReplaceAll(c.Explore, "'", ""))
		opt := explore.Options{Base: b, Sets: sets, Property: explore.Mutex, Seed: 1, Workers: 1}
		for i := 0; i < len(args); i++ {
			switch args[i] {
			case "--faults":
				opt.Kinds = strings.Split(args[i+1], ",")
			case "--max-faults":
				fmt.Sscan(args[i+1], &opt.MaxFaults)
			case "--runs":
				fmt.Sscan(args[i+1], &opt.Runs)
			case "--seed":
				fmt.Sscan(args[i+1], &opt.Seed)
			}
		}
		e, err := explore.New(opt)
		require.NoError(t, err, "%s: the challenge's start keeps mutual exclusion", name)
		sum, err := e.Explore(context.Background(), opt)
		require.NoError(t, err)
		require.NotEmpty(t, sum.Findings, name)
		f := sum.Findings[0]
		assert.Equal(t, c.Par, len(f.Minimal), name)
		assert.Equal(t, c.Minimal, f.Minimal.String(), name)
		assert.LessOrEqual(t, c.Par, c.Max)
	}
}

// Tours: the library's, and the directory's *.tour.toml files, which are
// not scenarios; a malformed one is listed with its error.
func TestCatalogListsTours(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.toml"), []byte("duration = \"10s\"\n[lock]\nttl = \"1s\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "walk.tour.toml"), []byte("title = \"Walk\"\n[[steps]]\nscenario = \"mine\"\ncursor = \"1s\"\ntext = \"here\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.tour.toml"), []byte("title = \"Bad\"\n[[steps]]\nscenario = \"mine\"\ncursor = \"11s\"\ntext = \"here\"\n"), 0o644))
	s := newServer(t, Options{Dir: dir})
	var c catalogJSON
	get(t, s, "/api/scenarios", &c)
	var ids []string
	for _, e := range c.Scenarios {
		ids = append(ids, e.ID)
	}
	assert.Contains(t, ids, "file:mine.toml")
	assert.NotContains(t, ids, "file:walk.tour.toml")
	require.Len(t, c.Tours, 3)
	assert.Equal(t, "debate", c.Tours[0].ID)
	assert.Equal(t, "file:bad.tour.toml", c.Tours[1].ID)
	assert.Equal(t, filepath.Join(dir, "bad.tour.toml")+":4: steps[0].cursor: 11s is after the end of mine's run (10s)", c.Tours[1].Error)
	require.NotNil(t, c.Tours[2].Tour)
	assert.Equal(t, "file:mine.toml", c.Tours[2].Tour.Steps[0].Scenario)
	var gc entry
	for _, e := range c.Scenarios {
		if e.ID == "gc-pause" {
			gc = e
		}
	}
	require.NotNil(t, gc.Challenge)
	raw, err := json.Marshal(c.Tours[0].Tour.Steps[0])
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"cursor":13000000000`)
}
