package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"regexp"
	"strings"
)

// Page is the whole report.
type Page struct {
	Title     string
	Intro     string // a paragraph under the title
	Scenarios []Scenario
	Figures   []Figure
	Reality   []Reality // the reality check, where real runs were recorded
	Command   string    // the command that wrote the page
}

// Reality is one scenario's real runs (redlocksim real or compare) beside
// its simulated runs: how many of each showed each violation.
type Reality struct {
	Scenario                   string
	InPage                     bool // the page has the scenario's section
	SimRuns                    int
	SimMutexViolated           int
	SimResViolated             int
	Runs                       int // real runs
	MutexViolated, ResViolated int
	LockClients                string
	Agreement                  string // compare's judgement ("agree", or what differs); "" when not compared
}

// Scenario is one argument of the debate, run.
type Scenario struct {
	Name        string
	Description string
	Argument    string   // the argument it answers, in a sentence
	Who         []string // who made it: Kleppmann, antirez, Jepsen, the Redis docs
	Answer      string   // the other side's answer, "" when the scenario gives none
	AnswerBy    []string // who answered
	Lesson      string
	Seed        uint64

	MutexSafe, ResourceSafe     bool
	ExpectMutex, ExpectResource string // "safe", "violation" or ""

	Metrics      []Metric
	Timeline     []byte // an SVG document (plots.TimelineSVG)
	TimelineNote string // what the timeline leaves out, if anything
	Trace        string // the narrated trace
	WhatIf       []Remedy
	Replay       string
	// Data names each measurement file the scenario read, with its hash
	// (scenarios.DataFile's String): where its numbers came from.
	Data []string
}

// Metric is one line of a scenario's metrics.
type Metric struct{ Name, Value string }

// Remedy is one row of a scenario's what-if table.
type Remedy struct {
	Name                         string
	Applies                      bool
	MutexSafe, ResourceSafe      bool
	Availability, Overrides, Why string
}

// Figure is a headline figure: an SVG document with a caption and the
// commands that make it.
type Figure struct {
	Title, Caption string
	SVG            []byte
	Commands       []string
}

//go:embed page.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"verdict": func(safe bool) string {
		if safe {
			return "safe"
		}
		return "violation"
	},
	"svg":   inlineSVG,
	"lines": func(s string) int { return strings.Count(s, "\n") },
	"join":  strings.Join,
	"paras": func(s string) []string {
		var out []string
		for _, p := range strings.Split(strings.TrimSpace(s), "\n\n") {
			if p = strings.Join(strings.Fields(p), " "); p != "" {
				out = append(out, p)
			}
		}
		return out
	},
}).Parse(pageTemplate))

// Render returns the page as HTML.
func Render(p Page) ([]byte, error) {
	names := map[string]bool{}
	for _, s := range p.Scenarios {
		if s.Name == "" || names[s.Name] {
			return nil, fmt.Errorf("report: scenario name %q is empty or repeated", s.Name)
		}
		names[s.Name] = true
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, p); err != nil {
		return nil, err
	}
	// The promise is that the page fetches nothing; an SVG that linked a
	// font or an image would break it silently, so check.
	if err := SelfContained(b.Bytes()); err != nil {
		return nil, fmt.Errorf("report: the page would fetch: %w", err)
	}
	return b.Bytes(), nil
}

var (
	xmlDecl  = regexp.MustCompile(`(?s)^\s*<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)
	svgSize  = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)
	svgStart = regexp.MustCompile(`^<svg\b`)
)

// inlineSVG makes an SVG document an element of the page: without its XML
// declaration and generator comment, and sized by the page (its viewBox
// keeps the proportions). The SVG comes from the plots package, never
// from the user, so it is trusted as markup.
func inlineSVG(doc []byte) template.HTML {
	s := xmlDecl.ReplaceAllString(string(doc), "")
	s = svgSize.ReplaceAllString(s, `<svg`)
	s = svgStart.ReplaceAllString(s, `<svg class="figure" role="img"`)
	return template.HTML(s) // #nosec: drawn by plots, see above
}
