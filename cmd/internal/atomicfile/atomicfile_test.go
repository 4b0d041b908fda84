package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRegularFileIsReplaced(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o600))
	direct, err := Write(p, []byte("new"))
	require.NoError(t, err)
	require.False(t, direct)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "new", string(got))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left behind")
}

func TestSymlinkIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "data")
	require.NoError(t, os.Mkdir(sub, 0o755))
	target := filepath.Join(sub, "results.csv")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	link := filepath.Join(dir, "latest.csv")
	require.NoError(t, os.Symlink("data/results.csv", link))

	_, err := Write(link, []byte("new"))
	require.NoError(t, err)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.Equal(t, os.ModeSymlink, fi.Mode().Type(), "the link must stay a link")
	dest, err := os.Readlink(link)
	require.NoError(t, err)
	require.Equal(t, "data/results.csv", dest)
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "new", string(got), "the link's target gets the data")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "nothing but the link and the data directory")
}

func TestDanglingSymlinkCreatesItsTarget(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "out.csv")
	require.NoError(t, os.Symlink("real.csv", link))
	_, err := Write(link, []byte("x"))
	require.NoError(t, err)
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.Equal(t, os.ModeSymlink, fi.Mode().Type())
	got, err := os.ReadFile(filepath.Join(dir, "real.csv"))
	require.NoError(t, err)
	require.Equal(t, "x", string(got))
}

func TestDeviceIsWrittenDirectly(t *testing.T) {
	before, err := os.Stat(os.DevNull)
	require.NoError(t, err)
	require.NotZero(t, before.Mode()&os.ModeDevice)
	direct, err := Write(os.DevNull, []byte("discarded"))
	require.NoError(t, err)
	require.True(t, direct, "a device cannot be renamed over: the write must say it was direct")
	after, err := os.Stat(os.DevNull)
	require.NoError(t, err)
	require.Equal(t, before.Mode(), after.Mode(), "/dev/null must still be the device")
	require.True(t, os.SameFile(before, after))
}

func TestDirectoryIsRefused(t *testing.T) {
	_, err := Create(t.TempDir())
	require.ErrorContains(t, err, "is a directory")
}

func TestAbortKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	f, err := Create(p)
	require.NoError(t, err)
	f.WriteString("half")
	f.Abort()
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "old", string(got))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}
