package clockshim

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/redlocksim/redlocksim/clocks"
)

// EnvVar names the clock file in the environment of a process that
// preloads the library.
const EnvVar = "REDLOCKSIM_CLOCK_FILE"

// The clock file's layout (doc.go).
const (
	magic       = "RLSCLK01"
	version     = 1
	headerSize  = 32
	segmentSize = 32
	offT0       = 16
	offEpoch    = 24
	// maxSegments bounds the file the library accepts; a clock has one
	// segment per step, rate change and slew (two or three), so a scenario
	// is far below it.
	maxSegments = 1 << 16
)

// File is a node's clock file, which the harness writes and keeps mapped
// read-write to start the clock at T0.
type File struct {
	Path string
	mem  []byte
}

// Write writes c's segments to a new clock file at path, not started: until
// Start, a process reading it sees the machine's real clock.
func Write(path string, c *clocks.Clock) (*File, error) {
	segs := c.Segments()
	if len(segs) > maxSegments {
		return nil, fmt.Errorf("clockshim: the clock has %d segments, more than the %d the library reads", len(segs), maxSegments)
	}
	b := make([]byte, headerSize+segmentSize*len(segs))
	copy(b, magic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], version)
	le.PutUint32(b[12:], uint32(len(segs)))
	for i, g := range segs {
		p := b[headerSize+segmentSize*i:]
		le.PutUint64(p[0:], uint64(g.At))
		le.PutUint64(p[8:], uint64(g.Local))
		le.PutUint64(p[16:], uint64(g.Frac))
		le.PutUint64(p[24:], uint64(g.Rate))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("clockshim: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return nil, fmt.Errorf("clockshim: write %s: %w", path, err)
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, len(b), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("clockshim: map %s: %w", path, err)
	}
	return &File{Path: path, mem: mem}, nil
}

// Start starts the clock: true time 0 is CLOCK_MONOTONIC t0 (ns), when the
// machine's wall clock read epoch. Every process mapping the file reads
// epoch + Local(CLOCK_MONOTONIC - t0) from then on. The epoch is stored
// before T0, and the library reads T0 first, so no reader sees a T0
// without its epoch. Both are aligned 8-byte atomic stores into the
// shared page, which the library's atomic loads see whole.
func (f *File) Start(t0 int64, epoch time.Time) {
	atomic.StoreInt64((*int64)(unsafe.Pointer(&f.mem[offEpoch])), epoch.UnixNano())
	atomic.StoreInt64((*int64)(unsafe.Pointer(&f.mem[offT0])), t0)
}

// Close unmaps the file; processes that mapped it keep reading it.
func (f *File) Close() error {
	if f.mem == nil {
		return nil
	}
	err := syscall.Munmap(f.mem)
	f.mem = nil
	return err
}

// Env returns the environment entries that make a child read the clock in
// the file at path through the library lib.
func Env(lib, path string) []string {
	return []string{"LD_PRELOAD=" + lib, EnvVar + "=" + path}
}
