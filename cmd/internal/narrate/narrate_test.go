package narrate

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/sim"
)

func TestWriteShowsTheActorsOwnClockAndHidesDrops(t *testing.T) {
	fast, err := clocks.NewProcess(clocks.Spec{Offset: 2 * time.Second})
	require.NoError(t, err)
	recs := []sim.Record{
		{At: time.Second, Actor: "n3", Kind: "restarts"},
		{At: time.Second, Actor: "net", Kind: "drop", Fields: []sim.Field{sim.F("from", "c1"), sim.F("to", "n4"), sim.F("reason", "partition")}},
	}
	var b strings.Builder
	require.NoError(t, Write(&b, recs, map[string]*clocks.Process{"n3": fast}, Options{}))
	assert.Equal(t, "    1.000000s  n3      3.000000s  restarts\n", b.String())
	b.Reset()
	require.NoError(t, Write(&b, recs, nil, Options{Drops: true}))
	assert.Contains(t, b.String(), "drops a message c1→n4 (partition)")
}
