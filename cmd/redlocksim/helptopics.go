package main

import (
	"fmt"
	"io"

	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/sweep"
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
	{"columns", "the columns of a sweep's results file and how each is computed", "scenarios/sweep/README.md", sweep.Columns},
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
