package harness

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A real partition holds a TCP connection's bytes: a scenario whose
// partitions drop them gets a note saying so, one whose partitions hold
// them (as TCP does) and one without partitions get none.
func TestNotesDropPartitionsAsHeldBytes(t *testing.T) {
	for name, want := range map[string]bool{
		"partition-holder":     true,
		"partition-holder-tcp": false,
		"gc-pause":             false,
	} {
		cfg := load(t, name).Config
		refused, notes := Refusals(&cfg)
		assert.Empty(t, refused, name)
		assert.Equal(t, want, slices.Contains(notes, DropPartitionNote), name)
	}
}
