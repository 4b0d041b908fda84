package resource

import (
	"testing"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/proto"
)

// BenchmarkReadWrite is one read-modify-write round trip through the kernel
// and the network: a read, its reply, a write based on it, its reply and
// its observation. With tracing off it should allocate nothing but the
// amortized growth of the version history.
func BenchmarkReadWrite(b *testing.B) {
	for _, mode := range []Mode{Unprotected, Fencing, CompareAndSet} {
		b.Run(mode.String(), func(b *testing.B) {
			w := newWorld(b, 1, false)
			w.keepObs = false
			res := New(Config{Mode: mode})
			at := w.add("resource", res, clocks.Spec{}).self
			c := w.addProbe("c1")
			c.keep = false
			b.ReportAllocs()
			for i := range uint64(b.N) {
				c.send(at, proto.Msg{Kind: proto.ResourceRead, Req: 2 * i, Lock: 42, Token: i})
				w.k.Run()
				c.send(at, proto.Msg{Kind: proto.ResourceWrite, Req: 2*i + 1, Int: c.last.Int, Value: i, Lock: 42, Token: i})
				w.k.Run()
			}
			b.StopTimer()
			if st := res.Stats(); st.Accepted != uint64(b.N) || w.observed != b.N {
				b.Fatalf("stats %+v, %d observations after %d rounds", st, w.observed, b.N)
			}
		})
	}
}
