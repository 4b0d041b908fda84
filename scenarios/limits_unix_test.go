//go:build unix

package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLargePipeIsRefused: a pipe has no size; it is refused after at most
// one byte past MaxFileBytes is read, however much the writer has.
func TestLargePipeIsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.toml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		chunk := make([]byte, 64<<10)
		for range 64 { // 4 MiB, more than the reader takes
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}()
	if _, err := Load(fifo); err == nil || !strings.Contains(err.Error(), "the file is more than 1 MiB: too large") {
		t.Fatalf("got %v, want the pipe refused", err)

	}
}
