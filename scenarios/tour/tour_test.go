package tour

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/scenarios"
)

// library resolves the library's scenarios only.
var library = Resolver{
	Base: func(name string) (*scenarios.Base, string, error) {
		if !slices.Contains(scenarios.LibraryNames(), name) {
			return nil, "", fmt.Errorf("no scenario %q", name)
		}
		b, err := scenarios.LoadBase(name)
		return b, name, err
	},
	Names: scenarios.LibraryNames,
}

// The library's debate tour is the README's lecture: five steps on
// gc-pause, clock-jump and restart-no-persistence, questions with their
// answers, every override and cursor checked by the loader.
func TestLibraryDebateTour(t *testing.T) {
	assert.Equal(t, "debate", LibraryNames()[0])
	tr, err := Library("debate", library)
	require.NoError(t, err)
	require.Len(t, tr.Steps, 5)
	var names []string
	questions := 0
	for _, st := range tr.Steps {
		names = append(names, st.Scenario)
		assert.NotEmpty(t, st.Text)
		if st.Question != "" {
			questions++
			assert.NotEmpty(t, st.Answer)
		}
	}
	assert.Equal(t, []string{"gc-pause", "gc-pause", "gc-pause", "clock-jump", "restart-no-persistence"}, names)
	assert.Equal(t, []string{"faults[0].for=5s"}, tr.Steps[1].Sets)
	assert.Equal(t, "fencing", tr.Steps[2].WhatIf)
	assert.Equal(t, int64(13e9), tr.Steps[0].Cursor)
	assert.GreaterOrEqual(t, questions, 2)
}

// A malformed tour is refused whole, each problem with its file, line
// and key, and the valid names where there are some.
func TestMalformedTourIsRefusedWithItsLines(t *testing.T) {
	src := `title = "t"
colour = "red"

[[steps]]
scenario = "gc-paws"
cursor = "1s"
text = "a"

[[steps]]
scenario = "gc-pause"
set = ["faults[0].for=5"]
cursor = "1s"
text = "b"

[[steps]]
scenario = "gc-pause"
cursor = "99s"
text = "c"
question = "why?"
whatif = "magic"
sed = 1
`
	_, err := Parse("mine.tour.toml", []byte(src), library)
	require.Error(t, err)
	var lines []string
	for _, e := range scenarios.Errors(err) {
		lines = append(lines, e.Error())
	}
	want := []string{
		"mine.tour.toml:2: colour: unknown key (valid at the top level: title, description, steps)",
		"mine.tour.toml:5: steps[0].scenario: no scenario \"gc-paws\" (valid: ",
		"mine.tour.toml:11: steps[1].set: ",
		"mine.tour.toml:17: steps[2].cursor: 1m39s is after the end of gc-pause's run (30s)",
		"mine.tour.toml:19: steps[2].question: a question needs its answer",
		"mine.tour.toml:20: steps[2].whatif: one remedy for the B side (valid: fencing, cas,",
		"mine.tour.toml:21: steps[2].sed: unknown key (valid in a step: title, scenario, set, seed, whatif, cursor, text, question, answer)",
	}
	require.Len(t, lines, len(want), strings.Join(lines, "\n"))
	for i := range want {
		assert.True(t, strings.HasPrefix(lines[i], want[i]), "got %q\nwant a line starting %q", lines[i], want[i])
	}
	assert.Contains(t, lines[1], "gc-pause")
	assert.Contains(t, lines[2], "a duration is a string with a unit")

	// An override naming a key the scenario lacks: its line, and the
	// valid keys.
	_, err = Parse("key.tour.toml", []byte("title = \"t\"\n\n[[steps]]\nscenario = \"gc-pause\"\nset = [\"lock.ttx=5s\"]\ncursor = \"1s\"\ntext = \"a\"\n"), library)
	assert.ErrorContains(t, err, `key.tour.toml:5: steps[0].set: --set: lock.ttx: unknown key; did you mean "ttl"? (valid in lock: preset, algorithm, key, ttl, `)

	_, err = Parse("empty.tour.toml", []byte("title = \"t\"\n"), library)
	assert.EqualError(t, err, "empty.tour.toml: steps: required: the tour's steps, each a [[steps]] table")
	_, err = Parse("bad.tour.toml", []byte("title = \n"), library)
	assert.ErrorContains(t, err, "bad.tour.toml:1")
}
