package sweep

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The embedded documentation is README.md's, and Columns is its output
// section whole: from its heading to the next one, with every column the
// results file starts with.
func TestFormatAndColumns(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Equal(t, string(readme), Format)

	cols := Columns()
	require.True(t, strings.HasPrefix(cols, "## Output\n"), cols)
	assert.NotContains(t, strings.TrimPrefix(cols, "## Output\n"), "\n## ", "the section ends at the next heading")
	assert.True(t, strings.HasSuffix(cols, "\n"), "ends with its last line")
	assert.Contains(t, Format, cols)
	for _, c := range []string{"`point`", "`runs`", "`mutex_violation_rate`", "`mutex_ci_low`", "`unavailable_ms_mean`", "`longest_outage_ms_max`", "`replay`"} {
		assert.Contains(t, cols, c)
	}
	next := Format[strings.Index(Format, cols)+len(cols):]
	assert.True(t, strings.HasPrefix(next, "\n## "), "what follows the section is the next heading: %.40q", next)
}
