package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
	"github.com/redlocksim/redlocksim/scenarios/sweep/results"
)

// helpTopic is a document `redlocksim help NAME` prints: a format, in the
// words of the package that owns it. docs/reference/NAME.md is generated
// from the same text (TestReferenceDocs), so the two cannot part.
type helpTopic struct {
	name, summary string
	source        string // the file the text is, from the repository's root
	text          func() string
}

var helpTopics = []helpTopic{
	{"scenario", "the scenario file format, key by key, with every default", "scenarios/README.md", func() string { return scenarios.Format }},
	{"sweep", "the sweep spec format, its seeds, output files, checks and shards", "scenarios/sweep/README.md", func() string { return sweep.Format }},
	{"columns", "the columns of a sweep's results file and how each is computed", "scenarios/sweep/README.md", columnsHelp},
}

// findHelpTopic is the topic called name; ok is false if there is none.
func findHelpTopic(name string) (topic helpTopic, ok bool) {
	for _, t := range helpTopics {
		if t.name == name {
			return t, true
		}
	}
	return helpTopic{}, false
}

// helpTopicsUsage lists the topics, for the usage.
func helpTopicsUsage(w io.Writer) {
	fmt.Fprintln(w, "\nhelp topics ('redlocksim help TOPIC'):")
	for _, t := range helpTopics {
		fmt.Fprintf(w, "  %-8s %s\n", t.name, t.summary)
	}
}

// intervalNames say how each kind of interval is made, for the columns'
// table.
var intervalNames = map[results.Interval]string{
	results.NoInterval:      "none",
	results.WilsonInterval:  "Wilson score",
	results.StudentT:        "Student t",
	results.DeltaRatio:      "delta method",
	results.GarwoodInterval: "Garwood (exact Poisson)",
}

// columnsHelp is help columns: the sweep documentation's section on the
// results columns, then a table of every column as the results package
// defines it (name, label, unit, interval), so that the table cannot
// fall behind the files.
func columnsHelp() string {
	var b strings.Builder
	b.WriteString(sweep.Columns())
	b.WriteString("\n## Every column, as the results package defines it\n\n")
	b.WriteString("Generated from `scenarios/sweep/results` (Summary, Rates, Raw). A column with a\n")
	b.WriteString("95% interval is followed by its two bounds.\n")
	for _, part := range []struct {
		title string
		cols  []results.Column
	}{
		{"The results file, after `point` and the axis columns", results.Summary},
		{"The results file's rates, last (after any columns a command adds)", results.Rates},
		{"The raw file (`--raw`), after `point`, `replicate`, `seed` and the axis columns", results.Raw},
	} {
		fmt.Fprintf(&b, "\n%s:\n\n| column | what | unit | 95%% interval |\n|---|---|---|---|\n", part.title)
		for _, c := range part.cols {
			interval := intervalNames[c.CI]
			if low, high, ok := c.Bounds(); ok {
				interval += fmt.Sprintf(": `%s`, `%s`", low, high)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Name, c.Label, c.Unit, interval)
		}
	}
	return b.String()
}
