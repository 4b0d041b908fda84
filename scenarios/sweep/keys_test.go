package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A key a point leaves to the base gets the base's value (after [set]),
// and a duration key its seconds beside it; a key neither gives stays
// empty (the model's default), and a key of plain numbers has no _s.
func TestKeys(t *testing.T) {
	s, err := Parse("k.toml", []byte(`name = "k"
seeds = 1

[[points]]
lock.ttl = "1s"
nodes.persistence = "always"

[[points]]
workload.critical_section = "975ms"

[axes]
nodes.clock.rate_ppm = [0, 20000]

[set]
lock.ttl = "10s"

[base]
duration = "10s"
[base.lock]
ttl = "2s"
[base.workload]
critical_section = "300ms"
`))
	require.NoError(t, err)
	k := s.Keys()
	assert.Equal(t, []string{"lock.ttl", "lock.ttl_s", "nodes.persistence", "workload.critical_section", "workload.critical_section_s", "nodes.clock.rate_ppm"}, k.Columns())
	var got [][]string
	for i := range s.NumPoints() {
		got = append(got, k.Cells(s.Point(i)))
	}
	assert.Equal(t, [][]string{
		{"1s", "1", "always", "300ms", "0.3", "0"},
		{"1s", "1", "always", "300ms", "0.3", "20000"},
		{"10s", "10", "", "975ms", "0.975", "0"}, // lock.ttl from [set], not the base's 2s
		{"10s", "10", "", "975ms", "0.975", "20000"},
	}, got)
}
