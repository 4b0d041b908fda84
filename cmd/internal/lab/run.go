package lab

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// request is what every run-shaped endpoint reads from its query: the
// scenario, its overrides in order (set=key=value, run's --set), the seed
// (absent: the scenario's own) and one remedy.
type request struct {
	id      string
	sets    []string
	seed    uint64
	seedSet bool
	whatIf  string
}

// maxSets bounds the overrides of one request; a page makes a few dozen.
const maxSets = 200

func parseRequest(r *http.Request) (request, error) {
	q := r.URL.Query()
	req := request{id: q.Get("s"), sets: q["set"], whatIf: q.Get("whatif")}
	if req.id == "" {
		return req, errors.New("name a scenario: s=NAME")
	}
	if len(req.sets) > maxSets {
		return req, fmt.Errorf("at most %d overrides, got %d", maxSets, len(req.sets))
	}
	if v := q.Get("seed"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return req, fmt.Errorf("a seed is a non-negative integer, got %q", v)
		}
		req.seed, req.seedSet = seed, true
	}
	return req, nil
}

// turn is one page's turn to run: a request takes a ticket, waits for
// the run before it, and runs only if no later ticket was taken meanwhile.
type turn struct {
	mu     sync.Mutex
	latest atomic.Uint64
}

// clientsKept bounds the table of clients; beyond it, it starts afresh
// (a superseded request of a forgotten client then simply runs).
const clientsKept = 1000

// acquire waits for the page's turn: a page is its connection's address
// and the X-Lab-Client its script sends, which tells apart the pages of
// one address and nothing more (the admission counts by address alone).
// It returns false, without the turn, when a later request of the same
// page arrived meanwhile or ctx ended.
func (s *Server) acquire(ctx context.Context, r *http.Request) (release func(), ok bool) {
	key := clientAddr(r) + " " + r.Header.Get("X-Lab-Client")
	s.mu.Lock()
	c := s.clients[key]
	if c == nil {
		if len(s.clients) >= clientsKept {
			s.clients = map[string]*turn{}
		}
		c = &turn{}
		s.clients[key] = c
	}
	s.mu.Unlock()
	ticket := c.latest.Add(1)
	c.mu.Lock()
	if c.latest.Load() != ticket || ctx.Err() != nil {
		c.mu.Unlock()
		return nil, false
	}
	return c.mu.Unlock, true
}

// loaded is a request's scenario, with the overrides applied, rendered to
// a file of its own and loaded back from it.
type loaded struct {
	sets []string
	seed uint64
	file string // NAME.toml, the downloaded file's name
	data []byte // the file: what Download sends and the run ran
	sc   *scenarios.Scenario
}

// load applies the request's overrides. A bad override is the loader's
// error (*scenarios.Error with the key), for the page to show at the knob.
func (s *Server) load(req request, extra []string) (*loaded, error) {
	b, err := s.base(req.id)
	if err != nil {
		return nil, err
	}
	sets := slices.Concat(req.sets, extra)
	sc, o, err := b.ApplySets(sets)
	if err != nil {
		return nil, err
	}
	seed := sc.Seed
	if req.seedSet {
		seed = req.seed
	}
	// The file says its seed, so that `redlocksim run FILE` replays this
	// run without a --seed.
	seedSet := scenarios.Override{Key: "seed", Value: int64(seed), File: "seed"}
	if seed > 1<<63-1 {
		return nil, &scenarios.Error{File: "the request", Key: "seed", Msg: fmt.Sprintf("a scenario file's seed is at most %d, got %d", int64(1<<63-1), seed)}
	}
	data, err := b.Render(append(o, seedSet)...)
	if err != nil {
		return nil, err
	}
	file := strings.TrimSuffix(filepath.Base(sc.Source), ".toml") + ".toml"
	if sc.Name != strings.TrimSuffix(file, ".toml") {
		file = sc.Name + ".toml" // a file that names itself: keep the name the run prints
	}
	rsc, err := scenarios.Parse(file, data)
	if err != nil {
		return nil, fmt.Errorf("the rendered scenario does not load back (a bug): %w", err)
	}
	return &loaded{sets: sets, seed: seed, file: file, data: data, sc: rsc}, nil
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	req, err := parseRequest(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	release, ok := s.acquire(r.Context(), r)
	if !ok {
		writeError(w, http.StatusConflict, "superseded by a later request")
		return
	}
	defer release()
	leave, err := s.admit.admit(r.Context(), clientAddr(r))
	var busy *busyError
	switch {
	case errors.As(err, &busy):
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusTooManyRequests, busy.msg)
		return
	case err != nil: // the client went away
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	defer leave()
	a, err := s.load(req, nil)
	if err != nil {
		writeLoaderErrorKnobs(w, err, s.knobsDespite(req, err))
		return
	}
	out := runJSON{}
	if out.A, err = s.view(a); err != nil {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	if req.whatIf != "" {
		b, err := s.remedy(a, req)
		if err != nil {
			writeError(w, http.StatusUnprocessableEntity, err.Error())
			return
		}
		out.B = b
	}
	writeJSON(w, http.StatusOK, out)
}

// knobsDespite are the knobs of req's scenario when the loader refused
// some of its overrides (err): loaded without the refused keys, with the
// value given shown at each of them; nil when the rest does not load
// either.
func (s *Server) knobsDespite(req request, err error) []knobJSON {
	bad := map[string]bool{}
	for _, e := range scenarios.Errors(err) {
		bad[e.Key] = true
	}
	if len(bad) == 0 {
		return nil
	}
	given := map[string]string{}
	kept := []string{}
	for _, set := range req.sets {
		k, v, _ := strings.Cut(set, "=")
		if bad[k] {
			given[k] = v
			continue
		}
		kept = append(kept, set)
	}
	rest := req
	rest.sets = kept
	l, err := s.load(rest, nil)
	if err != nil {
		return nil
	}
	ks := knobs(l.sc)
	for i := range ks {
		if v, ok := given[ks[i].Key]; ok {
			ks[i].Value = v
		}
	}
	return ks
}

type runJSON struct {
	A *viewJSON `json:"a"`
	B *abJSON   `json:"b,omitempty"`
}

// abJSON is the B side: the remedy, what it sets, and its run, or why it
// does not apply.
type abJSON struct {
	Remedy  string    `json:"remedy"`
	Summary string    `json:"summary"`
	Sets    []string  `json:"sets"`
	Applies bool      `json:"applies"`
	Why     string    `json:"why,omitempty"`
	Run     *viewJSON `json:"run,omitempty"`
}

// remedy runs a with one remedy applied: the remedy (scenarios.Remedy,
// what --what-if applies) says what it sets on a's scenario, or why it
// does not apply, and the lab runs that narrated.
func (s *Server) remedy(a *loaded, req request) (*abJSON, error) {
	rs, err := scenarios.ParseRemedies(req.whatIf)
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("give one remedy for the B side, got %q", req.whatIf)
	}
	b, err := s.base(req.id)
	if err != nil {
		return nil, err
	}
	sc, _, err := b.ApplySets(a.sets)
	if err != nil {
		return nil, err
	}
	extra, why, err := rs[0].Plan(b, sc)
	if err != nil {
		return nil, err
	}
	out := &abJSON{Remedy: rs[0].Name, Summary: rs[0].Summary, Sets: []string{}, Applies: why == "", Why: why}
	for _, o := range extra {
		out.Sets = append(out.Sets, o.Arg())
	}
	if !out.Applies {
		return out, nil
	}
	breq := req
	breq.sets = a.sets
	breq.seed, breq.seedSet = a.seed, true
	bl, err := s.load(breq, out.Sets)
	if err != nil {
		return nil, fmt.Errorf("remedy %s: %w", rs[0].Name, err)
	}
	if out.Run, err = s.view(bl); err != nil {
		return nil, err
	}
	return out, nil
}

// download sends the scenario as a file of its own.
func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	req, err := parseRequest(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	a, err := s.load(req, nil)
	if err != nil {
		writeLoaderError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/toml; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", a.file))
	w.Write(a.data)
}

// injectKinds are what a click on the diagram adds to the scenario: a
// pause, crash, power loss or clock step of a lane at the cursor; a
// freeze (a pause until the wake) and its wake; a message held,
// delivered at the cursor or dropped (the student as the adversary).
var injectKinds = []string{"pause", "crash", "power-loss", "clock-step", "hold-message", "drop-message", "wake"}

// inject answers the request's overrides with one more fault, or one
// changed: kind= at at= on target= (for= or by= its size); for a message,
// to= and at= its send time, and for a hold for= the time from its send
// to its arrival, replacing an earlier hold or drop of the same message;
// for a wake, the pause of target that began at since= ends at at=. Every
// fault goes in one faults= override, which replaces the overrides of
// single faults' keys. A change the loader refuses is its message, and
// the page keeps the run it has.
func (s *Server) inject(w http.ResponseWriter, r *http.Request) {
	req, err := parseRequest(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	q := r.URL.Query()
	kind := q.Get("kind")
	if !slices.Contains(injectKinds, kind) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("kind=%q: inject one of %s", kind, strings.Join(injectKinds, ", ")))
		return
	}
	a, err := s.load(req, nil)
	if err != nil {
		writeLoaderError(w, err)
		return
	}
	faults := make([]map[string]any, 0, len(a.sc.Config.Faults)+1)
	for i, f := range a.sc.Config.Faults {
		m, err := scenarios.FaultValue(f)
		if err != nil {
			writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("faults[%d]: %v", i, err))
			return
		}
		faults = append(faults, m)
	}
	if faults, err = changeFaults(&a.sc.Config, faults, kind, q); err != nil {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	var sets []string
	for _, s := range req.sets {
		if k, _, _ := strings.Cut(s, "="); k != "faults" && !strings.HasPrefix(k, "faults[") {
			sets = append(sets, s)
		}
	}
	list := make([]any, len(faults))
	for i, f := range faults {
		list[i] = f
	}
	sets = append(sets, scenarios.Override{Key: "faults", Value: list}.Arg())
	check := req
	check.sets = sets
	if _, err := s.load(check, nil); err != nil {
		writeLoaderError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sets": sets})
}

// changeFaults is the scenario's faults (cfg's, and their file forms m)
// with the click of kind applied, as inject says.
func changeFaults(cfg *model.Config, m []map[string]any, kind string, q url.Values) ([]map[string]any, error) {
	have, target := cfg.Faults, q.Get("target")
	switch kind {
	case "wake":
		since, err1 := strconv.ParseInt(q.Get("since"), 10, 64)
		at, err2 := strconv.ParseInt(q.Get("at"), 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("a wake needs since= and at=, in ns, got %q and %q", q.Get("since"), q.Get("at"))
		}
		if at <= since {
			return nil, fmt.Errorf("wake %s after it froze at %s: move the cursor later", target, time.Duration(since))
		}
		// The pause whose span began at since: the latest pause of
		// target that starts at or before it (a pause on acquisition
		// starts at the acquisition, after its at).
		i := -1
		for j, f := range have {
			if f.Kind == model.Pause && f.Target == target && f.At <= time.Duration(since) && (i < 0 || f.At >= have[i].At) {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("%s is not frozen by a fault of the scenario at %s", target, time.Duration(since))
		}
		m[i]["for"] = time.Duration(at - since).String()
		return m, nil
	case "hold-message", "drop-message":
		at, err := strconv.ParseInt(q.Get("at"), 10, 64)
		if err != nil || at < 0 {
			return nil, fmt.Errorf("a message's at= is its send time in ns, got %q", q.Get("at"))
		}
		nf := map[string]any{"at": time.Duration(at).String(), "kind": kind, "target": target, "to": q.Get("to")}
		if kind == "hold-message" {
			nf["for"] = q.Get("for")
		}
		// One message, one fate: a later click replaces the earlier.
		for j, f := range have {
			if (f.Kind == model.HoldMessage || f.Kind == model.DropMessage) && f.Target == target && f.To == q.Get("to") && f.At == time.Duration(at) {
				m[j] = nf
				return m, nil
			}
		}
		return append(m, nf), nil
	}
	nf := map[string]any{"at": q.Get("at"), "kind": kind, "target": target}
	switch {
	case kind == "crash" && slices.ContainsFunc(cfg.Clients, func(c model.ClientConfig) bool { return c.Name == target }):
		// The model has no client restart (a new process would be a
		// new client): a client's crash is for good, whatever for= says.
		nf["no_restart"] = true
	case kind == "pause", kind == "crash", kind == "power-loss":
		nf["for"] = cmpOr(q.Get("for"), "5s")
	case kind == "clock-step":
		nf["by"] = cmpOr(q.Get("by"), "+5s")
	}
	return append(m, nf), nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
