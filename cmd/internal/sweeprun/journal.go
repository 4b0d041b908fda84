package sweeprun

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/atomicfile"
)

// The journal keeps every finished run of a sweep that is under way, so
// that an interrupted sweep (Ctrl-C, SIGTERM, kill -9, a machine crash)
// loses no finished run and --resume can continue it.
//
// It is a file of fixed-size slots, one per run of the shard in run order,
// after a text header:
//
//	bytes 0..255   "redlocksim sweep journal v1 spec=HASH shard=K/N points=M seeds=S",
//	               then, for an adaptive sweep, " ci_width=W batch=B";
//	               padded with spaces, '\n' at byte 255
//	slot i         at 256 + 128·i, little-endian:
//	  0..3   magic "RUN1"
//	  4..7   CRC-32C of bytes 8..127
//	  8..15  i, the run's index in the shard
//	  16..23 the run's seed
//	  24..127 the 13 counts of a record (see record.fields)
//
// A run is written to its slot with one pwrite as soon as it finishes (in
// whatever order the workers finish), so that after kill -9 the kernel
// still has it; the file is fsynced about once a second and at the end, so
// a machine crash loses at most the last second. A slot that was never
// written reads as zeros (or lies past the end of the file), and a slot
// that was half-written fails its CRC: either way the run is made again.
//
// Fixed slots, rather than appended lines, keep memory flat on resume and
// at the end: the slots are read in order, so the output is written
// point by point without sorting or holding the runs. An adaptive sweep
// has S slots per point, of which a point that stops early uses the
// first few: the file is sparse, and opening it reads only the regions
// that hold data (see held), so its cost is what the journal holds, not
// the sweep's size.
const (
	headerSize = 256
	slotSize   = 128
	slotMagic  = "RUN1"
	nFields    = 13
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// record is what a sweep keeps of one run: the checker's counts.
type record struct {
	Seed                uint64
	MutexViolations     int64
	MutexOverlap        int64 // ns
	LostUpdates         int64
	StaleWritesAccepted int64
	StaleWritesRejected int64
	WritesAccepted      int64
	AcquireAttempts     int64
	AcquireSuccesses    int64
	AcquireFailures     int64
	AcquireP50          int64 // ns
	AcquireP99          int64 // ns
	Unavailable         int64 // ns
	LongestOutage       int64 // ns
}

func (r *record) fields() *[nFields]*int64 {
	return &[nFields]*int64{
		&r.MutexViolations, &r.MutexOverlap, &r.LostUpdates, &r.StaleWritesAccepted, &r.StaleWritesRejected,
		&r.WritesAccepted, &r.AcquireAttempts, &r.AcquireSuccesses, &r.AcquireFailures,
		&r.AcquireP50, &r.AcquireP99, &r.Unavailable, &r.LongestOutage,
	}
}

// mutex and resource say whether the run broke mutual exclusion, and the
// resource's safety.
func (r *record) mutex() bool    { return r.MutexViolations > 0 }
func (r *record) resource() bool { return r.LostUpdates+r.StaleWritesAccepted > 0 }

func (r *record) encode(i int, b *[slotSize]byte) {
	copy(b[0:4], slotMagic)
	binary.LittleEndian.PutUint64(b[8:], uint64(i))
	binary.LittleEndian.PutUint64(b[16:], r.Seed)
	for k, f := range r.fields() {
		binary.LittleEndian.PutUint64(b[24+8*k:], uint64(*f))
	}
	binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(b[8:], castagnoli))
}

// decode reads slot i; ok is false for a slot never (or half) written.
func decode(i int, b []byte) (r record, ok bool) {
	if string(b[0:4]) != slotMagic || binary.LittleEndian.Uint32(b[4:]) != crc32.Checksum(b[8:slotSize], castagnoli) {
		return r, false
	}
	if binary.LittleEndian.Uint64(b[8:]) != uint64(i) {
		return r, false
	}
	r.Seed = binary.LittleEndian.Uint64(b[16:])
	for k, f := range r.fields() {
		*f = int64(binary.LittleEndian.Uint64(b[24+8*k:]))
	}
	return r, true
}

type journal struct {
	path     string
	f        *os.File
	runs     int
	lastSync time.Time
	every    time.Duration
	buf      [slotSize]byte
}

// JournalError is a journal that cannot be used as asked: there is one and
// --resume was not given, or it belongs to another sweep.
type JournalError struct {
	Path string
	Msg  string
}

func (e *JournalError) Error() string { return e.Path + ": " + e.Msg }

// journalKind is "sweep" or "hunt", from a journal header.
func journalKind(header string) string {
	if f := strings.Fields(header); len(f) > 1 {
		return f[1]
	}
	return "sweep"
}

// errLocked is a journal another process holds locked.
var errLocked = errors.New("locked")

func lockError(path string, err error) error {
	if errors.Is(err, errLocked) {
		return &JournalError{Path: path, Msg: "another sweep or hunt is using this journal right now (it holds its lock): wait for it to finish, or stop it and run this command with --resume"}
	}
	return fmt.Errorf("lock %s: %w", path, err)
}

// journalHeader is a sweep journal's first line; sampling is "" for a
// sweep of fixed seeds, or an adaptive sweep's " ci_width=W batch=B"
// (seeds is then the most a point may take).
func journalHeader(hash, shard string, points, seeds int, sampling string) string {
	return fmt.Sprintf("redlocksim sweep journal v1 spec=%s shard=%s points=%d seeds=%d%s", hash, shard, points, seeds, sampling)
}

// createJournal makes a new journal; it fails if path exists.
func createJournal(path, header string, runs int, every time.Duration) (*journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		// Another sweep opened the file in the instant since we made it.
		f.Close()
		return nil, lockError(path, err)
	}
	h := bytes.Repeat([]byte{' '}, headerSize)
	copy(h, header)
	h[headerSize-1] = '\n'
	if _, err := f.Write(h); err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	syncDir(path)
	return &journal{path: path, f: f, runs: runs, lastSync: time.Now(), every: every}, nil
}

// openJournal opens an existing journal, locks it, and checks that it is
// this sweep's. Without resume, an existing journal that no sweep is
// using is an error that says how to continue it.
func openJournal(path, header string, runs int, every time.Duration, resume bool) (*journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, lockError(path, err)
	}
	if !resume {
		f.Close()
		return nil, &JournalError{Path: path, Msg: "an interrupted " + journalKind(header) + " left this journal: give --resume to continue it, or remove it to start again"}
	}
	h := make([]byte, headerSize)
	n, err := io.ReadFull(f, h)
	if err != nil {
		f.Close()
		// Cut short (a disk full, a copy interrupted): not another
		// sweep's, and nothing in it can be trusted.
		return nil, &JournalError{Path: path, Msg: fmt.Sprintf("is cut short: %d bytes, less than its %d-byte header; it cannot be resumed: remove it to start again", n, headerSize)}
	}
	if strings.TrimRight(string(h), " \n") != header {
		f.Close()
		got := strings.TrimRight(string(h), " \n\x00")
		if i := strings.IndexByte(got, '\n'); i >= 0 || len(got) > 200 || !strings.HasPrefix(got, "redlocksim ") {
			got = "not a sweep journal"
		}
		return nil, &JournalError{Path: path, Msg: fmt.Sprintf("belongs to another %s (%s; this one is %s): remove it to start again, or give the options that made it", journalKind(header), got, header)}
	}
	return &journal{path: path, f: f, runs: runs, lastSync: time.Now(), every: every}, nil
}

// useJournal opens the journal at path, or creates it if there is none.
func useJournal(path, header string, runs int, every time.Duration, resume bool) (*journal, error) {
	switch _, err := os.Stat(path); {
	case err == nil:
		return openJournal(path, header, runs, every, resume)
	case errors.Is(err, fs.ErrNotExist):
		return createJournal(path, header, runs, every)
	default:
		return nil, err
	}
}

// done returns which runs the journal holds, a bit per run, and how many.
// It reads only what the file holds (see held), so opening the journal of
// a large sweep that has barely begun costs what it holds, not the
// sweep's size.
func (j *journal) done() (bits []uint64, n int, err error) {
	bits = make([]uint64, (j.runs+63)/64)
	err = j.held(func(i int, _ *record) {
		bits[i/64] |= 1 << (i % 64)
		n++
	})
	return bits, n, err
}

// outcomes is done with, as well, which of the runs broke mutual
// exclusion: what an adaptive sweep's rule decides from.
func (j *journal) outcomes() (done, violated bitset, n int, err error) {
	done, violated = newBitset(j.runs), newBitset(j.runs)
	err = j.held(func(i int, r *record) {
		done.set(i)
		if r.mutex() {
			violated.set(i)
		}
		n++
	})
	return done, violated, n, err
}

// held calls fn for each slot that holds a finished run, in order. It
// reads only the part of the file that exists, and within it only the
// regions with data (dataRegions): a slot past the end of the file or in
// a hole was never written.
func (j *journal) held(fn func(i int, r *record)) error {
	fi, err := j.f.Stat()
	if err != nil {
		return err
	}
	end := min(fi.Size(), headerSize+int64(j.runs)*slotSize)
	regions, err := dataRegions(j.f, headerSize, end)
	if err != nil {
		return err
	}
	b := make([]byte, slotSize)
	var rd *bufio.Reader
	for _, reg := range regions {
		first := (reg[0] - headerSize) / slotSize // the slot the region starts in
		off := headerSize + first*slotSize
		sr := io.NewSectionReader(j.f, off, reg[1]-off)
		if rd == nil {
			rd = bufio.NewReaderSize(sr, 64*slotSize)
		} else {
			rd.Reset(sr)
		}
		for i := int(first); ; i++ {
			if _, err := io.ReadFull(rd, b); err != nil {
				if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
					break
				}
				return err
			}
			if r, ok := decode(i, b); ok {
				fn(i, &r)
			}
		}
	}
	return nil
}

// put writes run i's record to its slot, and fsyncs if the last sync is
// older than the period.
func (j *journal) put(i int, r record) error {
	r.encode(i, &j.buf)
	if _, err := j.f.WriteAt(j.buf[:], headerSize+int64(i)*slotSize); err != nil {
		return err
	}
	if time.Since(j.lastSync) >= j.every {
		return j.sync()
	}
	return nil
}

func (j *journal) sync() error {
	j.lastSync = time.Now()
	return j.f.Sync()
}

func (j *journal) close() error { return j.f.Close() }

// scan calls fn for each slot in order with its record, and whether it
// holds a finished run.
func (j *journal) scan(fn func(i int, r record, ok bool) error) error {
	rd := bufio.NewReaderSize(io.NewSectionReader(j.f, headerSize, int64(j.runs)*slotSize), 64*slotSize)
	b := make([]byte, slotSize)
	for i := 0; i < j.runs; i++ {
		var r record
		ok := false
		if _, err := io.ReadFull(rd, b); err == nil {
			r, ok = decode(i, b)
		} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return err
		}
		if err := fn(i, r, ok); err != nil {
			return err
		}
	}
	return nil
}

func syncDir(path string) { atomicfile.SyncDir(path) }

// slotReader reads a journal's slots in increasing order, skipping
// forward (an adaptive point's unused slots) without reading what it
// skips when the gap is large.
type slotReader struct {
	j   *journal
	rd  *bufio.Reader
	pos int // the slot rd reads next
	b   []byte
}

func (j *journal) slots() *slotReader { return &slotReader{j: j, pos: -1, b: make([]byte, slotSize)} }

// read returns slot i's record, and whether it holds a finished run.
func (s *slotReader) read(i int) (record, bool, error) {
	if s.rd == nil || s.pos < 0 || i < s.pos || i-s.pos > 64 {
		sr := io.NewSectionReader(s.j.f, headerSize+int64(i)*slotSize, int64(s.j.runs-i)*slotSize)
		if s.rd == nil {
			s.rd = bufio.NewReaderSize(sr, 64*slotSize)
		} else {
			s.rd.Reset(sr)
		}
	} else if i > s.pos {
		if _, err := s.rd.Discard((i - s.pos) * slotSize); err != nil {
			s.pos = -1
			return record{}, false, nil // past the end of the file: never written
		}
	}
	s.pos = i + 1
	if _, err := io.ReadFull(s.rd, s.b); err != nil {
		s.pos = -1 // read again from i next time
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return record{}, false, nil
		}
		return record{}, false, err
	}
	r, ok := decode(i, s.b)
	return r, ok, nil
}
