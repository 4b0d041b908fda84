package report

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/runjson"
	"github.com/redlocksim/redlocksim/cmd/internal/runview"
	"github.com/redlocksim/redlocksim/cmd/internal/whatif"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/plots"
	page "github.com/redlocksim/redlocksim/plots/report"
	"github.com/redlocksim/redlocksim/scenarios"
)

// A scenario's section shows at most maxSpans timeline spans and
// maxTraceLines lines of its trace, so that the 60-second runs (baseline,
// split-vote, about 2,000 bars each) do not make the page tens of
// megabytes; the section says how to see the rest.
const (
	maxSpans      = 250
	maxTraceLines = 600
)

// Section runs one built-in scenario or scenario file at its own seed,
// narrated, and replays it under every remedy: the scenario's section of
// the page.
func Section(name string) (page.Scenario, error) {
	sc, err := scenarios.LoadNamed(name)
	if err != nil {
		return page.Scenario{}, err
	}
	// The argument is the scenario's own [debate]; a file without one
	// (a teacher's own) argues what its description says.
	claim, who := sc.Debate.Claim, sc.Debate.By
	if claim == "" {
		claim, who = sc.Description, []string{"-"}
	}
	res, err := sc.Plan.RunTracedWithin(sc.Seed, 0)
	if err != nil {
		return page.Scenario{}, fmt.Errorf("%s: %w", name, err)
	}
	tl := runview.Timeline(sc, res)
	note := ""
	if len(tl.Spans) > maxSpans {
		// A long run turns to stripes: show its start, where the story
		// begins, and say how to see the rest.
		end := tl.Spans[maxSpans].Start.Truncate(time.Second) + time.Second
		tl.From, tl.To = 0, min(end, tl.End)
		note = fmt.Sprintf("The first %v of %v; draw the rest with %s --timeline FILE.svg --from %v --to %v.",
			tl.To, tl.End, runjson.ReplayCommand(name, sc.Seed, nil), tl.To, tl.End)
	}
	svg, err := plots.TimelineSVG(tl)
	if err != nil {
		return page.Scenario{}, fmt.Errorf("%s: drawing the timeline: %w", name, err)
	}
	var trace bytes.Buffer
	trace.WriteString(story.TraceHeader(res.Trace))
	if err := story.WriteTrace(&trace, res.Trace, res.Clocks, story.TraceOptions{}); err != nil {
		return page.Scenario{}, err
	}
	traceText := trace.String()
	if lines := strings.SplitAfter(traceText, "\n"); len(lines) > maxTraceLines {
		traceText = strings.Join(lines[:maxTraceLines], "") +
			fmt.Sprintf("... %d more lines: %s\n", len(lines)-maxTraceLines, runjson.ReplayCommand(name, sc.Seed, nil))
	}
	rows, err := whatif.Table(name, nil, sc.Seed, scenarios.Remedies, func(sets []string) string {
		return strings.TrimSuffix(runjson.ReplayCommand(name, sc.Seed, sets), " --trace")
	})
	if err != nil {
		return page.Scenario{}, fmt.Errorf("%s: %w", name, err)
	}
	s := page.Scenario{
		Name: sc.Name, Description: sc.Description, Argument: claim, Who: who, Answer: sc.Debate.Answer, AnswerBy: sc.Debate.AnswerBy, Lesson: sc.Lesson, Seed: sc.Seed,
		MutexSafe: res.MutexSafe(), ResourceSafe: res.ResourceSafe(),
		ExpectMutex: sc.Expect.Mutex, ExpectResource: sc.Expect.Resource,
		Metrics:      Metrics(res),
		Timeline:     svg,
		TimelineNote: note,
		Trace:        traceText,
		Replay:       runjson.ReplayCommand(name, sc.Seed, nil),
	}
	for _, f := range sc.DataFiles {
		s.Data = append(s.Data, f.String())
	}
	for _, r := range rows {
		rem := page.Remedy{Name: r.Remedy, Applies: r.Applies, Why: r.Why, Overrides: strings.Join(r.Sets, " ")}
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

// Metrics are a run's report in the page's words.
func Metrics(res model.Result) []page.Metric {
	rep := res.Report
	return []page.Metric{
		{Name: "overlaps", Value: fmt.Sprintf("%s, %v in all, longest %v", runjson.Count(rep.MutexViolations, "overlap"), rep.MutexOverlapTotal.Round(time.Microsecond), rep.MutexOverlapMax.Round(time.Microsecond))},
		{Name: "resource", Value: fmt.Sprintf("%s, %s accepted, %s rejected", runjson.Count(rep.LostUpdates, "lost update"), runjson.Count(rep.StaleWritesAccepted, "stale write"), runjson.Count(rep.StaleWritesRejected, "write"))},
		{Name: "acquisitions", Value: fmt.Sprintf("%d attempts, %d succeeded, %d failed", rep.AcquireAttempts, rep.AcquireSuccesses, rep.AcquireFailures)},
		{Name: "acquire latency", Value: fmt.Sprintf("p50 %v, p99 %v", rep.AcquireP50.Round(time.Microsecond), rep.AcquireP99.Round(time.Microsecond))},
		{Name: "unavailable", Value: fmt.Sprintf("%v; longest outage %v", rep.Unavailable.Round(time.Millisecond), rep.LongestOutage.Round(time.Millisecond))},
		{Name: "simulation", Value: fmt.Sprintf("%v of virtual time, %d events, %d messages (%d dropped)", res.End, res.Events, res.Net.Sent, res.Net.Dropped())},
	}
}
