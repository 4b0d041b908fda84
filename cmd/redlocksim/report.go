package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
	"github.com/redlocksim/redlocksim/cmd/internal/report"
	htmlpage "github.com/redlocksim/redlocksim/plots/report"
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
	html, err := htmlpage.Render(page)
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
func reportPage(f *reportFlags, names, args []string, stderr io.Writer) (htmlpage.Page, error) {
	if len(names) == 0 {
		names = scenarios.DebateOrder
	}
	page := htmlpage.Page{
		Title: "Is Redlock safe? The debate, run",
		Intro: "Each scenario below is one argument of the debate between Martin Kleppmann and antirez (2016), " +
			"and of Jepsen's analysis of etcd's lease locks (2020), run in redlocksim's deterministic simulator. " +
			"Mutual exclusion asks whether two clients ever both believed they held the lock; resource asks " +
			"whether the protected resource lost an update or accepted a stale write. Every run can be replayed " +
			"with the command under it.",
		Command: "redlocksim report " + strings.Join(args, " "),
	}
	for _, n := range names {
		s, err := report.Section(n)
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
		if page.Reality, err = report.ReadReality(f.reality, inPage); err != nil {
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
func headlineFigures(seeds int, stderr io.Writer) ([]htmlpage.Figure, error) {
	dir, err := os.MkdirTemp("", "redlocksim-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var figs []htmlpage.Figure
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
		figs = append(figs, htmlpage.Figure{
			Title: h.title, Caption: h.caption + fmt.Sprintf(" (%d seeds per point.)", seeds), SVG: data,
			Commands: []string{
				"redlocksim " + strings.Join(append([]string{"sweep"}, h.sweep, "--seeds", fmt.Sprint(seeds), "--out", h.sweep+".csv"), " "),
				"redlocksim plot " + h.sweep + ".csv " + strings.Join(h.plot, " ") + " --out " + h.sweep + ".svg",
			},
		})
	}
	return figs, nil
}
