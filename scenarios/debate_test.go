package scenarios_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/scenarios"
)

// Every library scenario answers an argument of the debate in its
// [debate] table, names the debate's people, and the report tells each
// once.
func TestEveryScenarioHasAnArgument(t *testing.T) {
	for _, n := range scenarios.LibraryNames() {
		sc, err := scenarios.LoadLibrary(n)
		require.NoError(t, err)
		d := sc.Debate
		assert.NotEmpty(t, d.Claim, "%s: add a [debate] claim", n)
		assert.NotEmpty(t, d.By, n)
		assert.NotEmpty(t, d.Answer, "%s: add the [debate] answer", n)
		for _, w := range slices.Concat(d.By, d.AnswerBy) {
			assert.Contains(t, scenarios.DebatePeople, w, n)
		}
		assert.Contains(t, scenarios.DebateOrder, n, "scenario %s is not in DebateOrder (scenarios/debate.go): the report would leave it out", n)
	}
	for _, n := range scenarios.DebateOrder {
		assert.Contains(t, scenarios.LibraryNames(), n, "DebateOrder names %s, which is not a library scenario", n)
	}
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(scenarios.DebateOrder))), len(scenarios.DebateOrder), "no scenario twice")
}
