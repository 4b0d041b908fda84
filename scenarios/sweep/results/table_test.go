package results

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A list inside brackets is one value; an escaped quote does not end a
// basic string; a literal string has no escapes.
func TestSplitList(t *testing.T) {
	assert.Equal(t, []string{"[1, 2]", `"a,b"`, "3"}, SplitList(`[1, 2],"a,b", 3`))
	assert.Equal(t, []string{`"say \"a,b\""`, `'c\'`, "d"}, SplitList(`"say \"a,b\"", 'c\',d`))
	assert.Equal(t, []string{"1s", ""}, SplitList("1s,"))
}

func writeCSV(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.csv")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return path
}

// Where ORs the values of one key (read as numbers or durations: 1000ms is
// 1s) and ANDs the keys; a value no row has is an error naming the values
// there are. KeepWhere skips keys and values the table lacks.
func TestWhere(t *testing.T) {
	path := writeCSV(t, "# a shard's comment\nlock.ttl,nodes.count,m\n1s,3,0.1\n10s,3,0.2\n1s,5,0.3\n30s,5,0.4\n")
	read := func() *Table {
		tab, err := ReadTable(path)
		require.NoError(t, err)
		return tab
	}
	conds, err := ParseWhere([]string{"lock.ttl=1000ms", "nodes.count=5", "lock.ttl=30s"})
	require.NoError(t, err)
	assert.Equal(t, []Condition{{"lock.ttl", []string{"1000ms", "30s"}}, {"nodes.count", []string{"5"}}}, conds)
	tab := read()
	require.NoError(t, tab.Where(conds))
	assert.Equal(t, []int{5, 6}, tab.Lines, "the rows keep their file lines")
	assert.Equal(t, []string{"0.3", "0.4"}, []string{tab.Cell(0, "m"), tab.Cell(1, "m")})

	conds, err = ParseWhere([]string{"lock.ttl=2s"})
	require.NoError(t, err)
	assert.EqualError(t, read().Where(conds), path+": no row has lock.ttl=2s (it has 1s, 10s, 30s)")
	conds, err = ParseWhere([]string{"mode=real", "lock.ttl=2s,10s"})
	require.NoError(t, err)
	tab = read()
	tab.KeepWhere(conds)
	assert.Equal(t, []int{4}, tab.Lines)

	for _, bad := range []string{"lock.ttl", "=1s", "lock.ttl="} {
		_, err := ParseWhere([]string{bad})
		assert.ErrorContains(t, err, "--where wants key=value", bad)
	}
	_, err = ParseWhere([]string{"lock.ttl=1s,"})
	assert.EqualError(t, err, `--where lock.ttl=1s,: an empty value in "1s,"`)
}

// Values reads numbers, else durations in seconds, else words; Numeric
// refuses words and checks a sweep column's range, naming the line.
func TestNumeric(t *testing.T) {
	tab, err := ReadTable(writeCSV(t, "lock.ttl,mode,runs,mutex_violation_rate\n10ms,a,20,0.5\n1s,b,20,1.5\n"))
	require.NoError(t, err)
	vs, kind, err := tab.Numeric("lock.ttl", "--x", false)
	require.NoError(t, err)
	assert.Equal(t, Durations, kind)
	assert.Equal(t, []float64{0.01, 1}, vs)
	_, kind = tab.Values(1, false)
	assert.Equal(t, Words, kind)
	_, _, err = tab.Numeric("mode", "--x", false)
	assert.ErrorContains(t, err, `:2: column "mode" (--x) must hold numbers or durations, got "a"`)
	_, _, err = tab.Numeric("mutex_violation_rate", "--y", false)
	assert.ErrorContains(t, err, `:3: column "mutex_violation_rate" (--y) must be a fraction of runs, from 0 to 1, got 1.5`)
	vs, kind, names, err := tab.Categories("mode", "--y")
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 1}, vs)
	assert.Equal(t, Words, kind)
	assert.Equal(t, []string{"a", "b"}, names)
}
