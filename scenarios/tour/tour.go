package tour

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/internal/keypath"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomlpos"
)

// Suffix ends the name of a teacher's tour file in the lab's --dir; the
// directory's other *.toml files are scenarios.
const Suffix = ".tour.toml"

// Tour is a guided tour: its steps, in order.
type Tour struct {
	Name        string `json:"name"` // the file's name without its suffix
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Steps       []Step `json:"steps"`
}

// Step is one stop of a tour: a scenario with overrides, a seed and a B
// side, the cursor at a time, a text to read, and maybe a question.
type Step struct {
	Title    string   `json:"title,omitempty"`
	Scenario string   `json:"scenario"`       // as the lab names it: a library name, or file:NAME.toml
	Sets     []string `json:"sets"`           // run's --set, in order
	Seed     *uint64  `json:"seed,omitempty"` // nil: the scenario's own
	WhatIf   string   `json:"whatif,omitempty"`
	Cursor   int64    `json:"cursor"` // ns of true time
	Text     string   `json:"text"`
	Question string   `json:"question,omitempty"`
	Answer   string   `json:"answer,omitempty"`
}

var (
	topKeys  = []string{"title", "description", "steps"}
	stepKeys = []string{"title", "scenario", "set", "seed", "whatif", "cursor", "text", "question", "answer"}
)

// Resolver finds a step's scenario by the name the tour gives: the base
// and the id the lab knows it by; names lists the valid names for an
// error.
type Resolver struct {
	Base  func(name string) (base *scenarios.Base, id string, err error)
	Names func() []string
}

//go:embed library/*.toml
var libraryFS embed.FS

// LibraryNames lists the library's tours, the debate first.
func LibraryNames() []string {
	entries, err := fs.ReadDir(libraryFS, "library")
	if err != nil {
		panic(err) // the embedded directory always exists
	}
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".toml"))
	}
	// The debate is the README's lecture: it comes first.
	slices.SortStableFunc(out, func(a, b string) int {
		switch {
		case a == "debate":
			return -1
		case b == "debate":
			return 1
		}
		return strings.Compare(a, b)
	})
	return out
}

// Library reads the library's tour name.
func Library(name string, r Resolver) (*Tour, error) {
	data, err := libraryFS.ReadFile("library/" + name + ".toml")
	if err != nil {
		return nil, fmt.Errorf("no tour of the library is called %q (valid: %s)", name, strings.Join(LibraryNames(), ", "))
	}
	return Parse("tours/"+name+".toml", data, r)
}

// Parse reads and checks a tour; file names it in errors. Every problem
// is reported, each a *scenarios.Error with the file, line and key.
func Parse(file string, data []byte, r Resolver) (*Tour, error) {
	raw, pos, err := scenarios.DecodeRaw(file, data)
	if err != nil {
		return nil, err
	}
	p := &parser{file: file, pos: pos}
	name := strings.TrimSuffix(strings.TrimSuffix(baseName(file), Suffix), ".toml")
	t := &Tour{Name: name, Steps: []Step{}}
	p.keys("", raw, topKeys)
	p.str("", raw, "title", &t.Title, true)
	p.str("", raw, "description", &t.Description, false)
	steps, ok := raw["steps"].([]map[string]any)
	switch {
	case raw["steps"] == nil:
		p.errAt("steps", "required: the tour's steps, each a [[steps]] table")
	case !ok:
		p.errAt("steps", "must be an array of tables, [[steps]]")
	case len(steps) == 0:
		p.errAt("steps", "a tour needs at least one step")
	}
	for i, m := range steps {
		t.Steps = append(t.Steps, p.step(keypath.Index("steps", i), m, r))
	}
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *scenarios.Error) int { return a.Line - b.Line })
		errs := make([]error, len(p.errs))
		for i, e := range p.errs {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	return t, nil
}

func baseName(file string) string {
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		return file[i+1:]
	}
	return file
}

type parser struct {
	file string
	pos  *tomlpos.Positions
	errs []*scenarios.Error
}

func (p *parser) errAt(path, format string, a ...any) {
	line, _ := p.pos.Nearest(path)
	p.errs = append(p.errs, &scenarios.Error{File: p.file, Line: line, Key: path, Msg: fmt.Sprintf(format, a...)})
}

// keys refuses the keys of m (the table at path) that are not valid,
// naming the valid ones.
func (p *parser) keys(path string, m map[string]any, valid []string) {
	where := "at the top level"
	if path != "" {
		where = "in a step"
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(valid, k) {
			p.errAt(keypath.Join(path, k), "unknown key (valid %s: %s)", where, strings.Join(valid, ", "))
		}
	}
}

// str reads the string at path.k into dst.
func (p *parser) str(path string, m map[string]any, k string, dst *string, required bool) bool {
	v, ok := m[k]
	at := keypath.Join(path, k)
	if !ok {
		if required {
			p.errAt(at, "required")
		}
		return false
	}
	s, ok := v.(string)
	if !ok {
		p.errAt(at, "must be a string, got %T", v)
		return false
	}
	*dst = strings.TrimSpace(s)
	return true
}

func (p *parser) step(path string, m map[string]any, r Resolver) Step {
	st := Step{Sets: []string{}}
	p.keys(path, m, stepKeys)
	p.str(path, m, "title", &st.Title, false)
	p.str(path, m, "text", &st.Text, true)
	if p.str(path, m, "question", &st.Question, false) {
		if !p.str(path, m, "answer", &st.Answer, false) {
			p.errAt(keypath.Join(path, "question"), "a question needs its answer (answer = \"...\"), which the lab shows after a click")
		}
	} else if p.str(path, m, "answer", &st.Answer, false) {
		p.errAt(keypath.Join(path, "answer"), "an answer needs its question (question = \"...\")")
	}
	if v, ok := m["set"]; ok {
		list, ok := v.([]any)
		if !ok {
			p.errAt(keypath.Join(path, "set"), `must be an array of overrides, like ["faults[0].for=5s"]`)
		}
		for i, x := range list {
			s, ok := x.(string)
			if !ok || !strings.Contains(s, "=") {
				p.errAt(keypath.Index(keypath.Join(path, "set"), i), `must be a string KEY=VALUE, as run's --set takes, got %v`, x)
				continue
			}
			st.Sets = append(st.Sets, s)
		}
	}
	if v, ok := m["seed"]; ok {
		n, ok := v.(int64)
		if !ok || n < 0 {
			p.errAt(keypath.Join(path, "seed"), "must be a non-negative integer, got %v", v)
		} else {
			seed := uint64(n)
			st.Seed = &seed
		}
	}
	if p.str(path, m, "whatif", &st.WhatIf, false) {
		if rs, err := scenarios.ParseRemedies(st.WhatIf); err != nil || len(rs) != 1 {
			names := []string{}
			for _, r := range scenarios.Remedies {
				names = append(names, r.Name)
			}
			p.errAt(keypath.Join(path, "whatif"), "one remedy for the B side (valid: %s), got %q", strings.Join(names, ", "), st.WhatIf)
		}
	}
	var cursor string
	hasCursor := p.str(path, m, "cursor", &cursor, true)
	var d time.Duration
	if hasCursor {
		var err error
		if d, err = time.ParseDuration(cursor); err != nil || d < 0 {
			p.errAt(keypath.Join(path, "cursor"), "a time into the run with a unit, like \"13s\", got %q", cursor)
			hasCursor = false
		}
		st.Cursor = int64(d)
	}
	var name string
	if !p.str(path, m, "scenario", &name, true) {
		return st
	}
	b, id, err := r.Base(name)
	if err != nil {
		p.errAt(keypath.Join(path, "scenario"), "no scenario %q (valid: %s)", name, strings.Join(r.Names(), ", "))
		return st
	}
	st.Scenario = id
	sc, _, err := b.ApplySets(st.Sets)
	if err != nil {
		for _, e := range scenarios.Errors(err) {
			p.errAt(keypath.Join(path, "set"), "%s", e.Error())
		}
		if len(scenarios.Errors(err)) == 0 {
			p.errAt(keypath.Join(path, "set"), "%v", err)
		}
		return st
	}
	if hasCursor && d > sc.Config.Duration {
		p.errAt(keypath.Join(path, "cursor"), "%v is after the end of %s's run (%v)", d, name, sc.Config.Duration)
	}
	return st
}
