package lazyfs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
)

// needFUSE skips (fails in CI) when this machine cannot mount.
func needFUSE(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		proctest.Unavailable(t, fmt.Errorf("FUSE is not usable (install the Debian package %s): %w", Package, err))
	}
}

// mounted mounts a lazyfs for the test and checks, when the test ends,
// that the mount is gone from /proc/mounts.
func mounted(t testing.TB) *FS {
	t.Helper()
	needFUSE(t)
	root := t.TempDir()
	backing, mnt := filepath.Join(root, "backing"), filepath.Join(root, "mnt")
	for _, d := range []string{backing, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Mount(backing, mnt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		requireUnmounted(t, mnt)
	})
	return l
}

func requireUnmounted(t testing.TB, mnt string) {
	t.Helper()
	b, err := os.ReadFile("/proc/mounts")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[1] == mnt {
			t.Errorf("still mounted: %s", line)
		}
	}
}

func appendFile(t *testing.T, path, s string, sync bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func requireContent(t *testing.T, what, path, want string) {
	t.Helper()
	if got := readFile(t, path); got != want {
		t.Errorf("%s: %s reads %q, want %q", what, filepath.Base(path), got, want)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != int64(len(want)) {
		t.Errorf("%s: %s has size %d, want %d", what, filepath.Base(path), st.Size(), len(want))
	}
}

func TestPowerLossKeepsOnlySynced(t *testing.T) {
	l := mounted(t)
	p := filepath.Join(l.Mountpoint, "appendonly.aof")
	appendFile(t, p, "synced;", true)
	appendFile(t, p, "unsynced;", false)
	requireContent(t, "before the power loss", p, "synced;unsynced;")
	if got := readFile(t, filepath.Join(l.Backing, "appendonly.aof")); got != "synced;" {
		t.Errorf("the backing file holds %q before any drop; only the synced %q belongs there", got, "synced;")
	}
	if n := l.Unsynced(); n != 1 {
		t.Errorf("Unsynced = %d files, want 1", n)
	}
	lost, err := l.DropUnsynced()
	if err != nil {
		t.Fatal(err)
	}
	if lost != 1 {
		t.Errorf("DropUnsynced lost %d files, want 1", lost)
	}
	requireContent(t, "after the power loss", p, "synced;")
	// Appending after the loss starts at the synced end: the kernel holds
	// no stale size.
	appendFile(t, p, "again;", false)
	requireContent(t, "appended after the power loss", p, "synced;again;")
}

func TestFdatasyncKeeps(t *testing.T) {
	l := mounted(t)
	p := filepath.Join(l.Mountpoint, "f")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("kept"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Fdatasync(int(f.Fd())); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(" lost"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.DropUnsynced(); err != nil {
		t.Fatal(err)
	}
	requireContent(t, "after fdatasync and a power loss", p, "kept")
	// The handle from before the power loss belongs to a dead process.
	if _, err := f.WriteString("zombie"); !errors.Is(err, syscall.EIO) {
		t.Errorf("a write through a handle opened before the power loss: %v, want EIO", err)
	}
}

// TestProcessCrashKeepsUnsynced writes from a child process that then
// dies by SIGKILL: the kernel's page cache would keep its writes, so
// lazyfs does.
func TestProcessCrashKeepsUnsynced(t *testing.T) {
	l := mounted(t)
	p := filepath.Join(l.Mountpoint, "f")
	cmd := exec.Command("sh", "-c", `printf crashed >> "$1"; kill -9 $$`, "sh", p)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the writer should die by SIGKILL, got %v", err)
	}
	requireContent(t, "after the writer's crash", p, "crashed")
	if n := l.Unsynced(); n != 1 {
		t.Errorf("Unsynced = %d after a crash, want 1 (nothing synced it)", n)
	}
}

func TestTruncateIsUnsyncedData(t *testing.T) {
	l := mounted(t)
	p := filepath.Join(l.Mountpoint, "f")
	big := strings.Repeat("A", 3*pageSize)
	appendFile(t, p, big, true)
	if err := os.Truncate(p, 10); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("B"), 5000); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := big[:10] + string(make([]byte, 5000-10)) + "B"
	requireContent(t, "truncated, then written past the cut", p, want)
	if _, err := l.DropUnsynced(); err != nil {
		t.Fatal(err)
	}
	requireContent(t, "after the power loss", p, big)

	// O_TRUNC goes to the cache as well.
	f, err = os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("new"); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	requireContent(t, "O_TRUNC and fsync", p, "new")
	if got := readFile(t, filepath.Join(l.Backing, "f")); got != "new" {
		t.Errorf("the backing file after fsync holds %d bytes, want %q", len(got), "new")
	}
}

// TestRedisRewriteShape does what redis-server does to its AOF directory:
// mkdir, a temporary file written and fsynced, renamed over the old one;
// an unlink; readdir and stat.
func TestRedisRewriteShape(t *testing.T) {
	l := mounted(t)
	dir := filepath.Join(l.Mountpoint, "appendonlydir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "appendonly.aof.manifest")
	appendFile(t, manifest, "old manifest, unsynced", false)
	tmp := filepath.Join(dir, "temp-appendonly.aof.manifest")
	appendFile(t, tmp, "new manifest", true)
	if err := os.Rename(tmp, manifest); err != nil {
		t.Fatal(err)
	}
	incr := filepath.Join(dir, "appendonly.aof.1.incr.aof")
	appendFile(t, incr, "synced;", true)
	appendFile(t, incr, "unsynced;", false)
	gone := filepath.Join(dir, "appendonly.aof.0.incr.aof")
	appendFile(t, gone, "unsynced and then unlinked", false)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name())
		if e.Name() == filepath.Base(incr) && info.Size() != int64(len("synced;unsynced;")) {
			t.Errorf("readdir's stat of %s: size %d, want the unsynced size %d", e.Name(), info.Size(), len("synced;unsynced;"))
		}
	}
	if got, want := strings.Join(names, " "), "appendonly.aof.1.incr.aof appendonly.aof.manifest"; got != want {
		t.Errorf("readdir: %s, want %s", got, want)
	}

	if _, err := l.DropUnsynced(); err != nil {
		t.Fatal(err)
	}
	requireContent(t, "the renamed manifest after the power loss", manifest, "new manifest")
	requireContent(t, "the AOF after the power loss", incr, "synced;")
	if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unlinked file after the power loss: %v, want it gone (names are kept at once)", err)
	}
	// A new file that may reuse the unlinked one's inode starts empty.
	appendFile(t, gone, "", false)
	requireContent(t, "a new file in the unlinked one's place", gone, "")
}

func TestCreatedAndNeverSyncedSurvivesEmpty(t *testing.T) {
	l := mounted(t)
	p := filepath.Join(l.Mountpoint, "new")
	appendFile(t, p, "never synced", false)
	if _, err := l.DropUnsynced(); err != nil {
		t.Fatal(err)
	}
	requireContent(t, "a created file after the power loss", p, "")
}

func TestCloseWithOpenFileLeavesNoMount(t *testing.T) {
	l := mounted(t)
	f, err := os.Create(filepath.Join(l.Mountpoint, "held"))
	if err != nil {
		t.Fatal(err)
	}
	// Held open across Close: the unmount is lazy, and /proc/mounts
	// must not show it (mounted's cleanup checks).
	t.Cleanup(func() { f.Close() })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	requireUnmounted(t, l.Mountpoint)
	if err := l.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}
