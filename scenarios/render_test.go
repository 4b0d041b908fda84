package scenarios

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
)

// Every library scenario's faults, written back through FaultValue and
// Render, load to the same configuration: the explorer's files replay what
// it ran.
func TestRenderFaultsRoundTrip(t *testing.T) {
	for _, name := range LibraryNames() {
		b, err := LoadBase(name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := b.Apply()
		if err != nil {
			t.Fatal(err)
		}
		got := renderFaults(t, b, name+".toml", want.Config.Faults, "explore", Override{Key: "description", Value: "rewritten", File: "explore"})
		if got.Description != "rewritten" {
			t.Errorf("%s: description %q, want %q", name, got.Description, "rewritten")
		}
		if !reflect.DeepEqual(got.Debate, want.Debate) {
			t.Errorf("%s: the rendered file argues %+v, want %+v", name, got.Debate, want.Debate)
		}
		if !reflect.DeepEqual(got.Config, want.Config) {
			t.Errorf("%s: the rendered file loads to a different configuration\n got faults %+v\nwant faults %+v", name, got.Config.Faults, want.Config.Faults)
		}
	}
}

// renderFaults renders b with faults as its schedule, overridden from
// file, and the extra overrides; it requires the rendered file to load as
// name and returns what it loads to.
func renderFaults(t *testing.T, b *Base, name string, faults []model.Fault, file string, extra ...Override) *Scenario {
	t.Helper()
	o, err := FaultsOverride(faults, file)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	data, err := b.Render(append([]Override{o}, extra...)...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := Parse(name, data)
	if err != nil {
		t.Fatalf("%s: the rendered file does not load: %v\n%s", name, err, data)
	}
	return got
}

// A fault's random time and length (at_spread, for_spread) load, render
// and load back to the same fault.
func TestRenderRandomFaultTimes(t *testing.T) {
	src := base + "[[faults]]\nat = \"1s\"\nat_spread = \"4s\"\nkind = \"crash\"\ntarget = \"n1\"\nfor = \"1s\"\nfor_spread = \"500ms\"\n"
	want, err := Parse("random.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if f := want.Config.Faults[0]; f.AtSpread != 4*time.Second || f.ForSpread != 500*time.Millisecond {
		t.Fatalf("loaded %+v", f)
	}
	v, err := FaultValue(want.Config.Faults[0])
	if err != nil {
		t.Fatal(err)
	}
	if v["at_spread"] != "4s" || v["for_spread"] != "500ms" {
		t.Errorf("rendered %v", v)
	}
	b, err := NewBase("random.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := renderFaults(t, b, "random.toml", want.Config.Faults, "test")
	if !reflect.DeepEqual(got.Config.Faults, want.Config.Faults) {
		t.Errorf("round trip: %+v, want %+v", got.Config.Faults, want.Config.Faults)
	}
}

// An empty schedule renders and loads as a scenario without faults; a bad
// override is Apply's error, and nothing is written.
func TestRenderEmptyFaultsAndBadOverride(t *testing.T) {
	b, err := LoadBase("clock-jump")
	if err != nil {
		t.Fatal(err)
	}
	s := renderFaults(t, b, "x.toml", nil, "explore")
	if len(s.Config.Faults) != 0 {
		t.Errorf("got %d faults, want none", len(s.Config.Faults))
	}
	if _, err := b.Render(Override{Key: "lock.ttl", Value: "ten", File: "--set"}); err == nil {
		t.Error("Render accepted lock.ttl = \"ten\"")
	}
	if _, err := FaultValue(model.Fault{Kind: 0}); err == nil {
		t.Error("FaultValue accepted the invalid kind 0")
	}
}

// TestEveryFaultKindHasItsFileForm: the loader speaks of every key a kind
// needs, and the README's fault table lists every kind with exactly its
// keys, the needed ones in bold.
func TestEveryFaultKindHasItsFileForm(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, readme, ok := strings.Cut(string(raw), "## `[[faults]]`")
	require.True(t, ok, "README.md has no [[faults]] section")
	readme, _, _ = strings.Cut(readme, "\n## ")
	for _, name := range model.FaultKinds() {
		k, err := model.ParseFaultKind(name)
		require.NoError(t, err)
		takes, needs := faultUses(k)
		var want []string
		for _, key := range takes {
			if slices.Contains(needs, key) {
				if faultNeeds[key] == "" {
					t.Errorf("%s needs %s, and faultNeeds does not say what %s is", name, key, key)
				}
				key = "**" + key + "**"
			}
			want = append(want, key)
		}
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(name) + "` \\|([^|]*)\\|").FindStringSubmatch(readme)
		if row == nil {
			t.Errorf("README.md's fault table has no row for %s", name)
			continue
		}
		cell := regexp.MustCompile(`\s*\([^)]*\)`).ReplaceAllString(row[1], "")
		var got []string
		for _, key := range strings.Split(cell, ",") {
			if key = strings.TrimSpace(key); key != "" {
				got = append(got, key)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("README.md lists %s's keys as %q; the model says %q", name, got, want)
		}
	}
}

// A deletion drops its key and nothing else: the file without [debate]
// is the base's text less that table, loads, and argues nothing; deleting
// a key the file does not have changes nothing; a key of a table goes
// alone, and what it leaves is judged by the loader.
func TestRenderDelete(t *testing.T) {
	b, err := LoadBase("baseline")
	require.NoError(t, err)
	full := string(b.TOML())
	debate := regexp.MustCompile(`(?s)\n\[debate\]\n.*?\n\n`)
	require.Regexp(t, debate, full)

	data, err := b.Render(Delete("debate", "explore"))
	require.NoError(t, err)
	require.Equal(t, debate.ReplaceAllString(full, "\n"), string(data))
	s, err := Parse("baseline.toml", data)
	require.NoError(t, err)
	require.Empty(t, s.Debate.Claim)
	want, err := b.Apply()
	require.NoError(t, err)
	require.Equal(t, want.Config, s.Config)
	require.Equal(t, want.Lesson, s.Lesson)

	plain, err := NewBase("plain.toml", data)
	require.NoError(t, err)
	again, err := plain.Render(Delete("debate", "explore"), Delete("lock.extend", "explore"))
	require.NoError(t, err)
	require.Equal(t, string(data), string(again), "deleting keys the file lacks changed it")

	noAnswer, err := b.Render(Delete("debate.answer", "explore"), Delete("debate.answer_by", "explore"))
	require.NoError(t, err)
	s, err = Parse("baseline.toml", noAnswer)
	require.NoError(t, err)
	require.Equal(t, want.Debate.Claim, s.Debate.Claim)
	require.Empty(t, s.Debate.Answer)

	// A deletion that leaves a bad file is blamed on the deletion.
	_, err = b.Render(Delete("debate.claim", "explore"))
	require.ErrorContains(t, err, "explore: debate.claim: ")
	require.Equal(t, "delete debate", Delete("debate", "x").String())
	require.Equal(t, "delete debate", Delete("debate", "x").Arg())
}

// A deletion of a key the scenario format does not have, or of something
// a deletion cannot name, is an error at the deletion, and nothing is
// written.
func TestRenderDeleteErrors(t *testing.T) {
	b, err := LoadBase("baseline")
	require.NoError(t, err)
	for key, msg := range map[string]string{
		"debat":                       `explore: debat: cannot delete: unknown key; did you mean "debate"? (valid at the top level: name, description, lesson,`,
		"bogus":                       `explore: bogus: cannot delete: unknown key (valid at the top level: name, description,`,
		"debate.clam":                 `explore: debate.clam: cannot delete: unknown key; did you mean "claim"? (valid in debate: claim, by, answer, answer_by)`,
		"lock.x":                      `explore: lock.x: cannot delete: unknown key (valid in lock: preset, algorithm,`,
		"name.x":                      `explore: name.x: cannot delete: name is not a table; delete name itself`,
		"faults.at":                   `explore: faults.at: cannot delete: faults is not a table; delete faults itself`,
		"faults[0]":                   `explore: faults[0]: cannot delete: name a top-level key or a key of a top-level table, like debate or debate.answer`,
		"nodes.clock.rate_spread_ppm": `cannot delete: name a top-level key or a key of a top-level table`,
		"lock..ttl":                   `explore: lock..ttl: cannot delete: "lock..ttl" is not a key path`,
	} {
		data, err := b.Render(Delete(key, "explore"))
		if err == nil {
			t.Errorf("deleting %s: no error, wrote\n%s", key, data)
			continue
		}
		require.ErrorContains(t, err, msg, "deleting %s", key)
		require.Nil(t, data)
	}
	// A table's key where the file has a value that is not a table.
	odd, err := NewBase("odd.toml", []byte("duration = \"30s\"\nlock = 3\n"))
	require.NoError(t, err)
	_, err = odd.Render(Delete("lock.ttl", "explore"))
	require.ErrorContains(t, err, "explore: lock.ttl: cannot delete: lock is the integer 3, not a table")
}
