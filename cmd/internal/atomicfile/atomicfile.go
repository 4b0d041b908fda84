package atomicfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
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
	stop   func() bool // ends the watch of CreateContext's ctx, if any
}

// Create starts writing path. See the package comment for what happens
// to a link or a special file.
func Create(path string) (*File, error) { return CreateContext(context.Background(), path) }

// CreateContext is Create for a command that a signal may stop: a FIFO
// without a reader, which open(2) would wait for in a call no signal
// interrupts, is opened without blocking and tried again every
// fifoRetry until a reader comes or ctx ends (then ctx's cause is
// returned). A FIFO or device so opened is written through Go's poller.
func CreateContext(ctx context.Context, path string) (*File, error) {
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
			f, err := openSpecial(ctx, target, fi.Mode())
			if err != nil {
				return nil, err
			}
			// A reader that stops reading would hold a write for ever:
			// ctx's end makes it fail (where the file is pollable).
			stop := context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Unix(1, 0)) })
			return &File{Writer: bufio.NewWriterSize(f, 1<<16), name: path, path: target, f: f, direct: true, stop: stop}, nil
		}
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &File{Writer: bufio.NewWriterSize(f, 1<<16), name: path, path: target, f: f}, nil
}

// openSpecial opens a device or a FIFO for writing; a FIFO through
// openFIFO, whose wait for a reader ctx ends.
func openSpecial(ctx context.Context, path string, mode fs.FileMode) (*os.File, error) {
	if mode&fs.ModeNamedPipe == 0 {
		return os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	}
	return openFIFO(ctx, path)
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
	if a.stop != nil {
		defer a.stop()
	}
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
	if a.stop != nil {
		a.stop()
	}
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
