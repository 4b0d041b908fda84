//go:build unix

package sweeprun

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock (flock) on f without waiting.
// It reports errLocked when another process holds it. The lock goes with
// the file descriptor: closing f, or the process ending however it ends,
// releases it, so a killed sweep never leaves a stale lock.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}
