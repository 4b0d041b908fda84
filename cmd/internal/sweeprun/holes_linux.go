//go:build linux

package sweeprun

import (
	"errors"
	"os"
	"syscall"
)

// Linux's lseek whences that find the written parts of a sparse file.
const (
	seekData = 3
	seekHole = 4
)

// dataRegions returns the byte ranges of f from start to end that hold
// data, so that reading a journal skips the slots never written (an
// adaptive sweep's journal has holes where points stopped early). Where
// the file system cannot say, the whole range is data.
func dataRegions(f *os.File, start, end int64) ([][2]int64, error) {
	var out [][2]int64
	for off := start; off < end; {
		d, err := f.Seek(off, seekData)
		if errors.Is(err, syscall.ENXIO) {
			break // no data after off
		}
		if err != nil {
			return [][2]int64{{start, end}}, nil
		}
		if d >= end {
			break
		}
		h, err := f.Seek(d, seekHole)
		if err != nil {
			return [][2]int64{{start, end}}, nil
		}
		out = append(out, [2]int64{d, min(h, end)})
		off = h
	}
	return out, nil
}
