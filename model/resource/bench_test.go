package resource

import (
	"testing"

	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/proto"
)

// BenchmarkReadWrite is one read-modify-write round trip through the kernel
// and the network: a read, its reply, a write based on it, its reply and
// its observation. With tracing off it should allocate nothing but the
// amortized growth of the version tree's ring, up to its Window, and of the
// current set's bitmap.
func BenchmarkReadWrite(b *testing.B) {
	for _, mode := range []Mode{Unprotected, Fencing, CompareAndSet} {
		b.Run(mode.String(), func(b *testing.B) {
			res := New(Config{Mode: mode})
			w, p, c := actortest.Single(b, false, "resource", res)
			at, cp := p.Self(), c.Proc()
			b.ReportAllocs()
			for i := range uint64(b.N) {
				cp.Send(at, proto.Msg{Kind: proto.ResourceRead, Req: 2 * i, Lock: 42, Token: i})
				w.RunAll()
				cp.Send(at, proto.Msg{Kind: proto.ResourceWrite, Req: 2*i + 1, Int: c.Received()[0].Int, Value: i, Lock: 42, Token: i})
				w.RunAll()
				c.Forget()
				w.ForgetObservations()
			}
			b.StopTimer()
			// Two observations a round: the read (ReadDone) and the write (WriteDone).
			if st := res.Stats(); st.Accepted != uint64(b.N) || w.NumObserved() != 2*b.N {
				b.Fatalf("stats %+v, %d observations after %d rounds", st, w.NumObserved(), b.N)
			}
		})
	}
}

// BenchmarkWrite is the write path alone, driven without a kernel: writes
// of four interleaved clients' elements (client<<40 | serial, each client's
// serials rising in steps of two, as a client's lock values and elements
// share its serials), accepted unprotected. "current" bases every write on
// the current version, as a run without lost updates does; "stale" bases
// every fourth on the version three writes back, a lost update of two
// elements each time.
func BenchmarkWrite(b *testing.B) {
	for _, stale := range []bool{false, true} {
		name := "current"
		if stale {
			name = "stale"
		}
		b.Run(name, func(b *testing.B) {
			res := New(Config{Mode: Unprotected})
			env := &bareEnv{}
			b.ReportAllocs()
			for i := range uint64(b.N) {
				base := res.Version()
				if stale && i%4 == 3 {
					base -= 3
				}
				e := (i%4+1)<<40 | (2*(i/4) + 2)
				res.Handle(env, 1, proto.Msg{Kind: proto.ResourceWrite, Req: i, Int: base, Value: e})
			}
			b.StopTimer()
			if st := res.Stats(); st.Accepted != uint64(b.N) {
				b.Fatalf("stats %+v after %d writes", st, b.N)
			}
		})
	}
}
