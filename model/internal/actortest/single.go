package actortest

import (
	"testing"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/proto"
)

// Single is the world of one actor under test: a on an ideal clock under
// name and a probe c1 to drive it, both started; seed 1, narrated when
// trace is on (a benchmark measures a plain run's cost with it off). It
// returns a's Proc and the probe, whose Proc sends at once.
func Single(t testing.TB, trace bool, name string, a proto.Actor) (*World, *Proc, *Probe) {
	t.Helper()
	w := New(t, 1, trace)
	p := w.Add(name, a, clocks.Spec{})
	c := w.AddProbe("c1")
	w.Start()
	return w, p, c
}
