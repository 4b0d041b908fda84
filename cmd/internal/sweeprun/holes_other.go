//go:build !linux

package sweeprun

import "os"

// dataRegions treats the whole range as data where the system has no
// portable way to find a sparse file's holes.
func dataRegions(f *os.File, start, end int64) ([][2]int64, error) {
	if start >= end {
		return nil, nil
	}
	return [][2]int64{{start, end}}, nil
}
