package lab

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/scenarios"
)

// verdictJSON stands in for run --json here (the command's encoder is
// tested against `redlocksim run` in cmd/redlocksim): the verdicts.
func verdictJSON(_ string, _ []byte, _ *scenarios.Scenario, res model.Result) ([]byte, error) {
	v := func(safe bool) string {
		if safe {
			return "safe"
		}
		return "violation"
	}
	return json.Marshal(map[string]string{"mutex": v(res.MutexSafe()), "resource": v(res.ResourceSafe())})
}

func newServer(t *testing.T, opts Options) *Server {
	t.Helper()
	if opts.RunJSON == nil {
		opts.RunJSON = verdictJSON
	}
	s, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// get serves one request and decodes a JSON answer into out (unless nil).
func get(t *testing.T, s *Server, target string, out any) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	if out != nil {
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), out), w.Body.String())
	}
	return w
}

func TestCheckAddr(t *testing.T) {
	assert.NoError(t, CheckAddr("127.0.0.1:8080", false))
	assert.NoError(t, CheckAddr("[::1]:8080", false))
	assert.NoError(t, CheckAddr("localhost:0", false))
	assert.ErrorContains(t, CheckAddr("0.0.0.0:8080", false), "0.0.0.0:8080 is not a loopback address; give --addr 0.0.0.0:8080 explicitly")
	assert.ErrorContains(t, CheckAddr(":8080", false), "not a loopback address")
	assert.NoError(t, CheckAddr("0.0.0.0:8080", true), "an explicit --addr is the user's choice")
	assert.ErrorContains(t, CheckAddr("8080", true), "want HOST:PORT")
}

func TestListenRefusesAPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, err = Listen(ln.Addr().String())
	require.Error(t, err)
	assert.Equal(t, ln.Addr().String()+" is in use by another program; choose another port with --addr", err.Error())
}

// The server sends its three assets and the directory's files, and
// nothing else: no path leaves the directory, by .. or by a symlink.
func TestServesOnlyItsOwnFiles(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.toml"), []byte("secret"), 0o644))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.toml"), []byte("duration = \"1s\"\n[lock]\nttl = \"1s\"\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.toml"), filepath.Join(dir, "link.toml")))
	s := newServer(t, Options{Dir: dir})

	for _, p := range []string{"/", "/assets/app.js", "/assets/style.css", "/files/mine.toml"} {
		w := get(t, s, p, nil)
		assert.Equal(t, http.StatusOK, w.Code, p)
		assert.NotContains(t, w.Body.String(), "secret", p)
	}
	assert.Contains(t, get(t, s, "/", nil).Body.String(), `<script src="assets/app.js">`)
	for _, p := range []string{"/files/..%2Fsecret.toml", "/files/link.toml", "/files/" + url.PathEscape(filepath.Join(outside, "secret.toml")),
		"/assets/../../go.mod", "/assets/doc.go", "/etc/passwd", "/files/mine.txt"} {
		w := get(t, s, p, nil)
		assert.Equal(t, http.StatusNotFound, w.Code, p)
		assert.NotContains(t, w.Body.String(), "secret\"", p)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/api/run?s=gc-pause", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)

	// The symlinked file is listed, but with the error that it is outside.
	var c catalogJSON
	get(t, s, "/api/scenarios", &c)
	var link *entry
	for i := range c.Scenarios {
		if c.Scenarios[i].ID == "file:link.toml" {
			link = &c.Scenarios[i]
		}
	}
	require.NotNil(t, link)
	assert.Contains(t, link.Error, "path escapes from parent")
}

// A malformed file of --dir is listed with the loader's file:line:key
// error and cannot be run; the library and the good file still can.
func TestBrokenFileIsListedNotOpened(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.toml"), []byte("duration = \"30s\"\n[lock]\nttl = \"10s\"\nretires = 3\n"), 0o644))
	s := newServer(t, Options{Dir: dir})
	var c catalogJSON
	get(t, s, "/api/scenarios", &c)
	assert.Len(t, c.Scenarios, len(scenarios.LibraryNames())+1)
	bad := c.Scenarios[len(c.Scenarios)-1]
	assert.Equal(t, "file:bad.toml", bad.ID)
	assert.Contains(t, bad.Error, filepath.Join(dir, "bad.toml")+`:4: lock.retires: unknown key; did you mean "retries"?`)
	require.Len(t, bad.Problems, 1)
	assert.Equal(t, "lock.retires", bad.Problems[0].Key)

	var e apiError
	w := get(t, s, "/api/run?s=file:bad.toml", &e)
	assert.Equal(t, http.StatusUnprocessableEntity, w.Code)
	assert.Contains(t, e.Error, "bad.toml:4: lock.retires")

	gc := c.Scenarios[0]
	for _, sc := range c.Scenarios {
		if sc.ID == "gc-pause" {
			gc = sc
		}
	}
	require.NotNil(t, gc.Debate)
	assert.Equal(t, []string{"Kleppmann"}, gc.Debate.By)
	assert.Equal(t, []string{"antirez"}, gc.Debate.AnswerBy)
}

// A bad override comes back as the loader's own message, with its key.
func TestOverrideErrorNamesTheKnob(t *testing.T) {
	s := newServer(t, Options{})
	var e apiError
	w := get(t, s, "/api/run?s=gc-pause&set="+url.QueryEscape("lock.ttl=10"), &e)
	assert.Equal(t, http.StatusUnprocessableEntity, w.Code)
	require.Len(t, e.Problems, 1)
	assert.Equal(t, "lock.ttl", e.Problems[0].Key)
	assert.Equal(t, `--set: lock.ttl: a duration is a string with a unit: write "10s" or "10ms", not the bare number 10`, e.Problems[0].Text)
}

// A run beyond the budget answers with the budget's message.
func TestRunBeyondTheBudget(t *testing.T) {
	s := newServer(t, Options{MaxEvents: 10})
	var e apiError
	w := get(t, s, "/api/run?s=gc-pause", &e)
	assert.Equal(t, http.StatusUnprocessableEntity, w.Code)
	assert.Contains(t, e.Error, "--max-events")
}

// gc-pause's answer: the checker's verdicts, the timeline's bars, the
// overlap, one arrow per delivered message and the narrated trace; with
// the fencing remedy on the B side, the resource is safe.
func TestRunAnswer(t *testing.T) {
	s := newServer(t, Options{})
	var a runJSON
	w := get(t, s, "/api/run?s=gc-pause&whatif=fencing", &a)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.JSONEq(t, `{"mutex":"violation","resource":"violation"}`, string(a.A.Run))
	assert.Equal(t, int64(30*time.Second), a.A.End)
	require.Len(t, a.A.Overlaps, 1)
	assert.Equal(t, "c1", a.A.Overlaps[0].A)
	assert.NotEmpty(t, a.A.Messages)
	for _, m := range a.A.Messages {
		assert.LessOrEqual(t, m.Sent, m.At)
	}
	var pause bool
	for _, sp := range a.A.Spans {
		pause = pause || sp.Kind == "pause" && sp.Lane == "c1" && sp.End-sp.Start == int64(15*time.Second)
	}
	assert.True(t, pause, "c1's 15 s pause")
	var woke bool
	for _, l := range a.A.Trace {
		woke = woke || l.Actor == "c1" && l.At == int64(16*time.Second) && strings.HasPrefix(l.Text, "wakes up") && l.Local == "16.000000s"
	}
	assert.True(t, woke, "the trace tells c1's waking at 16 s, with its own clock")
	require.NotNil(t, a.B)
	assert.Equal(t, []string{"resource.mode=fencing"}, a.B.Sets)
	assert.JSONEq(t, `{"mutex":"violation","resource":"safe"}`, string(a.B.Run.Run))
	// The lanes' clocks read true time here (no drift in gc-pause).
	for _, l := range a.A.Lanes {
		for _, p := range l.Clock {
			assert.Equal(t, p[0], p[1], l.Name)
		}
	}
}

// A power loss is told apart from a crash, with the keys it lost.
func TestPowerLossNamesTheKeysLost(t *testing.T) {
	s := newServer(t, Options{})
	var a runJSON
	get(t, s, "/api/run?s=aof-everysec-power-loss", &a)
	require.Len(t, a.A.Downs, 1)
	d := a.A.Downs[0]
	assert.Equal(t, "power-loss", d.Kind)
	assert.Equal(t, "n3", d.Lane)
	assert.Equal(t, []string{"c1#1"}, d.Held)
	assert.Equal(t, []string{"c1#1"}, d.Lost)

	get(t, s, "/api/run?s=aof-everysec-process-crash", &a)
	require.Len(t, a.A.Downs, 1)
	assert.Equal(t, "crash", a.A.Downs[0].Kind)
	assert.Equal(t, []string{"c1#1"}, a.A.Downs[0].Held)
	assert.Empty(t, a.A.Downs[0].Lost, "a process crash under everysec keeps what reached the OS")
}

// Inject adds a fault at the cursor; the run then has it.
func TestInjectAtTheCursor(t *testing.T) {
	s := newServer(t, Options{})
	var got struct{ Sets []string }
	w := get(t, s, "/api/inject?s=gc-pause&set="+url.QueryEscape("faults[0].for=5s")+"&kind=power-loss&target=n1&at=3s&for=0s", &got)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	require.Len(t, got.Sets, 1)
	assert.Equal(t, `faults=[{at = "1s", for = "5s", kind = "pause", target = "c1"}, {at = "3s", for = "0s", kind = "power-loss", target = "n1"}]`, got.Sets[0])
	var a runJSON
	get(t, s, "/api/run?s=gc-pause&set="+url.QueryEscape(got.Sets[0]), &a)
	require.Len(t, a.A.Downs, 1)
	assert.Equal(t, "power-loss", a.A.Downs[0].Kind)
	assert.Equal(t, int64(3*time.Second), a.A.Downs[0].At)

	var e apiError
	w = get(t, s, "/api/inject?s=gc-pause&kind=crash&target=nobody&at=3s", &e)
	assert.Equal(t, http.StatusUnprocessableEntity, w.Code)
	assert.Contains(t, e.Error, "nobody")
}

// One run at a time per client: a request that arrives while another of
// the same client waits supersedes the waiting one, which never runs.
func TestLaterRequestSupersedesEarlier(t *testing.T) {
	s := newServer(t, Options{})
	req := func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/api/run?s=gc-pause", nil)
		r.Header.Set("X-Lab-Client", "page-1")
		return r
	}
	release, ok := s.acquire(context.Background(), req())
	require.True(t, ok)
	results := make([]bool, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rel, ok := s.acquire(context.Background(), req())
			results[i] = ok
			if ok {
				rel()
			}
		}()
		// The second waits only after the first took its ticket.
		for s.clients["192.0.2.1 page-1"].latest.Load() < uint64(i+2) {
			time.Sleep(time.Millisecond)
		}
	}
	release()
	wg.Wait()
	assert.Equal(t, []bool{false, true}, results, "the earlier waiting request is superseded, the latest runs")

	// Another client is not held up by page-1.
	other := httptest.NewRequest(http.MethodGet, "/api/run?s=gc-pause", nil)
	other.Header.Set("X-Lab-Client", "page-2")
	rel, ok := s.acquire(context.Background(), other)
	require.True(t, ok)
	rel()
}

// The download is the scenario as a file of its own, which loads to what
// the lab ran: the overrides and the seed are in it.
func TestDownloadIsTheRun(t *testing.T) {
	s := newServer(t, Options{})
	w := get(t, s, "/api/download?s=gc-pause&seed=7&set="+url.QueryEscape("faults[0].for=5s"), nil)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, `attachment; filename="gc-pause.toml"`, w.Header().Get("Content-Disposition"))
	sc, err := scenarios.Parse("gc-pause.toml", w.Body.Bytes())
	require.NoError(t, err)
	assert.Equal(t, uint64(7), sc.Seed)
	assert.Equal(t, 5*time.Second, sc.Config.Faults[0].For)
	assert.Equal(t, "gc-pause", sc.Name)
	assert.True(t, strings.Contains(w.Body.String(), "[debate]"), "the file keeps its argument")
}

// A crash clicked on a client's lane is the client's crash for good
// (the model has no client restart), under every algorithm: the lab
// writes no_restart = true, and the run shows the client going down at
// the cursor and never starting again.
func TestInjectCrashOfAClientUnderEveryAlgorithm(t *testing.T) {
	byAlgorithm := map[string]string{
		"single": "auto-extend-abort", "failover": "failover-race", "redlock": "gc-pause",
		"lease": "consensus-lease-fencing", "zookeeper": "zookeeper-session-pause",
		"k8s-lease": "k8s-leader-pause", "dynamodb": "dynamodb-fast-waiter", "consul": "consul-lock-delay",
	}
	s := newServer(t, Options{})
	for _, alg := range client.Algorithms() {
		name, ok := byAlgorithm[alg]
		require.True(t, ok, "no library scenario of %s here: add one to byAlgorithm", alg)
		t.Run(alg, func(t *testing.T) {
			sc, err := scenarios.LoadLibrary(name)
			require.NoError(t, err)
			require.Equal(t, alg, sc.Config.Lock.Algorithm.String(), "%s runs another algorithm", name)
			sets := injectSets(t, s, url.Values{"s": {name}, "seed": {"1"}, "kind": {"crash"}, "target": {"c2"}, "at": {"2s"}, "for": {"5s"}})
			require.Len(t, sets, 1)
			assert.Contains(t, sets[0], `kind = "crash", no_restart = true, target = "c2"`)
			var a runJSON
			w := get(t, s, "/api/run?"+url.Values{"s": {name}, "seed": {"1"}, "set": sets}.Encode(), &a)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			var down []downJSON
			for _, d := range a.A.Downs {
				if d.Lane == "c2" {
					down = append(down, d)
				}
			}
			require.Len(t, down, 1, "c2 goes down once")
			assert.Equal(t, "crash", down[0].Kind)
			assert.Equal(t, int64(2*time.Second), down[0].At)
			assert.Equal(t, int64(-1), down[0].Restart, "a client's crash is for good")
		})
	}
}
