package lab

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/redlocksim/redlocksim/scenarios"
)

// filePrefix marks a scenario of the directory: "file:NAME.toml"; any
// other id is a library name.
const filePrefix = "file:"

// entry is one scenario of the picker.
type entry struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Source      string      `json:"source"` // "library" or "dir"
	Description string      `json:"description,omitempty"`
	Lesson      string      `json:"lesson,omitempty"`
	Debate      *debateJSON `json:"debate,omitempty"`
	Expect      expectJSON  `json:"expect"`
	Seed        uint64      `json:"seed"`
	// Error is the loader's message for a file that does not load; such
	// a scenario is listed but cannot be opened.
	Error    string        `json:"error,omitempty"`
	Problems []problemJSON `json:"problems,omitempty"`
}

type debateJSON struct {
	Claim    string   `json:"claim"`
	By       []string `json:"by"`
	Answer   string   `json:"answer,omitempty"`
	AnswerBy []string `json:"answer_by,omitempty"`
}

type expectJSON struct {
	Mutex    string `json:"mutex,omitempty"`
	Resource string `json:"resource,omitempty"`
}

type catalogJSON struct {
	Scenarios []entry `json:"scenarios"`
	Dir       string  `json:"dir,omitempty"`
	DirError  string  `json:"dir_error,omitempty"`
}

// catalog lists the library, then the directory's files, read afresh so
// that a teacher's edit shows on reload.
func (s *Server) catalog() catalogJSON {
	var out catalogJSON
	for _, n := range scenarios.LibraryNames() {
		out.Scenarios = append(out.Scenarios, s.entry(n))
	}
	if s.root == nil {
		return out
	}
	out.Dir = s.opts.Dir
	f, err := s.root.Open(".")
	if err != nil {
		out.DirError = err.Error()
		return out
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		out.DirError = err.Error()
	}
	slices.Sort(names)
	for _, n := range names {
		if strings.HasSuffix(n, ".toml") {
			out.Scenarios = append(out.Scenarios, s.entry(filePrefix+n))
		}
	}
	return out
}

// entry describes the scenario id; one that does not load carries its
// loader error instead.
func (s *Server) entry(id string) entry {
	e := entry{ID: id, Name: id, Source: "library"}
	if file, ok := strings.CutPrefix(id, filePrefix); ok {
		e.Name, e.Source = strings.TrimSuffix(file, ".toml"), "dir"
	}
	b, err := s.base(id)
	var sc *scenarios.Scenario
	if err == nil {
		sc, err = b.Apply()
	}
	if err != nil {
		e.Error = err.Error()
		for _, p := range scenarios.Errors(err) {
			e.Problems = append(e.Problems, problemJSON{Key: p.Key, Text: p.Error()})
		}
		return e
	}
	e.Name, e.Description, e.Lesson, e.Seed = sc.Name, sc.Description, strings.TrimSpace(sc.Lesson), sc.Seed
	e.Expect = expectJSON{Mutex: sc.Expect.Mutex, Resource: sc.Expect.Resource}
	if d := sc.Debate; d.Claim != "" {
		e.Debate = &debateJSON{Claim: d.Claim, By: d.By, Answer: d.Answer, AnswerBy: d.AnswerBy}
	}
	return e
}

// base reads the scenario id undecoded: a library name, or a file of the
// directory, whose errors name its path.
func (s *Server) base(id string) (*scenarios.Base, error) {
	file, ok := strings.CutPrefix(id, filePrefix)
	if !ok {
		if !slices.Contains(scenarios.LibraryNames(), id) {
			return nil, fmt.Errorf("no built-in scenario is called %q", id)
		}
		return scenarios.LoadBase(id)
	}
	data, err := s.readDir(file)
	if err != nil {
		return nil, err
	}
	return scenarios.NewBase(filepath.Join(s.opts.Dir, file), data)
}
