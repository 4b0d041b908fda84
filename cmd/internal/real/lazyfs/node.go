package lazyfs

import (
	"context"
	"os"
	"path/filepath"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is go-fuse's loopback node with file contents routed through the
// cache. Namespace operations (lookup, mkdir, rename, unlink, readdir) are
// the loopback's own, applied to the backing directory at once.
type node struct {
	fs.LoopbackNode
	lfs *FS
}

var (
	_ fs.NodeWrapChilder = (*node)(nil)
	_ fs.NodeLookuper    = (*node)(nil)
	_ fs.NodeOpener      = (*node)(nil)
	_ fs.NodeCreater     = (*node)(nil)
	_ fs.NodeGetattrer   = (*node)(nil)
	_ fs.NodeSetattrer   = (*node)(nil)
	_ fs.NodeUnlinker    = (*node)(nil)
	_ fs.NodeRenamer     = (*node)(nil)
	_ fs.NodeTmpfiler    = (*node)(nil)
	_ fs.NodeLinker      = (*node)(nil)
)

// WrapChild makes every node the loopback creates one of ours.
func (n *node) WrapChild(ctx context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	lb := ops.(*fs.LoopbackNode)
	return &node{LoopbackNode: fs.LoopbackNode{RootData: lb.RootData}, lfs: n.lfs}
}

// backingPath is the node's path in the backing directory.
func (n *node) backingPath() string {
	return filepath.Join(n.RootData.Path, n.Path(n.Root()))
}

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	ch, errno := n.LoopbackNode.Lookup(ctx, name, out)
	if errno == 0 {
		n.lfs.patch(&out.Attr)
	}
	return ch, errno
}

func (n *node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	t, ok := target.(*node)
	if !ok {
		return nil, syscall.EXDEV
	}
	ch, errno := n.LoopbackNode.Link(ctx, &t.LoopbackNode, name, out)
	if errno == 0 {
		n.lfs.patch(&out.Attr)
	}
	return ch, errno
}

// Tmpfile is refused: an unnamed file has no path to find its cache by
// after go-fuse forgets the node, and nothing this package serves uses it.
func (n *node) Tmpfile(ctx context.Context, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EOPNOTSUPP
}

// openFlags are the flags the backing file is opened with: always
// read-write (the kernel checks the caller's mode against its own file),
// never truncating (a truncate goes to the cache) and never appending
// (the kernel computes the offset of an append).
func openFlags(flags uint32) int {
	f := int(flags) &^ (syscall.O_ACCMODE | syscall.O_TRUNC | syscall.O_APPEND | syscall.O_CREAT | syscall.O_EXCL | fuse.FMODE_EXEC)
	return f | syscall.O_RDWR
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if !n.IsDir() && n.Mode()&syscall.S_IFMT != syscall.S_IFREG {
		return n.LoopbackNode.Open(ctx, flags)
	}
	h, errno := n.lfs.open(n.backingPath(), openFlags(flags), flags&syscall.O_TRUNC != 0)
	if errno != 0 {
		return nil, 0, errno
	}
	return h, fuse.FOPEN_DIRECT_IO, 0
}

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	// The loopback creates the name in the backing directory (a
	// namespace change, kept at once); its handle is replaced by one on
	// the cache.
	ch, lh, _, errno := n.LoopbackNode.Create(ctx, name, flags&^syscall.O_TRUNC, mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	if r, ok := lh.(fs.FileReleaser); ok {
		r.Release(ctx)
	}
	h, errno := n.lfs.open(filepath.Join(n.backingPath(), name), openFlags(flags), flags&syscall.O_TRUNC != 0)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	n.lfs.patch(&out.Attr)
	return ch, h, fuse.FOPEN_DIRECT_IO, 0
}

func (n *node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if h, ok := f.(*handle); ok {
		return h.Getattr(ctx, out)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(n.backingPath(), &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStat(&st)
	n.lfs.patch(&out.Attr)
	return 0
}

func (n *node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if size, ok := in.GetSize(); ok {
		if errno := n.lfs.truncate(n.backingPath(), f, int64(size)); errno != 0 {
			return errno
		}
	}
	// The rest (mode, owner, times) is metadata the loopback sets on the
	// backing file at once; without a handle it works by path.
	rest := *in
	rest.Valid &^= fuse.FATTR_SIZE
	if rest.Valid&^(fuse.FATTR_FH|fuse.FATTR_LOCKOWNER) != 0 {
		if errno := n.LoopbackNode.Setattr(ctx, nil, &rest, out); errno != 0 {
			return errno
		}
	}
	return n.Getattr(ctx, f, out)
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	p := filepath.Join(n.backingPath(), name)
	var st syscall.Stat_t
	statErr := syscall.Lstat(p, &st)
	if errno := n.LoopbackNode.Unlink(ctx, name); errno != 0 {
		return errno
	}
	if statErr == nil && st.Nlink <= 1 {
		n.lfs.forget(st.Ino)
	}
	return 0
}

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	np, ok := newParent.(*node)
	if !ok {
		return syscall.EXDEV
	}
	// A rename over a file unlinks the file it replaces.
	var st syscall.Stat_t
	statErr := syscall.Lstat(filepath.Join(np.backingPath(), newName), &st)
	if errno := n.LoopbackNode.Rename(ctx, name, &np.LoopbackNode, newName, flags); errno != 0 {
		return errno
	}
	const exchange = 2 // RENAME_EXCHANGE: both files live on
	if statErr == nil && flags&exchange == 0 && st.Nlink <= 1 && st.Mode&syscall.S_IFMT == syscall.S_IFREG {
		n.lfs.forget(st.Ino)
	}
	return 0
}

// handle is an open regular file: reads and writes go to its file's
// cache. A handle opened before a power loss is dead afterwards: it
// belonged to a process of the machine that lost its power.
type handle struct {
	lfs *FS
	f   *file
}

var (
	_ fs.FileReader    = (*handle)(nil)
	_ fs.FileWriter    = (*handle)(nil)
	_ fs.FileFsyncer   = (*handle)(nil)
	_ fs.FileFlusher   = (*handle)(nil)
	_ fs.FileReleaser  = (*handle)(nil)
	_ fs.FileGetattrer = (*handle)(nil)
)

func (h *handle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h.lfs.mu.Lock()
	defer h.lfs.mu.Unlock()
	if h.f.dead {
		return nil, syscall.EIO
	}
	n, err := h.f.readAt(dest, off)
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	return fuse.ReadResultData(dest[:n]), 0
}

func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	h.lfs.mu.Lock()
	defer h.lfs.mu.Unlock()
	if h.f.dead {
		return 0, syscall.EIO
	}
	if err := h.f.writeAt(data, off); err != nil {
		return 0, fs.ToErrno(err)
	}
	return uint32(len(data)), 0
}

// Fsync serves fsync and fdatasync alike: both write the file's cache
// down.
func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	h.lfs.mu.Lock()
	defer h.lfs.mu.Unlock()
	if h.f.dead {
		return syscall.EIO
	}
	if err := h.f.sync(); err != nil {
		return syscall.EIO
	}
	h.lfs.syncs++
	return 0
}

// Flush (close(2)) syncs nothing: closing a file does not make it durable.
func (h *handle) Flush(ctx context.Context) syscall.Errno { return 0 }

func (h *handle) Release(ctx context.Context) syscall.Errno {
	h.lfs.release(h.f)
	return 0
}

func (h *handle) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	h.lfs.mu.Lock()
	defer h.lfs.mu.Unlock()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(h.f.fd.Fd()), &st); err != nil {
		return fs.ToErrno(err)
	}
	out.FromStat(&st)
	if !h.f.dead {
		out.Size = uint64(h.f.size)
		out.Blocks = (out.Size + 511) / 512
	}
	return 0
}

// open returns a handle on the cache of the regular file at path, making
// the cache on first use.
func (l *FS) open(path string, flags int, trunc bool) (*handle, syscall.Errno) {
	fd, err := os.OpenFile(path, flags, 0)
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(fd.Fd()), &st); err != nil {
		fd.Close()
		return nil, fs.ToErrno(err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.files[st.Ino]
	if ok {
		fd.Close()
	} else {
		if f, err = newFile(fd); err != nil {
			fd.Close()
			return nil, fs.ToErrno(err)
		}
		f.ino = st.Ino
		l.files[st.Ino] = f
	}
	if trunc {
		if err := f.truncate(0); err != nil {
			return nil, fs.ToErrno(err)
		}
	}
	f.refs++
	return &handle{lfs: l, f: f}, 0
}

// release drops a handle's reference; a file nobody has open and that
// holds nothing unsynced leaves the cache.
func (l *FS) release(f *file) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f.refs--
	if f.refs > 0 {
		return
	}
	cached := l.files[f.ino] == f
	switch {
	case !cached:
		// Dropped by a power loss, or its last name is gone.
		f.fd.Close()
	case !f.dirty():
		delete(l.files, f.ino)
		f.fd.Close()
	}
}

// truncate sets the size of the file at path (through h, if the caller
// has it open) in the cache.
func (l *FS) truncate(path string, fh fs.FileHandle, size int64) syscall.Errno {
	h, ok := fh.(*handle)
	if !ok {
		var errno syscall.Errno
		if h, errno = l.open(path, syscall.O_RDWR, false); errno != 0 {
			return errno
		}
		defer h.Release(context.Background())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if h.f.dead {
		return syscall.EIO
	}
	return fs.ToErrno(h.f.truncate(size))
}

// patch sets the size that readers see on attributes read from the
// backing file.
func (l *FS) patch(a *fuse.Attr) {
	if a.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.files[a.Ino]; ok {
		a.Size = uint64(f.size)
		a.Blocks = (a.Size + 511) / 512
	}
}

// forget detaches the cache of an inode whose last name went: its number
// may be reused by a new file. Open handles keep the detached cache.
func (l *FS) forget(ino uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.files[ino]
	if !ok {
		return
	}
	delete(l.files, ino)
	if f.refs == 0 {
		f.fd.Close()
	}
}
