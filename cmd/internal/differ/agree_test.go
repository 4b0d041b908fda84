package differ

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestJudge is the one agreement rule on the cases compare and the search
// meet: verdicts that differ part; equal verdicts part only when the
// intervals do not overlap; an exact side is a point, not an interval.
func TestJudge(t *testing.T) {
	cases := []struct {
		name             string
		sim, real        Side
		parted, verdicts bool
	}{
		{"both safe", Side{K: 0, N: 5}, Side{K: 0, N: 5}, false, false},
		{"verdicts differ", Side{K: 5, N: 5}, Side{K: 0, N: 5}, true, true},
		{"half is a violation", Side{K: 2, N: 4}, Side{K: 3, N: 4}, false, false},
		{"same verdict, overlapping", Side{K: 5, N: 5}, Side{K: 4, N: 5}, false, false},
		{"same verdict, apart", Side{K: 100, N: 100}, Side{K: 55, N: 100}, true, false},
		// the search's case: the simulator's one deterministic run
		{"exact sim inside", Side{K: 0, N: 1, Exact: true}, Side{K: 0, N: 3}, false, false},
		{"exact sim below the interval", Side{K: 0, N: 1, Exact: true}, Side{K: 1, N: 3}, true, false},
		{"exact sim outside", Side{K: 0, N: 1, Exact: true}, Side{K: 2, N: 3}, true, true},
		{"exact violation, all real", Side{K: 1, N: 1, Exact: true}, Side{K: 3, N: 3}, false, false},
	}
	for _, c := range cases {
		part, parted := Judge("mutex", c.sim, c.real)
		assert.Equal(t, c.parted, parted, c.name)
		assert.Equal(t, c.verdicts, part.Verdicts, c.name)
		assert.Equal(t, Part{Property: "mutex", Sim: c.sim, Real: c.real, Verdicts: c.verdicts}, part, c.name)
	}
	// An exact side's interval is its point, where Wilson's for 0 of 1
	// would reach 0.79.
	lo, hi := Side{K: 0, N: 1, Exact: true}.Interval()
	assert.Equal(t, [2]float64{0, 0}, [2]float64{lo, hi})
	_, whi := Side{K: 0, N: 1}.Interval()
	assert.Greater(t, whi, 0.5)
}
