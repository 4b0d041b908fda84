package explore

import (
	"regexp"
	"strings"
	"testing"

	"github.com/redlocksim/redlocksim/scenarios"
)

// A written file is a schedule the base's [debate] does not argue: it
// loads without the debate, and is otherwise what the same base without
// a [debate] writes, byte for byte, through Render and RenderWith alike.
func TestRenderDropsTheBasesDebate(t *testing.T) {
	e, opt := explorer(t, "baseline", nil, Options{Kinds: []string{"pause"}})
	if e.sc.Debate.Claim == "" {
		t.Fatal("the base baseline has no [debate] to drop")
	}
	text := string(e.base.TOML())
	debate := regexp.MustCompile(`(?s)\n\[debate\]\n.*?\n\n`)
	if !debate.MatchString(text) {
		t.Fatalf("no [debate] table in the base's text:\n%s", text)
	}
	plain, err := scenarios.NewBase("baseline.toml", []byte(debate.ReplaceAllString(text, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	opt.Base = plain
	without, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	if without.sc.Debate.Claim != "" {
		t.Fatal("the stripped base still argues")
	}
	s := e.DrawRun(opt.Seed, 0)
	if len(s) == 0 {
		t.Fatal("drew an empty schedule")
	}
	for _, c := range []struct {
		name   string
		render func(*Explorer) ([]byte, error)
	}{
		{"Render", func(x *Explorer) ([]byte, error) { return x.Render("drawn", s, "test", 0) }},
		{"RenderWith", func(x *Explorer) ([]byte, error) {
			return x.RenderWith("drawn", s, "found on baseline by a test", "A lesson.\n")
		}},
	} {
		data, err := c.render(e)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Parse("drawn.toml", data)
		if err != nil {
			t.Fatalf("%s: the written file does not load: %v\n%s", c.name, err, data)
		}
		if sc.Debate.Claim != "" || strings.Contains(string(data), "[debate]") {
			t.Errorf("%s: the written file keeps the base's debate:\n%s", c.name, data)
		}
		want, err := c.render(without)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != string(want) {
			t.Errorf("%s: the written file differs from the one without a [debate] base\n got:\n%s\nwant:\n%s", c.name, data, want)
		}
	}
}

// A description that does not name the base gets its name, since nothing
// else in the file says where the schedule came from.
func TestRenderWithNamesTheBase(t *testing.T) {
	e, opt := explorer(t, "baseline", nil, Options{Kinds: []string{"pause"}})
	s := e.DrawRun(opt.Seed, 0)
	for desc, want := range map[string]string{
		"a disagreement":             "a disagreement (a schedule on baseline)",
		"a disagreement on baseline": "a disagreement on baseline",
	} {
		data, err := e.RenderWith("drawn", s, desc, "A lesson.\n")
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Parse("drawn.toml", data)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Description != want {
			t.Errorf("description %q, want %q", sc.Description, want)
		}
	}
}
