package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// File is an output file under way: write through its bufio.Writer, then
// Commit (or Abort).
type File struct {
	*bufio.Writer
	name   string // as given to Create
	path   string // the file that is replaced: the name, or its links' target
	f      *os.File
	direct bool
	done   bool
}

// Create starts writing path. See the package comment for what happens
// to a link or a special file.
func Create(path string) (*File, error) {
	target, err := filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A new file, or a dangling link: a dangling link is written
		// through as well, to where it points.
		target = danglingTarget(path)
	case err != nil:
		return nil, err
	default:
		fi, err := os.Stat(target)
		if err != nil {
			return nil, err
		}
		if fi.IsDir() {
			return nil, &fs.PathError{Op: "write", Path: path, Err: errors.New("is a directory")}
		}
		if !fi.Mode().IsRegular() {
			f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				return nil, err
			}
			return &File{Writer: bufio.NewWriterSize(f, 1<<16), name: path, path: target, f: f, direct: true}, nil
		}
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &File{Writer: bufio.NewWriterSize(f, 1<<16), name: path, path: target, f: f}, nil
}

// danglingTarget follows path's links as far as they go and returns the
// last name, which does not exist; path itself if it is no link.
func danglingTarget(path string) string {
	for range 40 { // as the kernel's own limit on links followed
		dest, err := os.Readlink(path)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return path
}

// Name is the name given to Create.
func (a *File) Name() string { return a.name }

// Direct reports whether the file is written in place (a device, a pipe)
// rather than atomically.
func (a *File) Direct() bool { return a.direct }

// Commit flushes the data and puts the file in place: renamed over the
// target (mode 0644, fsynced, and its directory fsynced), or, written
// directly, closed.
func (a *File) Commit() error {
	if a.done {
		return errors.New("atomicfile: commit after commit or abort")
	}
	a.done = true
	err := a.Flush()
	if a.direct {
		if cerr := a.f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if err == nil {
		err = a.f.Chmod(0o644)
	}
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
		return err
	}
	SyncDir(a.path)
	return nil
}

// Abort drops the file: the temporary file is removed and the target left
// as it was (a file written directly keeps what was written).
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	if !a.direct {
		os.Remove(a.f.Name())
	}
}

// Write writes data to path as Create and Commit do.
func Write(path string, data []byte) (direct bool, err error) {
	f, err := Create(path)
	if err != nil {
		return false, err
	}
	if _, err := f.Writer.Write(data); err != nil {
		f.Abort()
		return f.direct, err
	}
	return f.direct, f.Commit()
}

// WriteFrom writes what w writes to path as Create and Commit do; a
// failure leaves path as it was and no temporary file behind.
func WriteFrom(path string, w io.WriterTo) error {
	f, err := Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err = w.WriteTo(f); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// SyncDir fsyncs the directory holding path, so that a created or renamed
// entry survives a crash. Errors are ignored: not every system can.
func SyncDir(path string) {
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
}
