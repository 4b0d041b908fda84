package belief

import "testing"

// closed reports whether c is closed, without waiting.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// A belief ends once however often it is ended, and a release ends it
// but is refused the second time.
func TestEndAndReleaseComeOnce(t *testing.T) {
	b := New()
	if closed(b.Lost()) || closed(b.Released()) {
		t.Fatal("a new belief has ended or been released")
	}
	b.End()
	b.End()
	if !closed(b.Lost()) || closed(b.Released()) {
		t.Fatal("End must close Lost and only Lost")
	}
	if !b.Release() {
		t.Fatal("the first release of an ended belief was refused")
	}
	if !closed(b.Released()) {
		t.Fatal("Release did not close Released")
	}
	if b.Release() {
		t.Fatal("a second release was accepted")
	}
}

// Releasing a belief that still holds ends it.
func TestReleaseEnds(t *testing.T) {
	b := New()
	if !b.Release() {
		t.Fatal("the first release was refused")
	}
	if !closed(b.Lost()) {
		t.Fatal("Release did not end the belief")
	}
}
