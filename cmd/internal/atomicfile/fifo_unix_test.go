//go:build unix

package atomicfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO nobody reads is waited for where ctx ends the wait, with ctx's
// cause; once a reader comes, what is written reaches it.
func TestCreateContextFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "out")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("a signal")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(100*time.Millisecond, func() { cancel(stop) })
	_, err := CreateContext(ctx, fifo)
	if !errors.Is(err, stop) {
		t.Fatalf("want the context's cause, got %v", err)
	}
	if want := "nobody opened the pipe " + fifo + " to read it: a signal"; err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}

	got := make(chan string, 1)
	go func() {
		r, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer r.Close()
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	f, err := CreateContext(context.Background(), fifo)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Direct() {
		t.Fatal("a FIFO is written directly")
	}
	f.WriteString("point,runs\n")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "point,runs\n" {
		t.Fatalf("the reader got %q", s)
	}
}
