package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/lab"
	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/scenarios"
)

// labReady is told the lab's URL once it listens; tests replace it.
var labReady = func(string) {}

// cmdLab serves the lab until the signal context ends it (SIGINT or
// SIGTERM: a lab's ordinary end, exit 0).
func cmdLab(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("lab", `usage: redlocksim lab [--addr HOST:PORT] [--dir DIR]
       redlocksim lab --export DIR [--wasm FILE]
       redlocksim lab --check-tour FILE [--dir DIR]

Serves the lecture lab, a page for a lecture hall: pick a scenario (the
library, and the scenario files in --dir), change its TTL, faults, clocks
or remedy, and the verdict and the space-time diagram follow. Everything
is served from the binary; the page fetches nothing from elsewhere.
It listens on loopback unless --addr says otherwise. Ctrl-C stops it.

Every run is held to run's budget (--max-events); the server makes at
most --max-runs-at-once runs at once, lets a few more requests wait, and
answers any beyond with 429, as it does a third request from one
connection address while two are running or waiting.

With --export it serves nothing: it writes the lab as static files into
DIR (new, empty, or an earlier export), with the simulator compiled to
WebAssembly, so that any static web server can host it and every run
happens in the student's browser. Compiling needs the go toolchain and
redlocksim's source (a checkout); --wasm gives a module built before.

With --check-tour it serves nothing: it checks a tour file (its keys,
its scenarios in the library and --dir, their overrides and cursors) as
the lab lists it, and exits 2 with each problem as file:line: key.

flags:
`, stderr)
	addr := fs.String("addr", lab.DefaultAddr, "listen on `HOST:PORT` (a non-loopback address only when given explicitly)")
	dir := fs.String("dir", "", "also offer the scenario files (*.toml) in `DIR`")
	maxEvents := maxEventsFlag(fs)
	maxRuns := fs.Int("max-runs-at-once", runtime.NumCPU(), "make at most `N` runs at once, whoever asks; up to 4×N more requests wait, and any beyond get 429 (busy), as does a third from one address")
	export := fs.String("export", "", "write the lab as static files into `DIR` instead of serving it")
	checkTour := fs.String("check-tour", "", "check the tour `FILE` (a *.tour.toml) and exit, serving nothing")
	wasm := fs.String("wasm", "", "with --export: the simulator already compiled (GOOS=js GOARCH=wasm go build ./cmd/internal/labwasm) in `FILE`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return badInput(nil) // the flag package said what
	}
	if fs.NArg() > 0 {
		return badInputf("redlocksim lab: no arguments besides the flags, got %q", fs.Args())
	}
	if *maxRuns < 1 || *maxRuns > maxWorkers {
		return badInputf("redlocksim lab: --max-runs-at-once is a whole number from 1 to %d (each run holds its world), got %d", maxWorkers, *maxRuns)
	}
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "addr" })
	if *checkTour != "" {
		if *export != "" || explicit {
			return badInputf("redlocksim lab: --check-tour serves nothing: it takes no --export or --addr")
		}
		return checkTourFile(*checkTour, *dir, stdout)
	}
	if *export != "" {
		if explicit || *dir != "" {
			return badInputf("redlocksim lab: --export writes static files: it takes no --addr or --dir")
		}
		return exportLab(ctx, *export, *wasm, stdout)
	}
	if *wasm != "" {
		return badInputf("redlocksim lab: --wasm goes with --export DIR")
	}
	if err := lab.CheckAddr(*addr, explicit); err != nil {
		return badInputf("redlocksim lab: %v", err)
	}
	srv, err := lab.New(lab.Options{Dir: *dir, RunJSON: labRunJSON, MaxEvents: *maxEvents, MaxRunsAtOnce: *maxRuns})
	if err != nil {
		return badInputf("redlocksim lab: %v", err)
	}
	defer srv.Close()
	ln, err := lab.Listen(*addr)
	if err != nil {
		return environment(fmt.Errorf("redlocksim lab: %w", err))
	}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(stdout, "redlocksim lab: serving %s (Ctrl-C stops it)\n", url)
	if !lab.IsLoopback(ln.Addr().String()) {
		fmt.Fprintln(stdout, "redlocksim lab: this address is reachable from other machines: anyone who reaches it can run simulations here")
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	labReady(url)
	select {
	case err := <-done:
		return badInputf("redlocksim lab: %v", err)
	case <-ctx.Done():
	}
	// Within the signal's grace: the runs under way are dropped after it.
	shut, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = hs.Shutdown(shut)
	fmt.Fprintln(stdout, "redlocksim lab: stopped")
	// 130 or 143, as every command (it said 0).
	sig := caughtSignal(ctx)
	return &interruptedError{sig: sig, msg: fmt.Errorf("redlocksim lab: stopped by %v", sig)}
}

// checkTourFile checks the tour file as the lab with --dir dir lists it.
func checkTourFile(file, dir string, stdout io.Writer) error {
	srv, err := lab.New(lab.Options{Dir: dir, RunJSON: labRunJSON})
	if err != nil {
		return badInputf("redlocksim lab: %v", err)
	}
	defer srv.Close()
	data, err := scenarios.ReadFile(file)
	if err != nil {
		return badInputf("redlocksim lab: --check-tour: %v", err)
	}
	t, err := srv.CheckTour(file, data)
	if err != nil {
		return badInput(err)
	}
	fmt.Fprintf(stdout, "%s: %q, %d steps: ok\n", file, t.Title, len(t.Steps))
	return nil
}

// labRunJSON is what `redlocksim run FILE --json --trace` prints for the
// file named file with contents data, which ran to res: the lab shows it,
// and the test replays the downloaded file to compare.
func labRunJSON(file string, data []byte, sc *scenarios.Scenario, res model.Result) ([]byte, error) {
	return runjson.OfFile(version(), file, data, sc, res)
}
