package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	"github.com/redlocksim/redlocksim/cmd/internal/sweeprun"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/scenarios"
)

// The model's entry points, as the commands call them; tests replace them
// to inject an internal error.
var (
	modelRun       = (*model.Plan).RunWithin
	modelRunTraced = (*model.Plan).RunTracedWithin
	modelRunFast   = (*model.Plan).RunFastWithin
)

// runFlags are run's options.
type runFlags struct {
	seed             seedFlag
	json             jsonFlag
	trace            bool
	drops            bool
	timeline         string
	failOnViolation  bool
	failOnUnexpected bool
	maxEvents        *uint64
	sets             setFlags
	whatIf           string
	perfetto         string
	from, to         time.Duration // the timeline's window; to 0 = the whole run
}

// parseRunFlags parses run's flags and returns the scenario to run.
func parseRunFlags(args []string, stderr io.Writer) (*runFlags, string, error) {
	fs := newFlagSet("run", `usage: redlocksim run [NAME|FILE] [flags]

Runs one scenario (a built-in name, see 'redlocksim list', or a .toml file;
default gc-pause) and prints the verdict, the metrics, the lesson and, for
each violation, the story and a command that replays it.

flags:
`, stderr)
	f := &runFlags{}
	f.seed.register(fs, "the run's seed (default: the scenario's own)")
	f.json.register(fs, "print one JSON object instead of text")
	fs.BoolVar(&f.trace, "trace", false, "print the narrated timeline of the run (with --json, as the trace array of lines)")
	fs.BoolVar(&f.drops, "drops", false, "with --trace, include every dropped message")
	fs.StringVar(&f.timeline, "timeline", "", "draw the space-time diagram to `FILE` (.svg, .png or .pdf)")
	fs.DurationVar(&f.from, "from", 0, "with --timeline, start the diagram at true time `T` (e.g. 10s)")
	fs.DurationVar(&f.to, "to", 0, "with --timeline, end the diagram at true time `T` (default: the run's end)")
	fs.StringVar(&f.whatIf, "what-if", "", "replay the run once per remedy in `LIST` (comma-separated: "+strings.Join(scenarios.RemedyNames(), ", ")+", or all) and print a verdict table")
	fs.StringVar(&f.perfetto, "perfetto", "", "write the run as a Chrome/Perfetto trace to `FILE` (.json; open it in ui.perfetto.dev)")
	fs.BoolVar(&f.failOnViolation, "fail-on-violation", false, "exit 1 when the run finds a violation")
	f.maxEvents = maxEventsFlag(fs)
	fs.BoolVar(&f.failOnUnexpected, "fail-on-unexpected", false, "exit 1 when a verdict contradicts the scenario's [expect]")
	f.sets.register(fs)
	// Flags may come before or after the scenario name.
	rest, err := parseArgs(fs, args)
	switch {
	case err != nil:
		return nil, "", err
	case len(rest) > 1:
		return nil, "", badRun("one scenario at a time, got %s", strings.Join(rest, " "))
	case len(rest) == 1:
		return f, rest[0], nil
	}
	return f, scenarios.DefaultScenario, nil
}

func badRun(format string, a ...any) error {
	return badInputf("redlocksim run: "+format, a...)
}

func cmdRun(_ context.Context, args []string, stdout, stderr io.Writer) error {
	f, arg, err := parseRunFlags(args, stderr)
	if err != nil {
		return err
	}
	sc, hash, err := f.sets.load("run", arg)
	if err != nil {
		return err
	}
	seed := f.seed.or(sc.Seed)
	if f.whatIf != "" {
		return runWhatIf(stdout, arg, seed, f)
	}
	if (f.from != 0 || f.to != 0) && f.timeline == "" {
		return badRun("--from and --to zoom the timeline: give --timeline FILE too")
	}
	replay := replayCommand(arg, seed, f.sets)
	res, err := sweeprun.Guard(seed, func() (model.Result, error) {
		if f.trace || f.timeline != "" || f.perfetto != "" { // narrated
			return modelRunTraced(sc.Plan, seed, *f.maxEvents)
		}
		return modelRun(sc.Plan, seed, *f.maxEvents)
	})
	if ie, ok := err.(*sweeprun.InternalError); ok {
		ie.Replay = replay
		return ie
	}
	if err != nil {
		return badRun("%s: %v", arg, err)
	}
	if err := writeRun(stdout, sc, hash, res, replay, f); err != nil {
		return badRun("%v", err)
	}
	if f.failOnViolation && (!res.MutexSafe() || !res.ResourceSafe() || sc.JudgeLiveness(res).Starved) {
		return finding(nil)
	}
	if f.failOnUnexpected {
		if u := sc.Expect.Unexpected(res.MutexSafe(), res.ResourceSafe()); len(u) > 0 {
			return finding(fmt.Errorf("redlocksim run: %s: the result contradicts the scenario's expect: %s", arg, strings.Join(u, "; ")))
		}
	}
	return nil
}

// writeRun writes what run's flags ask for: the timeline, the Perfetto
// trace, and the verdict as JSON or text.
func writeRun(w io.Writer, sc *scenarios.Scenario, hash string, res model.Result, replay string, f *runFlags) error {
	if f.timeline != "" {
		if err := drawTimeline(f.timeline, sc, res, f.from, f.to); err != nil {
			return err
		}
	}
	if f.perfetto != "" {
		if err := writePerfetto(f.perfetto, sc, res); err != nil {
			return err
		}
	}
	if f.json {
		return writeJSON(w, sc, hash, res, replay, f)
	}
	writeHuman(w, sc, res, replay, f)
	return nil
}

// livenessLine is the liveness verdict's detail as run prints it.
func livenessLine(l scenarios.LivenessVerdict) string {
	if l.Starved {
		return l.String()
	}
	if l.Wait == 0 {
		return fmt.Sprintf("no client waits for the lock after the faults healed at %v (limit %v)", l.Healed, l.Limit)
	}
	return fmt.Sprintf("the longest wait is %v (%s) after the faults healed at %v (limit %v)", l.Wait, l.Client, l.Healed, l.Limit)
}

// replayCommand is the command that replays a run (runjson.ReplayCommand).
var replayCommand = runjson.ReplayCommand

// shellQuote quotes an argument for a POSIX shell (runjson.ShellQuote).
var shellQuote = runjson.ShellQuote

func verdictWord(safe bool) string { return scenarios.Verdict(safe) }

// writeVerdict prints the verdict lines that run and real share: mutual
// exclusion and the resource, each beside what the scenario expects.
func writeVerdict(w io.Writer, sc *scenarios.Scenario, rep check.Report, mutex, resource string) {
	expect := func(got, want string) string {
		switch {
		case want == "":
			return ""
		case got == want:
			return "   (as the scenario expects)"
		default:
			return fmt.Sprintf("   (the scenario expects %s)", want)
		}
	}
	fmt.Fprintln(w, "verdict")
	fmt.Fprintf(w, "  mutual exclusion  %-9s  %s (%v in all, longest %v)%s\n",
		mutex, count(rep.MutexViolations, "overlap"), rep.MutexOverlapTotal.Round(time.Microsecond),
		rep.MutexOverlapMax.Round(time.Microsecond), expect(mutex, sc.Expect.Mutex))
	fmt.Fprintf(w, "  resource          %-9s  %s, %s accepted, %s%s\n",
		resource, count(rep.LostUpdates, "lost update"), count(rep.StaleWritesAccepted, "stale write"),
		count(rep.StaleWritesRejected, "write")+" rejected by the resource", expect(resource, sc.Expect.Resource))
}

// writeMetrics prints the availability and resource metrics that run and
// real share; final is the size of the resource's final set.
func writeMetrics(w io.Writer, rep check.Report, final int) {
	fmt.Fprintf(w, "  acquisitions      %d attempts, %d succeeded, %d failed\n", rep.AcquireAttempts, rep.AcquireSuccesses, rep.AcquireFailures)
	fmt.Fprintf(w, "  acquire latency   p50 %v, p99 %v\n", rep.AcquireP50.Round(time.Microsecond), rep.AcquireP99.Round(time.Microsecond))
	fmt.Fprintf(w, "  unavailable       %v (a client waited and nobody held the lock); longest outage %v\n",
		rep.Unavailable.Round(time.Millisecond), rep.LongestOutage.Round(time.Millisecond))
	fmt.Fprintf(w, "  resource writes   %d accepted; the final set has %s\n", rep.WritesAccepted, count(final, "element"))
}

// ms is a duration in milliseconds, as the JSON outputs print them.
var ms = runjson.Ms

func writeHuman(w io.Writer, sc *scenarios.Scenario, res model.Result, replay string, f *runFlags) {
	rep := res.Report
	fmt.Fprintf(w, "%s (seed %d): %s\n\n", sc.Name, res.Seed, sc.Description)
	writeDataFiles(w, sc.DataFiles)

	writeVerdict(w, sc, rep, verdictWord(res.MutexSafe()), verdictWord(res.ResourceSafe()))
	live := sc.JudgeLiveness(res)
	if live.Judged {
		fmt.Fprintf(w, "  liveness          %-9s  %s\n", verdictWord(!live.Starved), livenessLine(live))
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "metrics")
	writeMetrics(w, rep, res.FinalLen)
	fmt.Fprintf(w, "  simulation        %v of virtual time, %d events, %d messages (%d dropped)\n\n",
		res.End, res.Events, res.Net.Sent, res.Net.Dropped())

	if sc.Lesson != "" {
		fmt.Fprintln(w, "lesson")
		for _, line := range strings.Split(strings.TrimSpace(sc.Lesson), "\n") {
			fmt.Fprintln(w, "  "+line)
		}
		fmt.Fprintln(w)
	}

	n := len(rep.Violations)
	if live.Starved {
		n++
	}
	if n > 0 {
		fmt.Fprintf(w, "violations (%d)\n", n)
		writeStories(w, rep.Violations)
		if live.Starved {
			fmt.Fprintf(w, "  liveness: %s\n", live.String())
		}
		fmt.Fprintf(w, "\n  seed %d; replay with:\n    %s\n\n", res.Seed, replay)
	}

	if f.trace {
		fmt.Fprintln(w, "trace")
		fmt.Fprint(w, story.TraceHeader(res.Trace))
		_ = story.WriteTrace(w, res.Trace, res.Clocks, story.TraceOptions{Drops: f.drops})
	}
}

// count says "1 overlap", "2 overlaps".
var count = runjson.Count

func fmtSeconds(d time.Duration) string {
	return fmt.Sprintf("%.6fs", d.Seconds())
}

// writeDataFiles names each measurement file the scenario read with its
// hash, so that a result can be traced to its data; nothing when there
// are none.
func writeDataFiles(w io.Writer, files []scenarios.DataFile) {
	if len(files) == 0 {
		return
	}
	fmt.Fprintln(w, "data")
	for _, f := range files {
		fmt.Fprintf(w, "  %s\n", f)
	}
	fmt.Fprintln(w)
}

func writeJSON(w io.Writer, sc *scenarios.Scenario, hash string, res model.Result, replay string, f *runFlags) error {
	return runjson.Write(w, sc, hash, res, replay, runjson.Options{Version: version(), Trace: f.trace, Drops: f.drops})
}
