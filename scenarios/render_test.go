package scenarios

import (
	"reflect"
	"testing"

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
