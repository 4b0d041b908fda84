package consensus

import (
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/proto"
)

// BenchmarkGrantLockRevoke is one lock cycle through the kernel and the
// network: grant a lease, create the lock key on it, revoke the lease
// (deleting the key), each with its reply. With tracing off it should
// allocate nothing but the amortized growth of the lease table.
func BenchmarkGrantLockRevoke(b *testing.B) {
	st := New(Config{})
	w, p, c := actortest.Single(b, false, "store", st)
	at, cp := p.Self(), c.Proc()
	b.ReportAllocs()
	for i := range uint64(b.N) {
		cp.Send(at, proto.Msg{Kind: proto.LeaseGrant, Req: 3 * i, TTL: 2 * time.Second})
		w.Run(w.Now()) // zero latency: the request and its reply
		id := c.Received()[0].Int
		cp.Send(at, proto.Msg{Kind: proto.LockCreate, Req: 3*i + 1, Key: "lock", Int: id, Value: i})
		w.Run(w.Now())
		cp.Send(at, proto.Msg{Kind: proto.LeaseRevoke, Req: 3*i + 2, Int: id})
		w.Run(w.Now())
		c.Forget()
		w.ForgetObservations()
	}
	b.StopTimer()
	if st := st.Stats(); st.Grants != uint64(b.N) || st.Locks != uint64(b.N) || st.Revokes != uint64(b.N) || w.NumObserved() != 2*b.N {
		b.Fatalf("stats %+v, %d observations after %d rounds", st, w.NumObserved(), b.N)
	}
}
