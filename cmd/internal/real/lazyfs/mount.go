package lazyfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

// Package is the Debian package that provides fusermount3.
const Package = "fuse3"

// Available says why this machine cannot mount a lazyfs, or nil if it
// can: it needs the FUSE device and fusermount3.
func Available() error {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return fmt.Errorf("/dev/fuse is missing, so no FUSE filesystem can mount (load the fuse kernel module with modprobe fuse; in a container, pass --device /dev/fuse): %w", err)
	}
	if _, err := proc.LookPath("fusermount3", Package); err != nil {
		return err
	}
	return nil
}

// FS is a mounted lazyfs.
type FS struct {
	Backing    string // where synced bytes and the namespace live
	Mountpoint string // where the cache is served

	server *fuse.Server

	mu    sync.Mutex
	files map[uint64]*file // by the backing file's inode number
	syncs int              // fsyncs served, for tests and notes

	closeOnce sync.Once
	closeErr  error
}

// Mount serves backing at mountpoint (an existing directory, normally
// empty) until Close. Both must be on one filesystem each: files are
// known by their backing inode numbers.
func Mount(backing, mountpoint string) (*FS, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	backing, err := filepath.Abs(backing)
	if err != nil {
		return nil, err
	}
	if mountpoint, err = filepath.Abs(mountpoint); err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(backing, &st); err != nil {
		return nil, fmt.Errorf("lazyfs backing directory: %w", err)
	}
	l := &FS{Backing: backing, Mountpoint: mountpoint, files: map[uint64]*file{}}
	rootData := &fs.LoopbackRoot{Path: backing, Dev: uint64(st.Dev)}
	root := &node{LoopbackNode: fs.LoopbackNode{RootData: rootData}, lfs: l}
	rootData.RootNode = root
	// No kernel caching of names, attributes or data: after a power
	// loss the sizes and contents shrink behind the kernel's back, and a
	// cached size would place the next O_APPEND write past the end.
	// (FOPEN_DIRECT_IO on every open does the same for data.)
	var zero time.Duration
	opts := &fs.Options{
		EntryTimeout:    &zero,
		AttrTimeout:     &zero,
		NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{
			FsName:        "lazyfs",
			Name:          "lazyfs",
			DisableXAttrs: true,
		},
	}
	server, err := fs.Mount(mountpoint, root, opts)
	if err != nil {
		return nil, fmt.Errorf("mount lazyfs on %s: %w", mountpoint, err)
	}
	l.server = server
	mountsMu.Lock()
	mounts = append(mounts, mountpoint)
	mountsMu.Unlock()
	return l, nil
}

var (
	mountsMu sync.Mutex
	mounts   []string
)

// Mountpoints lists every mount point this process has mounted a lazyfs
// on, closed or not, in order: tests check that none is left in
// /proc/mounts after a run.
func Mountpoints() []string {
	mountsMu.Lock()
	defer mountsMu.Unlock()
	return append([]string(nil), mounts...)
}

// DropUnsynced discards every byte written and not fsynced since, in
// every file, and reports how many files lost something: a power loss.
// Handles opened before it fail from now on (EIO), as the processes that
// held them would be gone; open the files again to read what survived.
func (l *FS) DropUnsynced() (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lost := 0
	var errs []error
	for ino, f := range l.files {
		if f.dirty() {
			lost++
		}
		if err := f.drop(); err != nil {
			errs = append(errs, err)
		}
		f.dead = true
		delete(l.files, ino)
		if f.refs == 0 {
			f.fd.Close()
		}
	}
	return lost, errors.Join(errs...)
}

// Unsynced reports how many files hold bytes that a power loss would lose.
func (l *FS) Unsynced() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, f := range l.files {
		if f.dirty() {
			n++
		}
	}
	return n
}

// Syncs reports how many fsync or fdatasync calls the filesystem served.
func (l *FS) Syncs() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.syncs
}

// Close unmounts. What is still unsynced is lost, as at a power loss
// (Sync first to keep it). If a process still has files open, the mount
// is detached lazily: it leaves the namespace at once and the kernel
// ends it when the last file closes. Close is idempotent and safe to call
// from a signal handler's goroutine or a deferred call during a panic.
func (l *FS) Close() error {
	l.closeOnce.Do(func() {
		if err := l.server.Unmount(); err != nil {
			if lazyErr := proc.UnmountLazy(l.Mountpoint); lazyErr != nil {
				l.closeErr = fmt.Errorf("unmount lazyfs at %s: %v; lazily: %w", l.Mountpoint, err, lazyErr)
			}
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		for ino, f := range l.files {
			f.dead = true
			delete(l.files, ino)
			if f.refs == 0 {
				f.fd.Close()
			}
		}
	})
	return l.closeErr
}

// Sync writes every file's cache down, as sync(2) would.
func (l *FS) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for _, f := range l.files {
		if err := f.sync(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
