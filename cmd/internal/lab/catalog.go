package lab

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/redlocksim/redlocksim/scenarios"
	"github.com/redlocksim/redlocksim/scenarios/tour"
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
	// Challenge, for a scenario of the library that has one, is the
	// challenge mode's goal and par.
	Challenge *challengeJSON `json:"challenge,omitempty"`
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
	Scenarios []entry    `json:"scenarios"`
	Tours     []tourJSON `json:"tours"`
	Dir       string     `json:"dir,omitempty"`
	DirError  string     `json:"dir_error,omitempty"`
}

// tourJSON is a tour of the picker: the library's, then the directory's
// *.tour.toml files; one that does not load carries its loader error.
type tourJSON struct {
	ID     string     `json:"id"`
	Source string     `json:"source"` // "library" or "dir"
	Tour   *tour.Tour `json:"tour,omitempty"`
	Error  string     `json:"error,omitempty"`
}

// catalog lists the library, then the directory's files, read afresh so
// that a teacher's edit shows on reload.
func (s *Server) catalog() catalogJSON {
	out := catalogJSON{Tours: []tourJSON{}}
	for _, n := range scenarios.LibraryNames() {
		out.Scenarios = append(out.Scenarios, s.entry(n))
	}
	for _, n := range tour.LibraryNames() {
		t, err := tour.Library(n, s.tourResolver())
		out.Tours = append(out.Tours, tourEntry(n, "library", t, err))
	}
	if s.root == nil {
		return out
	}
	out.Dir = s.opts.Dir
	names, err := s.dirNames()
	if err != nil {
		out.DirError = err.Error()
	}
	for _, n := range names {
		switch {
		case strings.HasSuffix(n, tour.Suffix):
			t, err := s.dirTour(n)
			out.Tours = append(out.Tours, tourEntry(filePrefix+n, "dir", t, err))
		case strings.HasSuffix(n, ".toml"):
			out.Scenarios = append(out.Scenarios, s.entry(filePrefix+n))
		}
	}
	return out
}

func tourEntry(id, source string, t *tour.Tour, err error) tourJSON {
	e := tourJSON{ID: id, Source: source, Tour: t}
	if err != nil {
		e.Error = err.Error()
	}
	return e
}

// dirTour reads a tour of the directory, its errors naming its path.
func (s *Server) dirTour(name string) (*tour.Tour, error) {
	data, err := s.readDir(name)
	if err != nil {
		return nil, err
	}
	return tour.Parse(filepath.Join(s.opts.Dir, name), data, s.tourResolver())
}

// CheckTour reads a tour file as the lab would list it, its scenarios
// found in the library and the directory (redlocksim lab --check-tour).
func (s *Server) CheckTour(file string, data []byte) (*tour.Tour, error) {
	return tour.Parse(file, data, s.tourResolver())
}

// tourResolver finds a tour's scenario: a library name, or a scenario
// file of the directory by its name without .toml.
func (s *Server) tourResolver() tour.Resolver {
	return tour.Resolver{
		Base: func(name string) (*scenarios.Base, string, error) {
			id := name
			if !slices.Contains(scenarios.LibraryNames(), name) {
				id = filePrefix + name + ".toml"
			}
			if strings.HasSuffix(name, tour.Suffix) || strings.ContainsAny(name, `/\`) {
				return nil, "", fmt.Errorf("no scenario %q", name)
			}
			b, err := s.base(id)
			return b, id, err
		},
		Names: func() []string {
			names := scenarios.LibraryNames()
			for _, e := range s.dirScenarios() {
				names = append(names, strings.TrimSuffix(e, ".toml"))
			}
			return names
		},
	}
}

// dirNames are the names in the directory, sorted, read afresh so that
// a teacher's edit shows on reload.
func (s *Server) dirNames() ([]string, error) {
	f, err := s.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}

// dirScenarios are the scenario files of the directory, sorted.
func (s *Server) dirScenarios() []string {
	if s.root == nil {
		return nil
	}
	names, _ := s.dirNames()
	return slices.DeleteFunc(names, func(n string) bool { return !strings.HasSuffix(n, ".toml") || strings.HasSuffix(n, tour.Suffix) })
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
	if c, ok := challenges[id]; ok {
		e.Challenge = &c
	}
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
