package consensus

import (
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/proto"
)

// BenchmarkGrantLockRevoke is one lock cycle through the kernel and the
// network: grant a lease, create the lock key on it, revoke the lease
// (deleting the key), each with its reply. With tracing off it should
// allocate nothing but the amortized growth of the lease table.
func BenchmarkGrantLockRevoke(b *testing.B) {
	w := newWorld(b, 1, false)
	w.keepObs = false
	st := New(Config{})
	at := w.add("store", st, clocks.Spec{}).self
	c := w.addProbe("c1")
	c.keep = false
	b.ReportAllocs()
	for i := range uint64(b.N) {
		c.send(at, proto.Msg{Kind: proto.LeaseGrant, Req: 3 * i, TTL: 2 * time.Second})
		w.k.RunUntil(w.k.Now()) // zero latency: the request and its reply
		id := c.last.Int
		c.send(at, proto.Msg{Kind: proto.LockCreate, Req: 3*i + 1, Key: "lock", Int: id, Value: i})
		w.k.RunUntil(w.k.Now())
		c.send(at, proto.Msg{Kind: proto.LeaseRevoke, Req: 3*i + 2, Int: id})
		w.k.RunUntil(w.k.Now())
	}
	b.StopTimer()
	if st := st.Stats(); st.Grants != uint64(b.N) || st.Locks != uint64(b.N) || st.Revokes != uint64(b.N) || w.observed != 2*b.N {
		b.Fatalf("stats %+v, %d observations after %d rounds", st, w.observed, b.N)
	}
}
