//go:build !unix

package atomicfile

import (
	"context"
	"os"
)

// openFIFO opens a named pipe for writing; only Unix has FIFOs to wait on.
func openFIFO(_ context.Context, path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
}
