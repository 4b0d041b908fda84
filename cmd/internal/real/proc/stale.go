package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ownerSuffix names the file beside each temporary directory that says
// which process owns it: "<pid> <start time>\n", the start time in clock
// ticks since boot as /proc/<pid>/stat gives it, so that a reused pid does
// not pass for the owner.
const ownerSuffix = ".redlocksim-owner"

var staleOnce sync.Once

// selfID is this process's "<pid> <start time>".
func selfID() (string, error) {
	st, err := startTime(os.Getpid())
	if err != nil {
		return "", err
	}
	return strconv.Itoa(os.Getpid()) + " " + st, nil
}

// startTime reads a process's start time (field 22 of /proc/<pid>/stat).
func startTime(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return "", fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(fields))
	}
	return fields[19], nil
}

// ownerAlive reports whether the process an owner file names still runs.
func ownerAlive(id string) bool {
	pidStr, start, ok := strings.Cut(strings.TrimSpace(id), " ")
	pid, err := strconv.Atoi(pidStr)
	if !ok || err != nil || pid <= 0 {
		// Not written by this package (or cut short while being
		// written): leave it alone.
		return true
	}
	got, err := startTime(pid)
	return err == nil && got == start
}

// markOwner writes dir's owner file, naming this process.
func markOwner(dir string) error {
	id, err := selfID()
	if err != nil {
		return err
	}
	tmp := dir + ownerSuffix + ".tmp"
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, dir+ownerSuffix)
}

// RemoveStale removes the temporary directories (and their owner files)
// that a process of this package made and that outlived it: a run killed
// with SIGKILL runs no cleanup. A filesystem still mounted under such a
// directory (its server died with the owner) is detached first. It
// returns the directories it removed. Group.TempDir calls it once per
// process, so every run cleans up after the ones killed before it.
func RemoveStale() ([]string, error) {
	owners, err := filepath.Glob(filepath.Join(os.TempDir(), "*"+ownerSuffix))
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, o := range owners {
		id, err := os.ReadFile(o)
		if err != nil || ownerAlive(string(id)) {
			continue
		}
		dir := strings.TrimSuffix(o, ownerSuffix)
		if err := removeDir(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(o); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}

// removeDir detaches whatever is mounted under dir, then removes it.
func removeDir(dir string) error {
	mounts, err := MountsUnder(dir)
	if err != nil {
		return err
	}
	for _, m := range mounts {
		if err := UnmountLazy(m); err != nil {
			return err
		}
	}
	return os.RemoveAll(dir)
}

// MountsUnder lists the mount points at or below dir, deepest first (the
// order to unmount them in).
func MountsUnder(dir string) ([]string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out, nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// UnmountLazy detaches the filesystem at mountpoint from the namespace at
// once (MNT_DETACH); the kernel ends it when its last open file closes.
// It works as root directly, otherwise through fusermount3.
func UnmountLazy(mountpoint string) error {
	err := syscall.Unmount(mountpoint, syscall.MNT_DETACH)
	if err == nil || errors.Is(err, syscall.EINVAL) {
		return nil // EINVAL: not a mount point (any more)
	}
	bin, lookErr := LookPath("fusermount3", "fuse3")
	if lookErr != nil {
		return fmt.Errorf("unmount %s: %w (and %v)", mountpoint, err, lookErr)
	}
	out, ferr := exec.Command(bin, "-u", "-z", mountpoint).CombinedOutput()
	if ferr != nil {
		return fmt.Errorf("unmount %s: %w (fusermount3: %v: %s)", mountpoint, err, ferr, strings.TrimSpace(string(out)))
	}
	return nil
}
