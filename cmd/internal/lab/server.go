package lab

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// DefaultAddr is where the lab listens unless told otherwise: loopback, so
// that nobody else on the network can start runs.
const DefaultAddr = "127.0.0.1:8080"

// Options configure a lab server.
type Options struct {
	// Dir holds the teacher's own scenario files (*.toml); "" for none.
	Dir string
	// RunJSON returns what `redlocksim run FILE --json --trace` prints for
	// a scenario file named file (a base name) with contents data, which
	// loaded to sc and ran (narrated) to res.
	RunJSON func(file string, data []byte, sc *scenarios.Scenario, res model.Result) ([]byte, error)
	// MaxEvents is each run's event budget; 0 means run's default.
	MaxEvents uint64
	// MaxRunsAtOnce is the most runs the server makes at once, whoever
	// asks (0: one per core); MaxWaiting the most requests that wait for
	// one (0: four per run at once), each at most MaxWait (0: a minute).
	// A request beyond them gets 429 with a message (see admission).
	MaxRunsAtOnce, MaxWaiting int
	MaxWait                   time.Duration
}

//go:embed assets
var assets embed.FS

// assetTypes are the only files the server sends from the binary, with
// their content types.
var assetTypes = map[string]string{
	"index.html": "text/html; charset=utf-8",
	"app.js":     "text/javascript; charset=utf-8",
	"style.css":  "text/css; charset=utf-8",
}

// Server is the lab's HTTP handler.
type Server struct {
	opts    Options
	root    *os.Root // Opts.Dir, or nil
	mu      sync.Mutex
	clients map[string]*turn
	admit   *admission
}

// New opens the directory, if any, and returns the lab's handler. Close
// releases the directory.
func New(opts Options) (*Server, error) {
	if opts.RunJSON == nil {
		return nil, errors.New("lab: Options.RunJSON is required")
	}
	s := &Server{opts: opts, clients: map[string]*turn{}, admit: newAdmission(opts.MaxRunsAtOnce, opts.MaxWaiting, opts.MaxWait)}
	if opts.Dir != "" {
		st, err := os.Stat(opts.Dir)
		if err != nil {
			return nil, fmt.Errorf("--dir: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("--dir %s: not a directory", opts.Dir)
		}
		if s.root, err = os.OpenRoot(opts.Dir); err != nil {
			return nil, fmt.Errorf("--dir: %w", err)
		}
	}
	return s, nil
}

// Close releases the directory.
func (s *Server) Close() error {
	if s.root != nil {
		return s.root.Close()
	}
	return nil
}

// CheckAddr refuses an address that is not loopback unless the user gave
// it explicitly (--addr): the lab runs whatever a request asks of it, so
// it is for this machine unless its user says otherwise.
func CheckAddr(addr string, explicit bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %v (want HOST:PORT, like %s)", addr, err, DefaultAddr)
	}
	if explicit || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address; give --addr %s explicitly to serve other machines", addr, addr)
}

// IsLoopback reports whether addr's host is this machine only.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && isLoopback(host)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Listen listens on addr; a port that is in use is an error naming the
// address, which the command reports as bad input.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%s is in use by another program; choose another port with --addr", addr)
	}
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return ln, nil
}

// ServeHTTP routes a request. Nothing is served but the embedded assets,
// the directory's files and the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, http.StatusMethodNotAllowed, "the lab answers GET only")
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	p := r.URL.Path
	switch {
	case p == "/":
		s.asset(w, "index.html")
	case strings.HasPrefix(p, "/assets/"):
		s.asset(w, strings.TrimPrefix(p, "/assets/"))
	case strings.HasPrefix(p, "/files/"):
		s.file(w, strings.TrimPrefix(p, "/files/"))
	case p == "/api/scenarios":
		writeJSON(w, http.StatusOK, s.catalog())
	case p == "/api/run":
		s.run(w, r)
	case p == "/api/inject":
		s.inject(w, r)
	case p == "/api/download":
		s.download(w, r)
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such page: %s", p))
	}
}

func (s *Server) asset(w http.ResponseWriter, name string) {
	typ, ok := assetTypes[name]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such asset: %s", name))
		return
	}
	data, err := fs.ReadFile(assets, "assets/"+name)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", typ)
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(data)
}

// file serves one scenario file of the directory, as written.
func (s *Server) file(w http.ResponseWriter, name string) {
	data, err := s.readDir(name)
	if err != nil {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(data)
}

// readDir reads a scenario file of the directory: a base name ending in
// .toml, read through the os.Root, which refuses any path that leaves the
// directory (.., absolute paths, symlinks out).
func (s *Server) readDir(name string) ([]byte, error) {
	if s.root == nil {
		return nil, errors.New("the lab was started without --dir")
	}
	if !strings.HasSuffix(name, ".toml") || strings.ContainsAny(name, `/\`) || name == ".toml" {
		return nil, fmt.Errorf("%q is not a scenario file of --dir: give a NAME.toml in it", name)
	}
	data, err := s.root.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, errors.Unwrap(err))
	}
	return data, nil
}

// apiError is every error the API returns: a message, and for a loader
// error each problem with its key, so that the page shows it beside the
// knob that set it.
type apiError struct {
	Error    string        `json:"error"`
	Problems []problemJSON `json:"problems,omitempty"`
	// Knobs, for a run, are the scenario's knobs without the refused
	// overrides, each refused key holding the value given: the page draws
	// them and marks the bad one, as when it is typed (a permalink with an
	// invalid value opens with every knob in place).
	Knobs []knobJSON `json:"knobs,omitempty"`
}

type problemJSON struct {
	Key  string `json:"key"`
	Text string `json:"text"` // the loader's message, file:line: key: what
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, apiError{Error: msg})
}

// writeLoaderError sends a loader's error with its problems.
func writeLoaderError(w http.ResponseWriter, err error) {
	writeLoaderErrorKnobs(w, err, nil)
}

// writeLoaderErrorKnobs sends a loader's error with its problems and the
// knobs to draw beside them.
func writeLoaderErrorKnobs(w http.ResponseWriter, err error, knobs []knobJSON) {
	out := apiError{Error: err.Error(), Knobs: knobs}
	for _, e := range scenarios.Errors(err) {
		out.Problems = append(out.Problems, problemJSON{Key: e.Key, Text: e.Error()})
	}
	writeJSON(w, http.StatusUnprocessableEntity, out)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"encoding the answer failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(data)
}
