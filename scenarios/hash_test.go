package scenarios

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBaseHash: the hash is of the meaning, not the layout; the overrides
// count, in order. The pinned values are the ones cmd/redlocksim printed
// as scenario_hash before the hash moved here: a recorded run's hash must
// keep naming the same scenario.
func TestBaseHash(t *testing.T) {
	b, err := NewBase("pause.toml", []byte(pauseBase))
	require.NoError(t, err)
	assert.Equal(t, "8b1b2cf85aa2943b5b1e0b054111803d", b.Hash())
	ttl, think := mustOverride(t, "lock.ttl=3s"), mustOverride(t, "workload.think=1s")
	assert.Equal(t, "83a85ec195374561d7de4cf5ea937570", b.Hash(ttl))
	assert.Equal(t, "3371a0ec35459a150155df18b5ae6ece", b.Hash(ttl, think))
	assert.NotEqual(t, b.Hash(ttl, think), b.Hash(think, ttl), "the overrides count in order")

	relaid, err := NewBase("other.toml", []byte("# a comment that changes nothing\n\n"+pauseBase))
	require.NoError(t, err)
	assert.Equal(t, b.Hash(), relaid.Hash(), "comments and the file name do not count")
	changed, err := NewBase("pause.toml", []byte(strings.Replace(pauseBase, `ttl = "10s"`, `ttl = "11s"`, 1)))
	require.NoError(t, err)
	_, err = changed.Apply()
	require.NoError(t, err)
	assert.NotEqual(t, b.Hash(), changed.Hash(), "a value counts")
}
