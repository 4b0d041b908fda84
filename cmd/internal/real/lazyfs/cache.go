package lazyfs

import (
	"fmt"
	"io"
	"os"
	"slices"
	"syscall"
)

// pageSize is the unit the cache keeps: a write dirties the pages it
// touches, as the kernel's page cache does.
const pageSize = 4096

// file is the page cache of one regular file: the backing file holds what
// was last synced, the dirty pages hold what was written since.
//
// Invariants (with a page's bytes counted from page*pageSize):
//   - valid <= size. Backing bytes at or past valid are stale: a truncate
//     cut them off in memory, and they read as zeros.
//   - A dirty page's bytes at or past size are zero, so extending the file
//     (a write past the end, a truncate up) needs no zeroing.
//
// The zero value is not usable; see newFile. Callers hold the FS lock.
type file struct {
	fd    *os.File         // the backing file, open read-write
	ino   uint64           // its inode number, the cache's key
	size  int64            // what the file's readers see, and stat shows
	valid int64            // backing bytes before valid are current
	pages map[int64][]byte // page index → pageSize bytes, dirty
	refs  int              // open handles
	dead  bool             // dropped by a power loss: its handles fail
}

func newFile(fd *os.File) (*file, error) {
	st, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	return &file{fd: fd, size: st.Size(), valid: st.Size(), pages: map[int64][]byte{}}, nil
}

// dirty reports whether the file holds anything a power loss would lose.
func (f *file) dirty() bool {
	if len(f.pages) > 0 {
		return true
	}
	st, err := f.fd.Stat()
	return err != nil || st.Size() != f.size || f.valid != f.size
}

// readClean fills buf with the synced contents at off: the backing file
// up to valid, zeros after.
func (f *file) readClean(buf []byte, off int64) error {
	clear(buf)
	n := int64(len(buf))
	if off >= f.valid {
		return nil
	}
	if off+n > f.valid {
		n = f.valid - off
	}
	_, err := f.fd.ReadAt(buf[:n], off)
	if err == io.EOF {
		// The backing file is shorter than valid only if something
		// outside the mount shrank it; what is missing reads as zeros.
		err = nil
	}
	return err
}

// readAt reads what the file's readers see: dirty pages over the synced
// contents, up to size. It returns the count read, 0 at the end.
func (f *file) readAt(buf []byte, off int64) (int, error) {
	if off >= f.size {
		return 0, nil
	}
	if rest := f.size - off; int64(len(buf)) > rest {
		buf = buf[:rest]
	}
	for done := 0; done < len(buf); {
		pos := off + int64(done)
		idx, in := pos/pageSize, int(pos%pageSize)
		chunk := min(len(buf)-done, pageSize-in)
		if p, ok := f.pages[idx]; ok {
			copy(buf[done:done+chunk], p[in:])
		} else if err := f.readClean(buf[done:done+chunk], pos); err != nil {
			return done, err
		}
		done += chunk
	}
	return len(buf), nil
}

// page returns the dirty page idx, making it from the synced contents
// unless the caller overwrites it whole.
func (f *file) page(idx int64, whole bool) ([]byte, error) {
	if p, ok := f.pages[idx]; ok {
		return p, nil
	}
	p := make([]byte, pageSize)
	if !whole {
		if err := f.readClean(p, idx*pageSize); err != nil {
			return nil, err
		}
		// Past size the page must be zero (the invariant), even where
		// the backing file still has bytes a truncate cut off.
		if end := f.size - idx*pageSize; end < pageSize {
			clear(p[max(end, 0):])
		}
	}
	f.pages[idx] = p
	return p, nil
}

// writeAt writes data at off into the cache; nothing reaches the backing
// file before sync.
func (f *file) writeAt(data []byte, off int64) error {
	if off < 0 {
		return syscall.EINVAL
	}
	for done := 0; done < len(data); {
		pos := off + int64(done)
		idx, in := pos/pageSize, int(pos%pageSize)
		chunk := min(len(data)-done, pageSize-in)
		p, err := f.page(idx, chunk == pageSize)
		if err != nil {
			return err
		}
		copy(p[in:], data[done:done+chunk])
		done += chunk
	}
	f.size = max(f.size, off+int64(len(data)))
	return nil
}

// truncate sets the size in the cache, as ftruncate would.
func (f *file) truncate(size int64) error {
	if size < 0 {
		return syscall.EINVAL
	}
	if size < f.size {
		for idx, p := range f.pages {
			start := idx * pageSize
			switch {
			case start >= size:
				delete(f.pages, idx)
			case start+pageSize > size:
				clear(p[size-start:])
			}
		}
		f.valid = min(f.valid, size)
	}
	f.size = size
	return nil
}

// sync writes the dirty pages and the size down to the backing file. The
// backing file is not fsynced itself: it stands for the disk, which this
// package never loses, so only the in-memory cache decides what a power
// loss keeps.
func (f *file) sync() error {
	st, err := f.fd.Stat()
	if err != nil {
		return err
	}
	// First cut what a truncate made stale, so that a later extension
	// reads zeros there and not the old bytes.
	if f.valid < st.Size() {
		if err := f.fd.Truncate(f.valid); err != nil {
			return fmt.Errorf("truncate the backing file: %w", err)
		}
	}
	idxs := make([]int64, 0, len(f.pages))
	for idx := range f.pages {
		idxs = append(idxs, idx)
	}
	slices.Sort(idxs)
	for _, idx := range idxs {
		start := idx * pageSize
		n := min(int64(pageSize), f.size-start)
		if n <= 0 {
			continue
		}
		if _, err := f.fd.WriteAt(f.pages[idx][:n], start); err != nil {
			return fmt.Errorf("write the backing file: %w", err)
		}
	}
	if err := f.fd.Truncate(f.size); err != nil {
		return fmt.Errorf("size the backing file: %w", err)
	}
	clear(f.pages)
	f.valid = f.size
	return nil
}

// drop forgets everything written since the last sync: a power loss.
func (f *file) drop() error {
	clear(f.pages)
	st, err := f.fd.Stat()
	if err != nil {
		return err
	}
	f.size, f.valid = st.Size(), st.Size()
	return nil
}
