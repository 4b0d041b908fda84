package proctest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how the test would have ended.
type recorder struct {
	testing.TB
	ended string
	msg   string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.ended, r.msg = "fatal", fmt.Sprintf(format, args...)
}
func (r *recorder) Skipf(format string, args ...any) {
	r.ended, r.msg = "skip", fmt.Sprintf(format, args...)
}

func TestUnavailableFailsInCIAndSkipsElsewhere(t *testing.T) {
	err := errors.New("no redis-server (install the Debian package redis-server)")
	t.Setenv("CI", "true")
	var r recorder
	Unavailable(&r, err)
	if r.ended != "fatal" || r.msg != "CI=true and "+err.Error() {
		t.Errorf("CI=true: ended %q with %q, want a failure naming the error", r.ended, r.msg)
	}
	t.Setenv("CI", "")
	r = recorder{}
	Unavailable(&r, err)
	if r.ended != "skip" || r.msg != "skipping a real run: "+err.Error() {
		t.Errorf("without CI: ended %q with %q, want a skip naming the error", r.ended, r.msg)
	}
}

func TestNeedNamesThePackage(t *testing.T) {
	t.Setenv("CI", "")
	var r recorder
	if p := Need(&r, "redlocksim-no-such-binary", "some-debian-package"); p != "" {
		t.Errorf("a missing binary has path %q", p)
	}
	if r.ended != "skip" {
		t.Fatalf("a missing binary ended the test with %q, want a skip", r.ended)
	}
	if want := "some-debian-package"; !strings.Contains(r.msg, want) {
		t.Errorf("skip message %q does not name the package %q", r.msg, want)
	}
	r = recorder{}
	if p := Need(&r, "sh", "dash"); p == "" || r.ended != "" {
		t.Errorf("sh: path %q, ended %q; want its path and the test going on", p, r.ended)
	}
}
