package perfetto

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ms = time.Millisecond

func sample() Trace {
	return Trace{
		Title:  "t",
		Tracks: []string{"c1", "n1", "resource"},
		Slices: []Slice{
			{Track: "c1", Cat: "hold", Name: "holds", Start: 2 * ms, End: 9 * ms},
			{Track: "c1", Cat: "pause", Name: "paused", Start: 3 * ms, End: 12 * ms}, // overlaps the hold: another thread
			{Track: "n1", Cat: "key", Name: "key c1#1", Start: 1 * ms, End: 10 * ms, Args: map[string]string{"label": "c1#1"}},
			{Track: "n1", Cat: "down", Name: "down", Start: 11 * ms, End: 11 * ms}, // an instant restart
		},
		Instants: []Instant{
			{Track: "n1", Cat: "clock", Name: "+2s", At: 5 * ms},
			{Cat: "partition", Name: "partition", At: 6 * ms},
		},
		Messages: []Message{
			{From: "c1", To: "n1", Sent: 0, At: 1 * ms, Kind: "SET-NX", Req: 7},
			{From: "n1", To: "c1", Sent: 1 * ms, At: 2 * ms, Kind: "REPLY", Req: 7, Reply: true},
			{From: "n1", To: "c1", Sent: 3 * ms, At: 4 * ms, Kind: "REPLY", Req: 7, Reply: true}, // no request left: no flow
			{From: "c1", To: "resource", Sent: 4 * ms, At: 5500 * time.Microsecond, Kind: "RESOURCE-WRITE", Req: 9},
		},
	}
}

func TestEncodeIsValidAndCounts(t *testing.T) {
	data, err := Encode(sample())
	require.NoError(t, err)
	counts, err := Validate(data)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{
		"M:": 3 * 5, "X:hold": 1, "X:pause": 1, "X:key": 1, "X:down": 1,
		"i:clock": 1, "i:partition": 1, "i:message": 4, "s:message": 1, "f:message": 1,
	}, counts)

	again, err := Encode(sample())
	require.NoError(t, err)
	assert.Equal(t, data, again, "the same trace encodes to the same bytes")

	var f File
	require.NoError(t, json.Unmarshal(data, &f))
	for _, e := range f.TraceEvents {
		if e.Ph == "X" && e.Cat == "hold" {
			assert.InDelta(t, 2000.0, e.Ts, 1e-9, "ts is in microseconds")
			assert.InDelta(t, 7000.0, *e.Dur, 1e-9)
		}
		if e.Ph == "X" && e.Cat == "pause" {
			assert.NotEqual(t, tidLock, e.Tid, "overlapping slices go on different threads")
		}
		if e.Ph == "i" && e.Cat == "partition" {
			assert.Equal(t, "g", e.S)
		}
	}
}

func TestEncodeRefusesBadInput(t *testing.T) {
	tr := sample()
	tr.Slices = append(tr.Slices, Slice{Track: "n9", Cat: "key", Start: 0, End: 1})
	_, err := Encode(tr)
	require.ErrorContains(t, err, `"n9" is not one of the tracks`)

	tr = sample()
	tr.Slices[0].End = 0
	_, err = Encode(tr)
	require.ErrorContains(t, err, "ends")

	tr = sample()
	tr.Tracks = append(tr.Tracks, "c1")
	_, err = Encode(tr)
	require.ErrorContains(t, err, "twice")
}
