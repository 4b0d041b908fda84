package scenarios

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

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
		o, err := FaultsOverride(want.Config.Faults, "explore")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := b.Render(o, Override{Key: "description", Value: "rewritten", File: "explore"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := Parse(name+".toml", data)
		if err != nil {
			t.Fatalf("%s: the rendered file does not load: %v\n%s", name, err, data)
		}
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

// An empty schedule renders and loads as a scenario without faults; a bad
// override is Apply's error, and nothing is written.
func TestRenderEmptyFaultsAndBadOverride(t *testing.T) {
	b, err := LoadBase("clock-jump")
	if err != nil {
		t.Fatal(err)
	}
	o, err := FaultsOverride(nil, "explore")
	if err != nil {
		t.Fatal(err)
	}
	data, err := b.Render(o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("x.toml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
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
