package story

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/sim"
)

func TestWriteTraceShowsTheActorsOwnClockAndHidesDrops(t *testing.T) {
	fast, err := clocks.NewProcess(clocks.Spec{Offset: 2 * time.Second})
	require.NoError(t, err)
	recs := []sim.Record{
		{At: time.Second, Actor: "n3", Kind: "restarts"},
		{At: time.Second, Actor: "net", Kind: "drop", Fields: []sim.Field{sim.F("from", "c1"), sim.F("to", "n4"), sim.F("reason", "partition")}},
	}
	var b strings.Builder
	require.NoError(t, WriteTrace(&b, recs, map[string]*clocks.Process{"n3": fast}, TraceOptions{}))
	assert.Equal(t, "    1.000000s  n3      3.000000s  restarts\n", b.String())
	b.Reset()
	require.NoError(t, WriteTrace(&b, recs, nil, TraceOptions{Drops: true}))
	assert.Contains(t, b.String(), "drops a message c1→n4 (partition)")
}
