package lazyfs

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

// TestKilledOwnerLeavesNothingAfterTheNextRun runs a helper process that
// mounts a lazyfs in a temporary directory of a proc.Group and dies by
// SIGKILL, so that no cleanup runs: the directory and a dead mount stay.
// The next process's RemoveStale must detach the mount and remove both.
func TestKilledOwnerLeavesNothingAfterTheNextRun(t *testing.T) {
	needFUSE(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMountAndDie$")
	cmd.Env = append(os.Environ(), "LAZYFS_HELPER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var dir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "dir "); ok {
			dir = d
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the helper should die by SIGKILL, got %v", err)
	}
	if dir == "" {
		t.Fatal("the helper printed no directory")
	}
	t.Cleanup(func() { _ = proc.UnmountLazy(filepath.Join(dir, "mnt")); os.RemoveAll(dir) })
	mounts, err := proc.MountsUnder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(mounts, filepath.Join(dir, "mnt")) {
		t.Fatalf("the killed helper's mount is not left behind (mounts under %s: %v); the test shows nothing", dir, mounts)
	}

	removed, err := proc.RemoveStale()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, dir) {
		t.Errorf("RemoveStale removed %v, want %s among them", removed, dir)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: %v, want it removed", dir, err)
	}
	requireUnmounted(t, filepath.Join(dir, "mnt"))
}

// TestHelperMountAndDie is the helper: it only runs when re-executed.
func TestHelperMountAndDie(t *testing.T) {
	if os.Getenv("LAZYFS_HELPER") != "1" {
		t.Skip("runs as TestKilledOwnerLeavesNothingAfterTheNextRun's helper process")
	}
	g := proc.NewGroup()
	dir, err := g.TempDir("redlocksim-lazyfs-stale-*")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"backing", "mnt"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Mount(filepath.Join(dir, "backing"), filepath.Join(dir, "mnt")); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("dir %s\n", dir)
	os.Stdout.Sync()
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}
