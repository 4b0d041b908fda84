package network

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/redlocksim/redlocksim/sim"
)

// fiveNodes returns a network with endpoints n1..n5 (ids 0..4).
func fiveNodes() (*Net[int], []Endpoint) {
	n := New(sim.New(1), func(from, to Endpoint, m int) {})
	var es []Endpoint
	for i := 1; i <= 5; i++ {
		es = append(es, n.AddEndpoint(fmt.Sprintf("n%d", i)))
	}
	return n, es
}

// matrix renders Reachable as rows of 0/1, row = sender, column = receiver.
func matrix(n *Net[int]) []string {
	var rows []string
	for _, from := range n.Endpoints() {
		var b strings.Builder
		for _, to := range n.Endpoints() {
			if n.Reachable(from, to) {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		rows = append(rows, b.String())
	}
	return rows
}

func TestPartitionMatrices(t *testing.T) {
	_, es := fiveNodes()
	n1, n2, n3, n4, n5 := es[0], es[1], es[2], es[3], es[4]
	tests := []struct {
		name   string
		g      Grudge
		matrix []string // row = from, column = to
		text   string
	}{
		{"isolate n3", Isolate(es, n3),
			[]string{"11011", "11011", "00100", "11011", "11011"},
			"n1<-n3 n2<-n3 n3<-n1,n2,n4,n5 n4<-n3 n5<-n3"},
		{"majority-minority", MajorityMinority(es),
			[]string{"11100", "11100", "11100", "00011", "00011"},
			"n1<-n4,n5 n2<-n4,n5 n3<-n4,n5 n4<-n1,n2,n3 n5<-n1,n2,n3"},
		{"bridge", Bridge(es),
			[]string{"11100", "11100", "11111", "00111", "00111"},
			"n1<-n4,n5 n2<-n4,n5 n4<-n1,n2 n5<-n1,n2"},
		{"majorities ring", MajoritiesRing(es),
			[]string{"11001", "11100", "01110", "00111", "10011"},
			"n1<-n3,n4 n2<-n4,n5 n3<-n1,n5 n4<-n1,n2 n5<-n2,n3"},
		{"groups", Groups([][]Endpoint{{n1, n4}, {n2, n3}}),
			[]string{"10011", "01101", "01101", "10011", "11111"},
			"n1<-n2,n3 n2<-n1,n4 n3<-n1,n4 n4<-n2,n3"},
		{"one-way cut", Cut([]Endpoint{n1}, []Endpoint{n2, n3}),
			[]string{"10011", "11111", "11111", "11111", "11111"},
			"n2<-n1 n3<-n1"},
		{"union", Union(Cut([]Endpoint{n5}, []Endpoint{n1}), Isolate(es, n2)),
			[]string{"10111", "01000", "10111", "10111", "00111"},
			"n1<-n2,n5 n2<-n1,n3,n4,n5 n3<-n2 n4<-n2 n5<-n2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _ := fiveNodes()
			n.Apply(tt.g)
			if got := matrix(n); !slices.Equal(got, tt.matrix) {
				t.Errorf("reachability\ngot  %v\nwant %v", got, tt.matrix)
			}
			if got := n.Format(tt.g); got != tt.text {
				t.Errorf("Format = %q, want %q", got, tt.text)
			}
			n.Heal()
			if got, want := matrix(n), slices.Repeat([]string{"11111"}, 5); !slices.Equal(got, want) {
				t.Errorf("after Heal got %v, want all reachable", got)
			}
		})
	}
}

func TestApplyAddsToCutsInForce(t *testing.T) {
	n, es := fiveNodes()
	n.Apply(Cut(es[:1], es[1:2]))
	n.Apply(Cut(es[3:4], es[4:5]))
	want := []string{"10111", "11111", "11111", "11110", "11111"}
	if got := matrix(n); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// ids is 0..n-1 as endpoints.
func ids(n int) []Endpoint {
	es := make([]Endpoint, n)
	for i := range es {
		es[i] = Endpoint(i)
	}
	return es
}

// views maps each node to the nodes it hears under g, as sorted lists.
func views(nodes []Endpoint, g Grudge) [][]Endpoint {
	out := make([][]Endpoint, len(nodes))
	for i, a := range nodes {
		for _, b := range nodes {
			if !slices.Contains(g, Link{b, a}) {
				out[i] = append(out[i], b)
			}
		}
	}
	return out
}

// TestMajoritiesRingProperties checks Jepsen's definition on other sizes:
// every node sees a strict majority, no two see the same one, links are
// symmetric.
func TestMajoritiesRingProperties(t *testing.T) {
	for size := 4; size <= 11; size++ {
		nodes := ids(size)
		g := MajoritiesRing(nodes)
		vs := views(nodes, g)
		for i, v := range vs {
			if len(v) <= size/2 {
				t.Errorf("n=%d: node %d sees %v, not a majority", size, i, v)
			}
			for j := range i {
				if slices.Equal(v, vs[j]) {
					t.Errorf("n=%d: nodes %d and %d both see %v", size, j, i, v)
				}
			}
		}
		for _, l := range g {
			if !slices.Contains(g, Link{l.To, l.From}) {
				t.Errorf("n=%d: cut %v is one-way", size, l)
			}
		}
	}
	if g := MajoritiesRing(ids(3)); len(g) != 0 {
		t.Errorf("MajoritiesRing of 3 = %v, want empty", g)
	}
}

func TestMajorityMinoritySides(t *testing.T) {
	tests := []struct {
		size int
		want string
	}{
		{1, "none"},
		{2, "none"}, // a strict majority of two is both
		{3, "0<-2 1<-2 2<-0,1"},
		{4, "0<-3 1<-3 2<-3 3<-0,1,2"},
		{6, "0<-4,5 1<-4,5 2<-4,5 3<-4,5 4<-0,1,2,3 5<-0,1,2,3"},
	}
	for _, tt := range tests {
		if got := MajorityMinority(ids(tt.size)).String(); got != tt.want {
			t.Errorf("MajorityMinority(%d) = %q, want %q", tt.size, got, tt.want)
		}
	}
	if got, want := Bridge(ids(4)).String(), "0<-3 1<-3 3<-0,1"; got != want {
		t.Errorf("Bridge(4) = %q, want %q (bridge is node 2)", got, want)
	}
}

func TestGrudgeStringNormalizes(t *testing.T) {
	g := Grudge{{2, 1}, {0, 1}, {2, 1}, {3, 3}, {1, 0}}
	if got, want := g.String(), "0<-1 1<-0,2"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestPartitionKindNames(t *testing.T) {
	checkKindNames(t, PartitionIsolate, PartitionGroups, ParsePartitionKind, "halves",
		`unknown partition kind "halves"; want one of isolate, majority-minority, bridge, ring, groups`)
}
