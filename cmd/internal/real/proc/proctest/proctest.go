package proctest

import (
	"os"
	"testing"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

// Unavailable ends tb for a real component that cannot be used: err says
// why and names the Debian package. Under CI=true it fails, else it skips.
func Unavailable(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("CI=true and %v", err)
		return
	}
	tb.Skipf("skipping a real run: %v", err)
}

// Need returns the path of binary, or ends tb through Unavailable with
// proc.LookPath's error, which names pkg.
func Need(tb testing.TB, binary, pkg string) string {
	tb.Helper()
	path, err := proc.LookPath(binary, pkg)
	if err != nil {
		Unavailable(tb, err)
	}
	return path
}
