package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/real/harness"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	"github.com/redlocksim/redlocksim/scenarios"
)

// realFlags are real's options.
type realFlags struct {
	runs  int
	scale float64
	json  jsonFlag
	keep  string
	seed  seedFlag
	sets  setFlags
}

func parseRealFlags(args []string, stderr io.Writer) (*realFlags, []string, error) {
	fs := newFlagSet("real", `usage: redlocksim real NAME|FILE [flags]

Runs a scenario against real processes on this machine's loopback: one
redis-server per node, one OS process per client (redsync over go-redis, or
the harness's raw client where the scenario needs what no library offers),
a fault proxy on every client connection, and a real resource server. The
recorded history is judged by the simulator's checker. Every time in the
scenario is divided by --scale (default: about 7 s of run time). A node's
clock (steps, rates, slews) is the redis-server's own, through a small
clock library preloaded into it; the raw client reads its clock the same
way. Faults a real process cannot take here (loss, power loss under
appendfsync everysec) are refused with exit 2.

Needs the Debian packages redis-server and, for scenarios with node
clocks, gcc (the clock library is compiled on first use); redis-sentinel,
etcd-server and zookeeper for the failover, lease and zookeeper locks. The
k8s-lease, dynamodb and consul locks have no server here: refused.

flags:
`, stderr)
	f := &realFlags{}
	fs.IntVar(&f.runs, "runs", 1, "how many real runs, one after another")
	fs.Float64Var(&f.scale, "scale", 0, "divide every time in the scenario by `F` (default: the scenario's own, about 7 s of run time)")
	f.json.register(fs, "print JSON (one object; an array with --runs above 1)")
	fs.StringVar(&f.keep, "keep", "", "keep the nodes' directories (AOF, logs), the clients' stderr and their judged records (runN/cK.events, one JSON event a line) in `DIR`")
	f.seed.register(fs, "seed of the client pauses and retry delays (default: the scenario's own)")
	f.sets.register(fs)
	rest, err := parseArgs(fs, args)
	switch {
	case err != nil:
		return nil, nil, err
	case len(rest) != 1:
		return nil, nil, badInputf("redlocksim real: name one scenario, got %d arguments", len(rest))
	case f.runs < 1:
		return nil, nil, badInputf("redlocksim real: --runs must be at least 1, got %d", f.runs)
	}
	return f, rest, nil
}

func cmdReal(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, rest, err := parseRealFlags(args, stderr)
	if err != nil {
		return err
	}
	sc, hash, err := f.sets.load("real", rest[0])
	if err != nil {
		return err
	}
	outs, err := runReal(ctx, sc, f, stdout, stderr)
	if err != nil {
		return err
	}
	if f.json {
		var objs []runjson.Real
		for _, o := range outs {
			objs = append(objs, toRealJSON(sc, hash, o))
		}
		var v any = objs
		if len(objs) == 1 {
			v = objs[0]
		}
		if err := printJSON(stdout, v); err != nil {
			return badInputf("redlocksim real: %v", err)
		}
		return nil
	}
	if f.runs > 1 {
		n := 0
		for _, o := range outs {
			if o.asExpected(sc) {
				n++
			}
		}
		fmt.Fprintf(stdout, "%s: the contracted outcome (mutex %s, resource %s) in %d of %d real runs\n",
			sc.Name, orDash(sc.Expect.Mutex), orDash(sc.Expect.Resource), n, f.runs)
	}
	return nil
}

// runReal makes the real runs one after another, printing each as it
// ends unless --json. Every child dies with this command: when its run
// ends, at SIGINT or SIGTERM (the signal context closes the group at
// once, and the command exits 130), on a panic (the deferred Close runs
// while realMain recovers), and if this process is killed outright
// (Pdeathsig).
func runReal(ctx context.Context, sc *scenarios.Scenario, f *realFlags, stdout, stderr io.Writer) ([]realOutcome, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("redlocksim real: find this binary to run the clients: %v", err)
	}
	if err := checkFileLimit(len(sc.Config.Nodes), len(sc.Config.Clients)); err != nil {
		return nil, environment(fmt.Errorf("redlocksim real: %s: %w", sc.Name, err))
	}
	seed := f.seed.or(sc.Seed)
	var outs []realOutcome
	for i := range f.runs {
		g := proc.NewGroup()
		closeGroup := closeOnDone(ctx, g)
		keep := f.keep
		if keep != "" && f.runs > 1 {
			keep = fmt.Sprintf("%s/run%d", keep, i+1)
		}
		res, err := harness.Run(ctx, sc.Config, harness.Options{
			Scale: f.scale, Seed: seed + uint64(i), Keep: keep, Client: []string{exe, "real-client"}, Group: g,
		})
		closeErr := closeGroup()
		if ctx.Err() != nil {
			return nil, &interruptedError{sig: caughtSignal(ctx), msg: fmt.Errorf("redlocksim real: %v: every child process killed", caughtSignal(ctx))}
		}
		if err != nil {
			var refused *harness.RefusedError
			var missing *proc.MissingError
			switch {
			case errors.As(err, &missing), isResourceLimit(err):
				return nil, environment(fmt.Errorf("redlocksim real: %s: %w", sc.Name, err))
			case errors.As(err, &refused):
				return nil, badInputf("redlocksim real: %s: %v", sc.Name, err)
			}
			return nil, finding(fmt.Errorf("redlocksim real: %s: run %d failed: %v", sc.Name, i+1, err))
		}
		if closeErr != nil {
			fmt.Fprintf(stderr, "redlocksim real: %s: cleaning up: %v\n", sc.Name, closeErr)
		}
		o := realOutcome{run: i + 1, seed: seed + uint64(i), res: res}
		outs = append(outs, o)
		if !f.json {
			writeRealHuman(stdout, sc, o, f.runs)
		}
	}
	return outs, nil
}

// realOutcome is one real run of a scenario.
type realOutcome struct {
	run  int
	seed uint64
	res  *harness.Result
}

func (o realOutcome) verdicts() (mutex, resource string) {
	m, r := o.res.Report.Safe()
	return verdictWord(m), verdictWord(r)
}

// asExpected reports whether the run shows the scenario's contracted
// outcome (an unspecified expectation matches anything).
func (o realOutcome) asExpected(sc *scenarios.Scenario) bool {
	return len(sc.Expect.Unexpected(o.res.Report.Safe())) == 0
}

func writeRealHuman(w io.Writer, sc *scenarios.Scenario, o realOutcome, runs int) {
	res := o.res
	rep := res.Report
	fmt.Fprintf(w, "%s (real, run %d of %d): %s\n\n", sc.Name, o.run, runs, sc.Description)
	mutex, resource := o.verdicts()
	writeVerdict(w, sc, rep, mutex, resource)
	fmt.Fprintln(w)

	fmt.Fprintln(w, "metrics (scaled times: multiply by the scale to compare with the scenario)")
	writeMetrics(w, rep, len(res.History.Final))
	fmt.Fprintf(w, "  real run          scale %.3g (%v of scenario time in %v), loopback floor %v one way, %v of wall time in all\n",
		res.Scale, time.Duration(float64(res.End)*res.Scale).Round(time.Millisecond), res.End.Round(time.Millisecond),
		res.Floor.Round(time.Microsecond), res.Wall.Round(time.Millisecond))
	fmt.Fprintf(w, "  lock client       %s\n", res.Clients)
	for _, n := range res.Notes {
		fmt.Fprintf(w, "  note              %s\n", n)
	}
	fmt.Fprintln(w)
	if len(rep.Violations) > 0 {
		fmt.Fprintf(w, "violations (%d)\n", len(rep.Violations))
		writeStories(w, rep.Violations)
		fmt.Fprintln(w)
	}
}

// toRealJSON is real --json's object for o (runjson.Real).
func toRealJSON(sc *scenarios.Scenario, hash string, o realOutcome) runjson.Real {
	return runjson.OfReal(sc, hash, version(), runjson.RealRun{
		Run: o.run, Seed: o.seed, Report: o.res.Report, End: o.res.End, Floor: o.res.Floor, Wall: o.res.Wall,
		Scale: o.res.Scale, Clients: o.res.Clients, Notes: o.res.Notes,
	})
}

// cmdRealClient is one client process of a real run (hidden): its spec
// and T0 come on stdin, its events go to stdout.
func cmdRealClient(ctx context.Context, _ []string, stdout, _ io.Writer) error {
	if err := harness.RunClient(ctx, os.Stdin, stdout); err != nil {
		return badInputf("redlocksim real-client: %v", strings.TrimSpace(err.Error()))
	}
	return nil
}

// isResourceLimit reports whether err comes of a limit of this machine
// (open files, processes, memory, disk) rather than of the run.
func isResourceLimit(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.EAGAIN, syscall.ENOMEM, syscall.ENOSPC} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
