package network

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Link is a directed pair of endpoints: the path of messages From -> To.
type Link struct {
	From, To Endpoint
}

// Grudge is a set of directed cuts: a message on any listed link is dropped.
// It is Jepsen's grudge (each node mapped to the nodes it will not receive
// from) flattened into a slice, so that it has one order and no map.
//
// The constructors below are pure functions of their arguments and return
// normalized grudges: sorted by (To, From), without duplicates or self-links
// (a process always hears itself).
type Grudge []Link

// Groups cuts every pair of endpoints that share no group, both ways: a
// message from a to b passes iff some group holds both. Endpoints in no group
// are untouched, and an endpoint in two groups bridges them.
func Groups(groups [][]Endpoint) Grudge {
	var members []Endpoint
	for _, g := range groups {
		for _, e := range g {
			if !slices.Contains(members, e) {
				members = append(members, e)
			}
		}
	}
	together := func(a, b Endpoint) bool {
		for _, g := range groups {
			if slices.Contains(g, a) && slices.Contains(g, b) {
				return true
			}
		}
		return false
	}
	var g Grudge
	for _, a := range members {
		for _, b := range members {
			if a != b && !together(a, b) {
				g = append(g, Link{a, b})
			}
		}
	}
	return g.normalize()
}

// Isolate cuts x off from every other endpoint of nodes, both ways.
func Isolate(nodes []Endpoint, x Endpoint) Grudge {
	rest := slices.DeleteFunc(slices.Clone(nodes), func(e Endpoint) bool { return e == x })
	return Groups([][]Endpoint{{x}, rest})
}

// MajorityMinority splits nodes in two, both ways: the first len/2+1 nodes
// (a strict majority, also for even counts) and the rest.
func MajorityMinority(nodes []Endpoint) Grudge {
	m := min(len(nodes)/2+1, len(nodes))
	return Groups([][]Endpoint{nodes[:m], nodes[m:]})
}

// Bridge splits nodes into two sides joined by one node that sees both, as
// Jepsen's bridge does: the bridge is nodes[len/2], the sides are the nodes
// before and after it. For n1..n5: {n1,n2} | n3 | {n4,n5}.
func Bridge(nodes []Endpoint) Grudge {
	if len(nodes) == 0 {
		return nil
	}
	m := len(nodes) / 2
	return Groups([][]Endpoint{nodes[:m+1], nodes[m:]})
}

// MajoritiesRing places nodes on a ring in the given order and lets each see
// itself and its k nearest neighbours on either side, k the least that makes
// each view a strict majority. Links stay symmetric, every node sees a
// majority, and no two nodes see the same one. For five nodes each node sees
// its two ring neighbours. Fewer than four nodes cannot be split this way and
// give an empty grudge.
func MajoritiesRing(nodes []Endpoint) Grudge {
	n := len(nodes)
	k := (n/2 + 1) / 2 // 2k+1 >= n/2+1
	var g Grudge
	for i, a := range nodes {
		for j, b := range nodes {
			d := max(i-j, j-i)
			if d = min(d, n-d); d > k {
				g = append(g, Link{a, b})
			}
		}
	}
	return g.normalize()
}

// Cut is a one-way cut: messages from any of from to any of to are dropped,
// while the reverse direction still passes.
func Cut(from, to []Endpoint) Grudge {
	var g Grudge
	for _, a := range from {
		for _, b := range to {
			g = append(g, Link{a, b})
		}
	}
	return g.normalize()
}

// Union is the normalized set of all cuts of gs.
func Union(gs ...Grudge) Grudge {
	return Grudge(slices.Concat(gs...)).normalize()
}

// normalize sorts a copy by (To, From) and drops duplicates and self-links.
func (g Grudge) normalize() Grudge {
	out := slices.DeleteFunc(slices.Clone(g), func(l Link) bool { return l.From == l.To })
	slices.SortFunc(out, func(a, b Link) int {
		return cmp.Or(cmp.Compare(a.To, b.To), cmp.Compare(a.From, b.From))
	})
	return slices.Compact(out)
}

// Format prints the grudge grouped by receiver, each receiver followed by
// the senders it will not hear from:
//
//	n1<-n3,n4 n2<-n4,n5
//
// The empty grudge prints as "none".
func (g Grudge) Format(name func(Endpoint) string) string {
	g = g.normalize()
	if len(g) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, l := range g {
		switch {
		case i == 0:
		case l.To != g[i-1].To:
			b.WriteByte(' ')
		default:
			b.WriteByte(',')
			b.WriteString(name(l.From))
			continue
		}
		b.WriteString(name(l.To))
		b.WriteString("<-")
		b.WriteString(name(l.From))
	}
	return b.String()
}

// String is Format with endpoint numbers; Net.Format uses names.
func (g Grudge) String() string {
	return g.Format(func(e Endpoint) string { return strconv.Itoa(int(e)) })
}

// PartitionKind names a partition shape in scenario files. The zero value is
// invalid.
type PartitionKind uint8

const (
	PartitionIsolate          PartitionKind = 1 + iota // Isolate
	PartitionMajorityMinority                          // MajorityMinority
	PartitionBridge                                    // Bridge
	PartitionRing                                      // MajoritiesRing
	PartitionGroups                                    // Groups
)

var partitionKindNames = [...]string{
	PartitionIsolate:          "isolate",
	PartitionMajorityMinority: "majority-minority",
	PartitionBridge:           "bridge",
	PartitionRing:             "ring",
	PartitionGroups:           "groups",
}

// String is the kind's name as written in scenario files.
func (k PartitionKind) String() string { return kindName(partitionKindNames[:], k, "PartitionKind") }

// ParsePartitionKind is the inverse of PartitionKind.String.
func ParsePartitionKind(s string) (PartitionKind, error) {
	if k, ok := parseKind[PartitionKind](partitionKindNames[:], s); ok {
		return k, nil
	}
	return 0, fmt.Errorf("unknown partition kind %q; want one of isolate, majority-minority, bridge, ring, groups", s)
}
