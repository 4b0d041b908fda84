package harness

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redlocksim/redlocksim/network"
)

// A real partition holds a TCP connection's bytes: a scenario whose
// partitions drop them (partition_mode = "drop", set explicitly since hold
// is the default) gets a note saying so; one whose partitions hold them and
// one without partitions get none.
func TestNotesDropPartitionsAsHeldBytes(t *testing.T) {
	for _, c := range []struct {
		name string
		mode network.PartitionMode
		want bool
	}{
		{"partition-holder", network.PartitionDrop, true},
		{"partition-holder", network.PartitionHold, false},
		{"partition-holder-delayed-write", network.PartitionHold, false},
		{"gc-pause", network.PartitionDrop, false},
	} {
		cfg := load(t, c.name).Config
		assert.Equal(t, network.PartitionHold, cfg.Network.PartitionMode, "%s: the library's default", c.name)
		cfg.Network.PartitionMode = c.mode
		refused, notes := Refusals(&cfg)
		assert.Empty(t, refused, c.name)
		assert.Equal(t, c.want, slices.Contains(notes, DropPartitionNote), "%s in %v mode", c.name, c.mode)
	}
}
