package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
)

func TestParseRemedies(t *testing.T) {
	r, err := ParseRemedies("wait, fencing,fencing")
	require.NoError(t, err)
	assert.Equal(t, []string{"fencing", "wait"}, []string{r[0].Name, r[1].Name})
	all, err := ParseRemedies("all")
	require.NoError(t, err)
	assert.Len(t, all, len(Remedies))
	_, err = ParseRemedies("fencing,magic")
	require.ErrorContains(t, err, `unknown remedy "magic"`)
	require.ErrorContains(t, err, "fsync-always")
}

// Every fault kind the model has is in the what-ifs' table; a new kind
// fails here until it says whether it restarts a node.
func TestEveryFaultKindHasARemedyRule(t *testing.T) {
	for _, name := range model.FaultKinds() {
		k, err := model.ParseFaultKind(name)
		require.NoError(t, err)
		if _, ok := faultRemedies[k]; !ok {
			t.Errorf("%v: no entry in faultRemedies: say whether it takes a Redis node down and restarts it", k)
		}
	}
}

// A fault of a kind the table lacks is refused, never passed over.
func TestRemedyRefusesAnUnknownFaultKind(t *testing.T) {
	b, err := LoadBase("restart-no-persistence")
	require.NoError(t, err)
	sc, err := b.Apply()
	require.NoError(t, err)
	kind := sc.Config.Faults[0].Kind
	rule := faultRemedies[kind]
	delete(faultRemedies, kind)
	defer func() { faultRemedies[kind] = rule }()
	_, _, err = Remedies[3].Plan(b, sc)
	require.ErrorContains(t, err, "the what-ifs have no rule for a "+kind.String()+" fault")
}
