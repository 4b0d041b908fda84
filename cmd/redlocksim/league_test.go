package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/league"
)

// TestLeague: the command writes the package's table, CSV and figure
// into --out and prints the table.
func TestLeague(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI("league", "--seeds", "2", "--workers", "3", "--out", dir)
	require.Equal(t, 0, code, stderr)
	l, err := league.Play(context.Background(), 2, 1, 0)
	require.NoError(t, err)
	md, err := os.ReadFile(filepath.Join(dir, "league.md"))
	require.NoError(t, err)
	assert.Equal(t, l.Markdown(), string(md))
	assert.Contains(t, stdout, string(md))
	c, err := os.ReadFile(filepath.Join(dir, "league.csv"))
	require.NoError(t, err)
	assert.Equal(t, string(l.CSV()), string(c))
	png, err := os.Stat(filepath.Join(dir, "league.png"))
	require.NoError(t, err)
	assert.Positive(t, png.Size())
}

func TestLeagueBadInput(t *testing.T) {
	code, _, stderr := runCLI("league", "--seeds", "0")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--seeds must be 1 to 10000, got 0")
	code, _, stderr = runCLI("league", "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unexpected argument "extra"`)
	code, _, stderr = runCLI("league", "--estimate-runs", "999")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--estimate-runs must be 0 (off) or at least 1000 (the estimator's pilot), got 999")
}
