package results

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WriteCurve and ReadCurve are one format: what one writes the other
// reads back, cell for cell; a file of two keys, or without the curve's
// columns, is refused.
func TestCurveRoundTrip(t *testing.T) {
	rows := []CurveRow{
		{At: []string{"1s", "975ms"}, Key: "nodes.clock.rate_ppm", Safe: "10000", Violating: "10500", Verdict: CurveFlips, Tol: "500",
			Seeds: "4", FirstSeed: "1", Probes: "8", Runs: "32", Onset: "10200", Formula: "drift: ttl×rate"},
		{At: []string{"30s", "29540ms"}, Key: "nodes.clock.rate_ppm", Verdict: "safe at both ends", Tol: "500",
			Seeds: "4", FirstSeed: "1", Probes: "2", Runs: "8", Low: "1", High: "2"},
	}
	var buf bytes.Buffer
	require.NoError(t, WriteCurve(&buf, []string{"lock.ttl", "workload.critical_section"}, rows))
	path := filepath.Join(t.TempDir(), "curve.csv")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	c, err := ReadCurve(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"lock.ttl", "workload.critical_section"}, c.Over)
	assert.Equal(t, "nodes.clock.rate_ppm", c.Key)
	for i := range rows {
		rows[i].Line = i + 2
	}
	assert.Equal(t, rows, c.Rows)

	other := filepath.Join(t.TempDir(), "other.csv")
	require.NoError(t, os.WriteFile(other, append(buf.Bytes(), []byte("2s,1960ms,lock.ttl,,,x,1,1,1,1,1,,,,\n")...), 0o644))
	_, err = ReadCurve(other)
	assert.EqualError(t, err, other+":4: key lock.ttl, but line 2 bisects nodes.clock.rate_ppm: one curve bisects one key")
	require.NoError(t, os.WriteFile(other, []byte("point,lock.ttl,runs\n0,1s,2\n"), 0o644))
	_, err = ReadCurve(other)
	assert.ErrorContains(t, err, "not an onset curve")
}
