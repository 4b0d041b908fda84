package actortest

import (
	"testing"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
)

// Bench is the world a benchmark of one actor drives: untraced (the cost
// measured is a plain run's), seed 1, with a on an ideal clock under name
// and a probe c1, both started. It returns a's endpoint and the probe,
// whose Proc sends at once.
func Bench(b *testing.B, name string, a proto.Actor) (*World, network.Endpoint, *Probe) {
	b.Helper()
	w := New(b, 1, false)
	at := w.Add(name, a, clocks.Spec{}).Self()
	c := w.AddProbe("c1")
	w.Start()
	return w, at, c
}
