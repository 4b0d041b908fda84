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
	requireContent(t, p, "new")
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	requireEntries(t, dir, 1, "no temporary file left behind")
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
	requireLink(t, link, "data/results.csv")
	requireContent(t, target, "new", "the link's target gets the data")
	requireEntries(t, dir, 2, "nothing but the link and the data directory")
}

func TestDanglingSymlinkCreatesItsTarget(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "out.csv")
	require.NoError(t, os.Symlink("real.csv", link))
	_, err := Write(link, []byte("x"))
	require.NoError(t, err)
	requireLink(t, link, "real.csv")
	requireContent(t, filepath.Join(dir, "real.csv"), "x")
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
	requireContent(t, p, "old")
	requireEntries(t, dir, 1, "no temporary file left behind")
}

// requireContent fails t unless the file at path holds want.
func requireContent(t *testing.T, path, want string, msgAndArgs ...any) {
	t.Helper()
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, want, string(got), msgAndArgs...)
}

// requireEntries fails t unless dir holds n entries.
func requireEntries(t *testing.T, dir string, n int, msgAndArgs ...any) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, n, msgAndArgs...)
}

// requireLink fails t unless link is still a symbolic link to dest.
func requireLink(t *testing.T, link, dest string) {
	t.Helper()
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.Equal(t, os.ModeSymlink, fi.Mode().Type(), "the link must stay a link")
	got, err := os.Readlink(link)
	require.NoError(t, err)
	require.Equal(t, dest, got)
}
