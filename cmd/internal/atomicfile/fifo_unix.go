//go:build unix

package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// fifoRetry is how often a FIFO without a reader is tried again.
const fifoRetry = 50 * time.Millisecond

// openFIFO opens a FIFO for writing with O_NONBLOCK, which fails with
// ENXIO while nobody reads it instead of blocking in open(2), where no
// signal reaches the command; it tries again every fifoRetry until a
// reader comes or ctx ends (then it returns ctx's cause). The file stays
// non-blocking: Go's poller waits for its writes, and a deadline ends them.
func openFIFO(ctx context.Context, path string) (*os.File, error) {
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if !errors.Is(err, syscall.ENXIO) {
			return f, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("nobody opened the pipe %s to read it: %w", path, context.Cause(ctx))
		case <-time.After(fifoRetry):
		}
	}
}
