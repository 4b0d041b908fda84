package proc

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"testing"
)

// TestRemoveStaleRemovesOnlyTheDead: a directory whose owner file names
// this process stays; one whose owner file names this pid with another
// start time (the pid reused by a new process) goes, with its owner file.
func TestRemoveStaleRemovesOnlyTheDead(t *testing.T) {
	live, err := os.MkdirTemp("", "redlocksim-staletest-live-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(live); os.Remove(live + ownerSuffix) })
	if err := markOwner(live); err != nil {
		t.Fatal(err)
	}
	dead, err := os.MkdirTemp("", "redlocksim-staletest-dead-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dead); os.Remove(dead + ownerSuffix) })
	if err := os.WriteFile(dead+"/appendonly.aof", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dead+ownerSuffix, []byte(strconv.Itoa(os.Getpid())+" 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	removed, err := RemoveStale()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, dead) || slices.Contains(removed, live) {
		t.Errorf("RemoveStale removed %v; want %s among them and not %s", removed, dead, live)
	}
	for _, p := range []string{dead, dead + ownerSuffix} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v, want it removed", p, err)
		}
	}
	for _, p := range []string{live, live + ownerSuffix} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s of a live owner: %v, want it kept", p, err)
		}
	}
}

func TestGroupRemovesItsOwnerFiles(t *testing.T) {
	g := NewGroup()
	d, err := g.TempDir("redlocksim-staletest-group-*")
	if err != nil {
		t.Fatal(err)
	}
	kept, err := g.TempDir("redlocksim-staletest-kept-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(kept) })
	if _, err := os.Stat(d + ownerSuffix); err != nil {
		t.Fatalf("TempDir wrote no owner file: %v", err)
	}
	g.Keep(kept)
	ran := false
	if err := g.Defer(func() error { ran = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if !ran {
		t.Error("Close did not run the deferred call")
	}
	for _, p := range []string{d, d + ownerSuffix, kept + ownerSuffix} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after Close: %v, want it removed", p, err)
		}
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("a kept directory after Close: %v, want it kept", err)
	}
}

func TestUnescapeMount(t *testing.T) {
	if got := unescapeMount(`/tmp/a\040b\134c`); got != `/tmp/a b\c` {
		t.Errorf("unescapeMount = %q", got)
	}
}
