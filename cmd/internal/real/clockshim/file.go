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

// Write writes c's segments to a new clock file at path, not started: until
// Start, a process reading it sees the machine's real clock.
func Write(path string, c *clocks.Clock) error {
	segs := c.Segments()
	if len(segs) > maxSegments {
		return fmt.Errorf("clockshim: the clock has %d segments, more than the %d the library reads", len(segs), maxSegments)
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
		return fmt.Errorf("clockshim: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("clockshim: write %s: %w", path, err)
	}
	return f.Close()
}

// Start starts the clock in the file at path: true time 0 is
// CLOCK_MONOTONIC t0 (ns), when the machine's wall clock read epoch. Every
// process mapping the file reads epoch + Local(CLOCK_MONOTONIC - t0) from
// then on. It maps the file's shared page read-write and stores the epoch,
// then T0, each with one aligned 8-byte atomic store, which the library's
// atomic loads see whole; it loads T0 first, so no reader sees a T0
// without its epoch.
func Start(path string, t0 int64, epoch time.Time) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("clockshim: %w", err)
	}
	defer f.Close()
	mem, err := syscall.Mmap(int(f.Fd()), 0, headerSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("clockshim: map %s: %w", path, err)
	}
	if string(mem[:len(magic)]) != magic {
		syscall.Munmap(mem)
		return fmt.Errorf("clockshim: %s is not a clock file", path)
	}
	atomic.StoreInt64((*int64)(unsafe.Pointer(&mem[offEpoch])), epoch.UnixNano())
	atomic.StoreInt64((*int64)(unsafe.Pointer(&mem[offT0])), t0)
	return syscall.Munmap(mem)
}

// Env returns the environment entries that make a child read the clock in
// the file at path through the library lib.
func Env(lib, path string) []string {
	return []string{"LD_PRELOAD=" + lib, EnvVar + "=" + path}
}
