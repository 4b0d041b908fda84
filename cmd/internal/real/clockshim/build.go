package clockshim

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

//go:embed csrc/clockshim.c
var source []byte

// flags compile the library. They are part of the cache key, so a change
// here builds a fresh library rather than reusing one built otherwise.
var flags = []string{"-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror"}

var built struct {
	once sync.Once
	path string
	err  error
}

// Library returns the path of the compiled clock library, compiling it on
// first use into the user's cache directory (see doc.go). A machine
// without a C compiler gets an error wrapping a *proc.MissingError that
// names the Debian package gcc; commands exit 2 on it.
func Library() (string, error) {
	built.once.Do(func() {
		dir, err := os.UserCacheDir()
		if err != nil {
			built.err = fmt.Errorf("clockshim: no cache directory to build the clock library in: %w", err)
			return
		}
		built.path, built.err = build(filepath.Join(dir, "redlocksim"))
	})
	return built.path, built.err
}

// Compiler finds the machine's C compiler: cc, or else gcc.
func Compiler() (string, error) {
	for _, name := range []string{"cc", "gcc"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("clockshim: the node clock library is C, compiled on first use: %w",
		&proc.MissingError{Binary: "cc (a C compiler)", Package: "gcc"})
}

// libName is the library's file name: a hash of its source and flags, so
// that a changed library never reuses an old build.
func libName() string {
	h := sha256.New()
	h.Write(source)
	h.Write([]byte(strings.Join(flags, "\x00")))
	return "clockshim-" + hex.EncodeToString(h.Sum(nil)[:12]) + ".so"
}

// build compiles the library into dir unless it is there already. The
// compiler writes a temporary file that is renamed into place, so runs
// compiling at once each finish with a whole library: the last rename
// wins, and every build is the same bytes.
func build(dir string) (string, error) {
	path := filepath.Join(dir, libName())
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	cc, err := Compiler()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("clockshim: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".clockshim-*.so.tmp")
	if err != nil {
		return "", fmt.Errorf("clockshim: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name()) // a no-op once renamed
	cmd := exec.Command(cc, append(slices.Clone(flags), "-o", tmp.Name(), "-x", "c", "-")...)
	cmd.Stdin = bytes.NewReader(source)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("clockshim: compile the clock library with %s: %w\n%s", cc, err, out)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("clockshim: %w", err)
	}
	return path, nil
}
