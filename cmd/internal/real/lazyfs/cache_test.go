package lazyfs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"
)

// TestCacheMatchesModel drives a file's cache with random writes,
// truncates, syncs and drops, against a model of two byte slices: what
// readers see and what was last synced. After each step the cache must
// read as the first; after a drop, and in the backing file after a sync,
// as the second.
func TestCacheMatchesModel(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		path := filepath.Join(dir, "f")
		initial := rapid.SliceOfN(rapid.Byte(), 0, 3*pageSize).Draw(t, "initial")
		if err := os.WriteFile(path, initial, 0o644); err != nil {
			t.Fatal(err)
		}
		fd, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer fd.Close()
		f, err := newFile(fd)
		if err != nil {
			t.Fatal(err)
		}
		seen := bytes.Clone(initial)
		synced := bytes.Clone(initial)
		for step := range rapid.IntRange(1, 30).Draw(t, "steps") {
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 5:
				off := rapid.IntRange(0, 4*pageSize).Draw(t, "off")
				data := rapid.SliceOfN(rapid.Byte(), 1, 2*pageSize).Draw(t, "data")
				if err := f.writeAt(data, int64(off)); err != nil {
					t.Fatal(err)
				}
				if grow := off + len(data) - len(seen); grow > 0 {
					seen = append(seen, make([]byte, grow)...)
				}
				copy(seen[off:], data)
			case op < 7:
				size := rapid.IntRange(0, 4*pageSize).Draw(t, "size")
				if err := f.truncate(int64(size)); err != nil {
					t.Fatal(err)
				}
				if size < len(seen) {
					seen = seen[:size]
				} else {
					seen = append(seen, make([]byte, size-len(seen))...)
				}
			case op < 8:
				if err := f.sync(); err != nil {
					t.Fatal(err)
				}
				synced = bytes.Clone(seen)
				onDisk, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(onDisk, synced) {
					t.Fatalf("step %d: the backing file after sync has %d bytes, want the %d the cache showed", step, len(onDisk), len(synced))
				}
			default:
				if err := f.drop(); err != nil {
					t.Fatal(err)
				}
				seen = bytes.Clone(synced)
			}
			if f.size != int64(len(seen)) {
				t.Fatalf("step %d: size %d, want %d", step, f.size, len(seen))
			}
			got := make([]byte, len(seen)+pageSize)
			n, err := f.readAt(got, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[:n], seen) {
				t.Fatalf("step %d: the cache reads %d bytes that differ from the %d written", step, n, len(seen))
			}
		}
	})
}
