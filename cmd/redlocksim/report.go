package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/runview"
	"github.com/redlocksim/redlocksim/cmd/internal/whatif"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/plots"
	"github.com/redlocksim/redlocksim/plots/report"
	"github.com/redlocksim/redlocksim/scenarios"
)

// reportFlags are report's options.
type reportFlags struct {
	out        outFlag
	sweepSeeds int
	reality    string
}

func parseReportFlags(args []string, stderr io.Writer) (*reportFlags, []string, error) {
	fs := newFlagSet("report", `usage: redlocksim report [NAME|FILE...] --out DIR|FILE.html [flags]

Writes one self-contained HTML page (no network fetches; styles and
figures inline) that walks the debate: an overview of the scenarios with
their verdicts and who made each argument, then per scenario the lesson,
the timeline (hover for times), the metrics, the what-if table of
remedies, the narrated trace and the replay command; and the headline
sweep figures; with --reality, real runs beside the simulated ones.
NAME... are built-in scenarios or scenario files (default: every
built-in scenario, in the debate's order).
--out DIR writes DIR/index.html.

flags:
`, stderr)
	f := &reportFlags{}
	f.out.register(fs, "", "the page: a `FILE` ending in .html, or a directory for index.html (required)")
	fs.IntVar(&f.sweepSeeds, "sweep-seeds", 40, "seeds per point of the headline sweeps; 0 leaves the figures out")
	fs.StringVar(&f.reality, "reality", "", "add the reality check from `FILE`: what 'redlocksim compare --json' printed, or one or more 'redlocksim real NAME --json' objects")
	names, err := parseArgs(fs, args)
	switch {
	case err != nil:
		return nil, nil, err
	case f.out == "":
		return nil, nil, f.out.required("report")
	case f.sweepSeeds < 0:
		return nil, nil, badInputf("redlocksim report: --sweep-seeds must not be negative, got %d", f.sweepSeeds)
	}
	return f, names, nil
}

func cmdReport(_ context.Context, args []string, stdout, stderr io.Writer) error {
	f, names, err := parseReportFlags(args, stderr)
	if err != nil {
		return err
	}
	path := string(f.out)
	if !strings.HasSuffix(strings.ToLower(path), ".html") {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return badInputf("redlocksim report: %v", err)
		}
		path = filepath.Join(path, "index.html")
	}
	page, err := reportPage(f, names, args, stderr)
	if err != nil {
		return err
	}
	html, err := report.Render(page)
	if err != nil {
		return fmt.Errorf("redlocksim report: %v", err) // a bug: exitInternal
	}
	if _, err := atomicfile.Write(path, html); err != nil {
		return badInputf("redlocksim report: %v", err)
	}
	fmt.Fprintf(stdout, "wrote %s (%s, %s)\n", path, count(len(page.Scenarios), "scenario"), count(len(page.Figures), "figure"))
	return nil
}

// reportPage runs the scenarios names (default: the debate's) and the
// headline sweeps, and reads the reality check, into the page.
func reportPage(f *reportFlags, names, args []string, stderr io.Writer) (report.Page, error) {
	if len(names) == 0 {
		names = scenarios.DebateOrder
	}
	page := report.Page{
		Title: "Is Redlock safe? The debate, run",
		Intro: "Each scenario below is one argument of the debate between Martin Kleppmann and antirez (2016), " +
			"and of Jepsen's analysis of etcd's lease locks (2020), run in redlocksim's deterministic simulator. " +
			"Mutual exclusion asks whether two clients ever both believed they held the lock; resource asks " +
			"whether the protected resource lost an update or accepted a stale write. Every run can be replayed " +
			"with the command under it.",
		Command: "redlocksim report " + strings.Join(args, " "),
	}
	for _, n := range names {
		s, err := reportScenario(n)
		if err != nil {
			return page, badInputf("redlocksim report: %v", err)
		}
		page.Scenarios = append(page.Scenarios, s)
	}
	if f.reality != "" {
		inPage := map[string]bool{}
		for _, s := range page.Scenarios {
			inPage[s.Name] = true
		}
		var err error
		if page.Reality, err = readReality(f.reality, inPage); err != nil {
			return page, badInputf("redlocksim report: %v", err)
		}
	}
	if f.sweepSeeds > 0 {
		figs, err := headlineFigures(f.sweepSeeds, stderr)
		if err != nil {
			return page, fmt.Errorf("redlocksim report: %v", err) // the built-in sweeps failed: exitInternal
		}
		page.Figures = figs
	}
	return page, nil
}

// A scenario's section shows at most reportSpans timeline spans and
// reportTraceLines lines of its trace, so that the 60-second runs (baseline,
// split-vote, about 2,000 bars each) do not make the page tens of
// megabytes; the section says how to see the rest.
const (
	reportSpans      = 250
	reportTraceLines = 600
)

// reportScenario runs one built-in scenario or scenario file at its own
// seed, narrated, and replays it under every remedy.
func reportScenario(name string) (report.Scenario, error) {
	sc, err := scenarios.LoadNamed(name)
	if err != nil {
		return report.Scenario{}, err
	}
	// The argument is the scenario's own [debate]; a file without one
	// (a teacher's own) argues what its description says.
	claim, who := sc.Debate.Claim, sc.Debate.By
	if claim == "" {
		claim, who = sc.Description, []string{"-"}
	}
	res, err := sc.Plan.RunTracedWithin(sc.Seed, 0)
	if err != nil {
		return report.Scenario{}, fmt.Errorf("%s: %w", name, err)
	}
	tl := runview.Timeline(sc, res)
	note := ""
	if len(tl.Spans) > reportSpans {
		// A long run turns to stripes: show its start, where the story
		// begins, and say how to see the rest.
		end := tl.Spans[reportSpans].Start.Truncate(time.Second) + time.Second
		tl.From, tl.To = 0, min(end, tl.End)
		note = fmt.Sprintf("The first %v of %v; draw the rest with %s --timeline FILE.svg --from %v --to %v.",
			tl.To, tl.End, replayCommand(name, sc.Seed, nil), tl.To, tl.End)
	}
	svg, err := plots.TimelineSVG(tl)
	if err != nil {
		return report.Scenario{}, fmt.Errorf("%s: drawing the timeline: %w", name, err)
	}
	var trace bytes.Buffer
	trace.WriteString(story.TraceHeader(res.Trace))
	if err := story.WriteTrace(&trace, res.Trace, res.Clocks, story.TraceOptions{}); err != nil {
		return report.Scenario{}, err
	}
	traceText := trace.String()
	if lines := strings.SplitAfter(traceText, "\n"); len(lines) > reportTraceLines {
		traceText = strings.Join(lines[:reportTraceLines], "") +
			fmt.Sprintf("... %d more lines: %s\n", len(lines)-reportTraceLines, replayCommand(name, sc.Seed, nil))
	}
	rows, err := whatif.Table(name, nil, sc.Seed, scenarios.Remedies, func(sets []string) string {
		return strings.TrimSuffix(replayCommand(name, sc.Seed, sets), " --trace")
	})
	if err != nil {
		return report.Scenario{}, fmt.Errorf("%s: %w", name, err)
	}
	s := report.Scenario{
		Name: sc.Name, Description: sc.Description, Argument: claim, Who: who, Answer: sc.Debate.Answer, AnswerBy: sc.Debate.AnswerBy, Lesson: sc.Lesson, Seed: sc.Seed,
		MutexSafe: res.MutexSafe(), ResourceSafe: res.ResourceSafe(),
		ExpectMutex: sc.Expect.Mutex, ExpectResource: sc.Expect.Resource,
		Metrics:      reportMetrics(res),
		Timeline:     svg,
		TimelineNote: note,
		Trace:        traceText,
		Replay:       replayCommand(name, sc.Seed, nil),
	}
	for _, f := range sc.DataFiles {
		s.Data = append(s.Data, f.String())
	}
	for _, r := range rows {
		rem := report.Remedy{Name: r.Remedy, Applies: r.Applies, Why: r.Why, Overrides: strings.Join(r.Sets, " ")}
		if r.Applies {
			rem.MutexSafe, rem.ResourceSafe = r.Result.MutexSafe(), r.Result.ResourceSafe()
			rem.Availability = whatif.Availability(r.Result)
		}
		if rem.Overrides == "" && r.Applies {
			rem.Overrides = "-"
		}
		s.WhatIf = append(s.WhatIf, rem)
	}
	return s, nil
}

func reportMetrics(res model.Result) []report.Metric {
	rep := res.Report
	return []report.Metric{
		{Name: "overlaps", Value: fmt.Sprintf("%s, %v in all, longest %v", count(rep.MutexViolations, "overlap"), rep.MutexOverlapTotal.Round(time.Microsecond), rep.MutexOverlapMax.Round(time.Microsecond))},
		{Name: "resource", Value: fmt.Sprintf("%s, %s accepted, %s rejected", count(rep.LostUpdates, "lost update"), count(rep.StaleWritesAccepted, "stale write"), count(rep.StaleWritesRejected, "write"))},
		{Name: "acquisitions", Value: fmt.Sprintf("%d attempts, %d succeeded, %d failed", rep.AcquireAttempts, rep.AcquireSuccesses, rep.AcquireFailures)},
		{Name: "acquire latency", Value: fmt.Sprintf("p50 %v, p99 %v", rep.AcquireP50.Round(time.Microsecond), rep.AcquireP99.Round(time.Microsecond))},
		{Name: "unavailable", Value: fmt.Sprintf("%v; longest outage %v", rep.Unavailable.Round(time.Millisecond), rep.LongestOutage.Round(time.Millisecond))},
		{Name: "simulation", Value: fmt.Sprintf("%v of virtual time, %d events, %d messages (%d dropped)", res.End, res.Events, res.Net.Sent, res.Net.Dropped())},
	}
}

// headlineFigure is a built-in sweep and the plot drawn from it.
type headlineFigure struct {
	title, caption, sweep string
	plot                  []string
}

var headlines = []headlineFigure{
	{
		title:   "Violations against TTL, one line per server clock drift",
		caption: "Pause-driven violations fall as the TTL grows; once the Redis clocks run fast by more than the margin the client leaves (about 2% here), every key dies before its holder is done.",
		sweep:   "ttl-vs-drift",
		plot:    []string{"--x", "lock.ttl", "--y", "mutex_violation_rate", "--series", "nodes.clock.rate_ppm", "--logx"},
	},
	{
		title:   "Violations by persistence policy and restart delay",
		caption: "Without persistence a node that restarts before the holds end forgets the key; AOF everysec loses only the last second; always loses nothing. Delay buys safety with availability.",
		sweep:   "persistence",
		plot:    []string{"--heatmap", "--x", "nodes.restart_delay", "--y", "nodes.persistence", "--z", "mutex_violation_rate", "--annotate", "ci"},
	},
}

// headlineFigures runs the headline sweeps with seeds per point and draws
// them, through the same sweep and plot commands a user runs.
func headlineFigures(seeds int, stderr io.Writer) ([]report.Figure, error) {
	dir, err := os.MkdirTemp("", "redlocksim-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var figs []report.Figure
	for _, h := range headlines {
		csv := filepath.Join(dir, h.sweep+".csv")
		svg := filepath.Join(dir, h.sweep+".svg")
		sweepArgs := []string{h.sweep, "--seeds", fmt.Sprint(seeds), "--out", csv}
		var errb bytes.Buffer
		if err := cmdSweep(context.Background(), sweepArgs, io.Discard, &errb); err != nil {
			exitStatus(&errb, err) // its message, after what it printed
			return nil, fmt.Errorf("sweep %s: %s", h.sweep, strings.TrimSpace(errb.String()))
		}
		plotArgs := append([]string{csv}, h.plot...)
		plotArgs = append(plotArgs, "--out", svg)
		if err := cmdPlot(context.Background(), plotArgs, io.Discard, &errb); err != nil {
			exitStatus(&errb, err)
			return nil, fmt.Errorf("plot %s: %s", h.sweep, strings.TrimSpace(errb.String()))
		}
		data, err := os.ReadFile(svg)
		if err != nil {
			return nil, err
		}
		figs = append(figs, report.Figure{
			Title: h.title, Caption: h.caption + fmt.Sprintf(" (%d seeds per point.)", seeds), SVG: data,
			Commands: []string{
				"redlocksim " + strings.Join(append([]string{"sweep"}, h.sweep, "--seeds", fmt.Sprint(seeds), "--out", h.sweep+".csv"), " "),
				"redlocksim plot " + h.sweep + ".csv " + strings.Join(h.plot, " ") + " --out " + h.sweep + ".svg",
			},
		})
	}
	return figs, nil
}
