package model_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
)

// A narrated run logs every delivered message, each reply after its
// request; a plain run logs none (the sweep pays nothing for it).
func TestMessagesOnlyWhenTraced(t *testing.T) {
	cfg := redlockWorld(2)
	cfg.Duration = 2 * s
	fast, err := model.RunFast(cfg, 1)
	require.NoError(t, err)
	assert.Empty(t, fast.Messages)

	r, err := model.RunTraced(cfg, 1)
	require.NoError(t, err)
	require.Equal(t, int(r.Net.Delivered), len(r.Messages))
	type key struct {
		client, server string
		req            uint64
	}
	asked := map[key]int{}
	for i, m := range r.Messages {
		assert.LessOrEqual(t, m.Sent, m.At, "message %d", i)
		if i > 0 {
			assert.LessOrEqual(t, r.Messages[i-1].At, m.At, "delivery order")
		}
		switch {
		case m.Reply:
			k := key{m.To, m.From, m.Req}
			require.Positive(t, asked[k], "reply %d (%+v) answers a request that arrived", i, m)
			asked[k]--
		case m.Req != 0:
			asked[key{m.From, m.To, m.Req}]++
		}
	}
	assert.Equal(t, fast.Report, r.Report, "logging messages changes nothing")
}
