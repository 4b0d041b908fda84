package field

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestPathString(t *testing.T) {
	if got := Of("Nodes", 2, "Clock", "Steps", 1, "At").String(); got != "Nodes[2].Clock.Steps[1].At" {
		t.Errorf("got %s", got)
	}
	if got := Of("Groups", 1, 0).String(); got != "Groups[1][0]" {
		t.Errorf("got %s", got)
	}
}

// TestList: a part's problems move under the caller's path and take its
// subject unless they name their own; a plain error becomes one at the
// path; a join is flattened in order.
func TestList(t *testing.T) {
	inner := errors.Join(
		Errorf(Of("FsyncEvery"), "must be positive"),
		&Error{Path: Of("ReplicaOf"), Subject: "n9", Err: errors.New("no node")},
		errors.New("plain"),
	)
	got := List(Of("Nodes", 1, "Redis"), "n2", fmt.Errorf("wrapped: %w", Errorf(Of("X"), "lost")))
	if len(got) != 1 || got[0].Path.String() != "Nodes[1].Redis.X" {
		t.Errorf("a wrapped *Error: got %v", got)
	}
	got = List(Of("Nodes", 1, "Redis"), "n2", inner)
	var lines []string
	for _, e := range got {
		lines = append(lines, e.Error())
	}
	want := "Nodes[1].Redis.FsyncEvery (n2): must be positive\nNodes[1].Redis.ReplicaOf (n9): no node\nNodes[1].Redis (n2): plain"
	if strings.Join(lines, "\n") != want {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), want)
	}
	if List(nil, "", nil) != nil {
		t.Error("no error, no problems")
	}
}

func TestNames(t *testing.T) {
	if got := Names(nil); got != "none" {
		t.Errorf("got %q", got)
	}
	var many []string
	for i := range 13 {
		many = append(many, fmt.Sprint("n", i))
	}
	if got := Names(many); !strings.HasSuffix(got, "n11, … (13 in all)") {
		t.Errorf("got %q", got)
	}
}
